import EngineTestSupport
import Foundation
import Testing

@testable import ObjectGraph

/// `@ObjectGraphManaged` reads: the fast path (a plain attribute read as the type it is stored as) gives what the
/// general read gives, the conversions still apply where the types differ, and the key names are learnt
/// safely by many threads at once.
@Suite("@ObjectGraphManaged reads")
struct ManagedReadTests {
  final class Gauge: NSManagedObject {
    @ObjectGraphManaged var label: String?
    @ObjectGraphManaged var count: Int64
    @ObjectGraphManaged var countAsInt: Int
    @ObjectGraphManaged var small: Int16
    @ObjectGraphManaged var smallAsInt64: Int64
    @ObjectGraphManaged var ratio: Double
    @ObjectGraphManaged var weight: Float
    @ObjectGraphManaged var weightAsDouble: Double
    @ObjectGraphManaged var flag: Bool
    @ObjectGraphManaged var at: Date?
    @ObjectGraphManaged var blob: Data?
    @ObjectGraphManaged var anything: Any?
  }

  static func model() throws -> NSManagedObjectModel {
    try NSManagedObjectModel(entities: [
      NSEntityDescription(
        name: "Gauge", managedObjectClass: Gauge.self,
        properties: [
          .attribute(NSAttributeDescription(name: "label", type: .string)),
          .attribute(NSAttributeDescription(name: "count", type: .integer64, isOptional: false, defaultValue: Int64(0))),
          .attribute(NSAttributeDescription(name: "countAsInt", type: .integer64, isOptional: false, defaultValue: Int64(0))),
          .attribute(NSAttributeDescription(name: "small", type: .integer16, isOptional: false, defaultValue: Int16(0))),
          .attribute(NSAttributeDescription(name: "smallAsInt64", type: .integer16, isOptional: false, defaultValue: Int16(0))),
          .attribute(NSAttributeDescription(name: "ratio", type: .double, isOptional: false, defaultValue: 0.0)),
          .attribute(NSAttributeDescription(name: "weight", type: .float, isOptional: false, defaultValue: Float(0))),
          .attribute(NSAttributeDescription(name: "weightAsDouble", type: .float, isOptional: false, defaultValue: Float(0))),
          .attribute(NSAttributeDescription(name: "flag", type: .boolean, isOptional: false, defaultValue: false)),
          .attribute(NSAttributeDescription(name: "at", type: .date)),
          .attribute(NSAttributeDescription(name: "blob", type: .binaryData)),
          .attribute(NSAttributeDescription(name: "anything", type: .string)),
        ])
    ])
  }

  static func context(_ model: NSManagedObjectModel) throws -> NSManagedObjectContext {
    try StoreStack(model: model, at: nil).context
  }

  @Test("each property reads what was saved: same types on the fast path, other widths converted, nil for optionals")
  func readsAfterARoundTrip() throws {
    let model = try Self.model()
    let context = try Self.context(model)
    let date = Date(timeIntervalSinceReferenceDate: 12_345)
    try context.performAndWait {
      let gauge = Gauge(context: context)
      gauge.label = "north"
      gauge.count = 9_000_000_000
      gauge.countAsInt = 42
      gauge.small = -7
      gauge.smallAsInt64 = 300
      gauge.ratio = 0.25
      gauge.weight = 1.5
      gauge.weightAsDouble = 2.5
      gauge.flag = true
      gauge.at = date
      gauge.blob = Data([1, 2, 3])
      gauge.anything = "any"
      try context.save()
      context.reset()

      let read = try #require(try context.fetch(NSFetchRequest<Gauge>(entityName: "Gauge")).first)
      #expect(read.label == "north")
      #expect(read.count == 9_000_000_000)
      #expect(read.countAsInt == 42)
      #expect(read.small == -7)
      #expect(read.smallAsInt64 == 300)
      #expect(read.ratio == 0.25)
      #expect(read.weight == 1.5)
      #expect(read.weightAsDouble == 2.5)
      #expect(read.flag == true)
      #expect(read.at == date)
      #expect(read.blob == Data([1, 2, 3]))
      #expect(read.anything as? String == "any")
      read.label = nil
      read.at = nil
      #expect(read.label == nil && read.at == nil)
    }
  }

  /// One class for two entities whose `title` sits at different slots, and is a relationship in a third.
  final class Tagged: NSManagedObject {
    @ObjectGraphManaged var title: String?
  }

  @Test("one class in several entities: each read finds the property's slot in its own object's layout")
  func oneClassSeveralLayouts() throws {
    let first = NSEntityDescription(
      name: "First", managedObjectClass: Tagged.self, properties: [.attribute(NSAttributeDescription(name: "title", type: .string))])
    let second = NSEntityDescription(
      name: "Second", managedObjectClass: Tagged.self,
      properties: [
        .attribute(NSAttributeDescription(name: "code", type: .string)),
        .attribute(NSAttributeDescription(name: "title", type: .string)),
      ])
    let context = try Self.context(try NSManagedObjectModel(entities: [first, second]))
    try context.performAndWait {
      let one = Tagged(entity: first, insertInto: context)
      let two = Tagged(entity: second, insertInto: context)
      one.title = "first"
      two.setValue("code of second", forKey: "code")
      two.title = "second"
      // Alternating reads: the cache of `title`'s slot changes layout at every one.
      for _ in 0..<3 {
        #expect(one.title == "first")
        #expect(two.title == "second")
      }
      try context.save()
      #expect(two.value(forKey: "code") as? String == "code of second")
    }
  }

  @Test("eight threads learning the same and different property names at once all read the right values")
  func namesLearntConcurrently() throws {
    let model = try Self.model()
    let failures = Locked<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 8) { worker in
      do {
        let context = try Self.context(model)
        context.performAndWait {
          for round in 0..<50 {
            let gauge = Gauge(context: context)
            let value = Int64(worker * 1_000 + round)
            // Each worker starts at another property, so first reads of new names race.
            let start = (worker + round) % 4
            for step in 0..<4 {
              switch (start + step) % 4 {
              case 0: gauge.count = value
              case 1: gauge.smallAsInt64 = value % 100
              case 2: gauge.label = "w\(value)"
              default: gauge.ratio = Double(value)
              }
            }
            if gauge.count != value || gauge.smallAsInt64 != value % 100 || gauge.label != "w\(value)" || gauge.ratio != Double(value) {
              failures.withLock { $0.append("worker \(worker) round \(round)") }
            }
          }
        }
      } catch {
        failures.withLock { $0.append("\(error)") }
      }
    }
    #expect(failures.withLock { $0 } == [])
  }
}
