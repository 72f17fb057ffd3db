import EngineTestSupport
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ObjectGraph

/// Numbers as Core Data hands them out: on Apple platforms `value(forKey:)`, `committedValues(forKeys:)`,
/// `changedValues()` and dictionary fetch results give `NSNumber`s, so ported code casts them to whatever
/// integer or floating-point type it likes (`committedValues(forKeys:)["numberOfMoods"] as? Int ?? 0`).
@Suite("Key-value reads box numbers as NSNumber, with NSNull for nil", .temporaryFolders)
struct KeyValueBoxingTests {
  /// A country with a count of every numeric type, a flag, and an optional name.
  static func model() throws -> NSManagedObjectModel {
    try NSManagedObjectModel(entities: [
      NSEntityDescription(
        name: "Country",
        properties: [
          .attribute(NSAttributeDescription(name: "numberOfMoods", type: .integer64, isOptional: false, defaultValue: Int64(0))),
          .attribute(NSAttributeDescription(name: "population", type: .integer32, isOptional: false, defaultValue: Int32(0))),
          .attribute(NSAttributeDescription(name: "code", type: .integer16, isOptional: false, defaultValue: Int16(0))),
          .attribute(NSAttributeDescription(name: "area", type: .double, isOptional: false, defaultValue: 0.0)),
          .attribute(NSAttributeDescription(name: "ratio", type: .float, isOptional: false, defaultValue: Float(0))),
          .attribute(NSAttributeDescription(name: "isActive", type: .boolean, isOptional: false, defaultValue: false)),
          .attribute(NSAttributeDescription(name: "name", type: .string)),
          .attribute(NSAttributeDescription(name: "founded", type: .date)),
        ])
    ])
  }

  /// The casts ported code makes on a number read through key-value coding, all of which work on Apple platforms.
  private func expectCasts(_ value: Any?, as number: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(value as? Int == number, "\(String(describing: value)) as? Int", sourceLocation: sourceLocation)
    #expect(value as? Int64 == Int64(number), sourceLocation: sourceLocation)
    #expect(value as? Int32 == Int32(number), sourceLocation: sourceLocation)
    #expect(value as? Int16 == Int16(number), sourceLocation: sourceLocation)
    #expect(value as? Double == Double(number), sourceLocation: sourceLocation)
  }

  @Test("value(forKey:) of every number type casts to Int, Int64, Int32, Int16 and Double; a Boolean to Bool")
  func valueForKey() throws {
    let stack = try StoreStack(model: try Self.model())
    stack.context.performAndWait {
      let country = NSEntityDescription.insertNewObject(forEntityName: "Country", into: stack.context)
      for key in ["numberOfMoods", "population", "code", "area", "ratio"] { country.setValue(2, forKey: key) }
      country.setValue(true, forKey: "isActive")
      for key in ["numberOfMoods", "population", "code", "area", "ratio"] { expectCasts(country.value(forKey: key), as: 2) }
      #expect(country.value(forKey: "isActive") as? Bool == true)
      #expect(country.value(forKey: "name") == nil)
    }
  }

  @Test("committedValues(forKeys:) holds NSNumbers and NSNull, never a nested optional")
  func committedValues() throws {
    let stack = try StoreStack(model: try Self.model())
    try stack.context.performAndWait {
      let country = NSEntityDescription.insertNewObject(forEntityName: "Country", into: stack.context)
      country.setValue(2, forKey: "numberOfMoods")
      try stack.context.save()
      country.setValue(3, forKey: "numberOfMoods")
      country.setValue("Iceland", forKey: "name")
      let committed = country.committedValues(forKeys: ["numberOfMoods", "name"])
      // The app's line: the count as it was saved, whatever integer type the model declares.
      #expect(committed["numberOfMoods"] as? Int ?? 0 == 2)
      #expect(committed["name"] is NSNull, "\(committed)")
      #expect(!"\(committed)".contains("Optional("), "\(committed)")
      expectCasts(country.committedValues(forKeys: nil)["population"], as: 0)
    }
  }

  @Test("changedValues() holds NSNumbers, and NSNull for a value set to nil")
  func changedValues() throws {
    let stack = try StoreStack(model: try Self.model())
    try stack.context.performAndWait {
      let country = NSEntityDescription.insertNewObject(forEntityName: "Country", into: stack.context)
      country.setValue("Iceland", forKey: "name")
      try stack.context.save()
      country.setValue(7, forKey: "code")
      country.setValue(nil, forKey: "name")
      let changed = country.changedValues()
      expectCasts(changed["code"], as: 7)
      #expect(changed["name"] is NSNull, "\(changed)")
      #expect(!"\(changed)".contains("Optional("), "\(changed)")
    }
  }

  @Test("Dictionary fetch results hold NSNumbers; a nil value leaves its key out", arguments: bothStoreTypes)
  func dictionaries(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: try Self.model(), type: type)
    try stack.context.performAndWait {
      let country = NSEntityDescription.insertNewObject(forEntityName: "Country", into: stack.context)
      country.setValue(4, forKey: "population")
      country.setValue(true, forKey: "isActive")
      try stack.context.save()
      let request = NSFetchRequest<[String: Any]>(entityName: "Country")
      request.resultType = .dictionaryResultType
      let row = try #require(try stack.context.fetch(request).first)
      expectCasts(row["population"], as: 4)
      #expect(row["isActive"] as? Bool == true)
      #expect(row["name"] == nil, "\(row)")
    }
  }

  /// The `objCType` of a number, as a one-character string (`q`, `i`, `s`, `d`, …).
  private func objCType(_ value: Any?) -> String? {
    (value as? NSNumber).map { String(cString: $0.objCType) }
  }

  @Test("Integers from -128 to 1023 are shared NSNumbers of the attribute's own type; others are made anew; all cast alike")
  func sharedSmallIntegers() throws {
    let stack = try StoreStack(model: try Self.model())
    stack.context.performAndWait {
      let country = NSEntityDescription.insertNewObject(forEntityName: "Country", into: stack.context)
      // Foundation's own number for the attribute's type: its objCType is what CoreFoundation keeps for it.
      let made: [(key: String, number: (Int) -> NSNumber)] = [
        ("numberOfMoods", { NSNumber(value: Int64($0)) }), ("population", { NSNumber(value: Int32($0)) }),
        ("code", { NSNumber(value: Int16($0)) }),
      ]
      for (key, make) in made {
        for number in [-129, -128, -1, 0, 1, 7, 1023, 1024, 30_000] {
          let type = objCType(make(number))
          country.setValue(number, forKey: key)
          let first = country.value(forKey: key)
          let second = country.value(forKey: key)
          expectCasts(first, as: number)
          #expect(objCType(first) == type, "\(key) = \(number)")
          #expect((first as? NSNumber) == NSNumber(value: number))
          // Shared inside the range, so reading one allocates nothing; a new number each read outside it.
          let shared = (-128...1023).contains(number)
          #expect(((first as AnyObject) === (second as AnyObject)) == shared, "\(key) = \(number)")
        }
      }
      // Exactness is Foundation's, whichever number it is: a value that does not fit is not cast.
      country.setValue(Int64(5_000_000_000), forKey: "numberOfMoods")
      #expect(country.value(forKey: "numberOfMoods") as? Int32 == nil)
      #expect(country.value(forKey: "numberOfMoods") as? Int64 == 5_000_000_000)
      country.setValue(Int16(-300), forKey: "code")
      #expect(country.value(forKey: "code") as? UInt16 == nil)
      #expect(country.value(forKey: "code") as? Int == -300)
    }
  }

  @Test("Shared numbers read from many contexts at once on their own queues are the same objects, with the same values")
  func sharedNumbersAcrossThreads() throws {
    let stack = try StoreStack(model: try Self.model())
    try stack.context.performAndWait {
      for code in 0..<50 {
        let country = NSEntityDescription.insertNewObject(forEntityName: "Country", into: stack.context)
        country.setValue(code, forKey: "code")
      }
      try stack.context.save()
    }
    let identities = Mutex<[Int: Set<ObjectIdentifier>]>([:])
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      let context = stack.freshContext()
      context.performAndWait {
        let countries = (try? context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Country"))) ?? []
        for country in countries {
          guard let number = country.value(forKey: "code") as? NSNumber else { continue }
          identities.withLock { _ = $0[number.intValue, default: []].insert(ObjectIdentifier(number)) }
        }
      }
    }
    let seen = identities.withLock { $0 }
    #expect(seen.keys.sorted() == Array(0..<50))
    #expect(seen.values.allSatisfy { $0.count == 1 }, "one shared NSNumber per value")
  }

  @Test(
    "An NSDictionary result holds the objects Foundation would, bridges to [String: Any] and equals Foundation's own",
    arguments: bothStoreTypes)
  func bridgedDictionaryRows(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: try Self.model(), type: type)
    let founded = Date(timeIntervalSinceReferenceDate: 123_456.5)
    try stack.context.performAndWait {
      let country = NSEntityDescription.insertNewObject(forEntityName: "Country", into: stack.context)
      country.setValue(2_000_000, forKey: "numberOfMoods")
      country.setValue(12, forKey: "code")
      country.setValue(2.5, forKey: "area")
      country.setValue(true, forKey: "isActive")
      country.setValue("Iceland", forKey: "name")
      country.setValue(founded, forKey: "founded")
      try stack.context.save()
    }
    let context = stack.freshContext()
    try context.performAndWait {
      let request = NSFetchRequest<NSDictionary>(entityName: "Country")
      request.resultType = .dictionaryResultType
      request.propertiesToFetch = ["name", "numberOfMoods", "code", "area", "isActive", "founded", "ratio"]
      let row = try #require(try context.fetch(request).first)
      #expect(row.count == 7)
      #expect(row["name"] as? String == "Iceland")
      #expect(row["numberOfMoods"] as? Int == 2_000_000)
      #expect(row["code"] as? Int16 == 12)
      #expect(row["area"] as? Double == 2.5)
      #expect(row["isActive"] as? Bool == true)
      #expect(row["founded"] as? Date == founded)
      #expect(row["ratio"] as? Float == 0)
      // The dictionary Foundation makes from the same Swift values.
      let foundation = NSDictionary(dictionary: [
        "name": "Iceland", "numberOfMoods": Int64(2_000_000), "code": Int16(12), "area": 2.5, "isActive": true,
        "founded": founded, "ratio": Float(0),
      ])
      #expect(row.isEqual(foundation))
      let plain = try #require(row as? [String: Any])
      #expect(Set(plain.keys) == ["name", "numberOfMoods", "code", "area", "isActive", "founded", "ratio"])
      #expect(plain["founded"] as? Date == founded)
      #expect(plain["numberOfMoods"] as? Int64 == 2_000_000)
      // The erased fetch gives the same NSDictionary, which casts to an array of Swift dictionaries.
      let erased = NSFetchRequest<any NSFetchRequestResult>(entityName: "Country")
      erased.resultType = .dictionaryResultType
      erased.propertiesToFetch = ["name", "founded"]
      let rows = try #require(try context.fetch(erased) as? [[String: Any]])
      #expect(rows.first?["name"] as? String == "Iceland")
      #expect(rows.first?["founded"] as? Date == founded)
    }
  }
}
