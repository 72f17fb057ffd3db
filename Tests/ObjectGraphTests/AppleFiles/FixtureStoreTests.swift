import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Real models from public projects, used for real: each version makes a SQLite store, reopens it, and
/// saves and fetches an object of every entity it can make.
@Suite("Fixture models as stores", .temporaryFolders)
struct FixtureStoreTests {
  @Test("Every fixture model version makes a store, saves one object per entity, and reopens compatibly", .needsFixtures)
  func everyVersionMakesAStore() throws {
    let folder = try TemporaryFolder()
    var stores = 0
    var savedObjects = 0
    for bundle in try Fixtures.models() {
      for (name, model) in try NSManagedObjectModel.versions(in: bundle) {
        // The apps register their own transformers (ColorTransformer, …); here a stand-in does.
        for entity in model.entities {
          for attribute in entity.attributesByName.values where attribute.attributeType == .transformableAttributeType {
            if let name = attribute.valueTransformerName, AttributeValueTransformer.valueTransformer(forName: name) == nil {
              AttributeValueTransformer.setValueTransformer(UTF8Transformer(), forName: name)
            }
          }
        }
        let url = folder.appending("\(bundle.deletingPathExtension().lastPathComponent)-\(name).sqlite")
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: url)
        stores += 1
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let inserted = try context.performAndWait { () -> Int in
          var count = 0
          for entity in model.entities where !entity.isAbstract && Self.canInsertAlone(entity) {
            let object = NSManagedObject(entity: entity, insertInto: context)
            for slot in entity.layout.slots where !slot.isOptional && !slot.isTransient {
              if let attribute = slot.attribute, attribute.isSupportedAtRunTime, object.value(forKey: slot.name) == nil {
                object.setValue(Self.sample(attribute), forKey: slot.name)
              }
            }
            // Values of uniqueness constraints differ per object (a constraint of a parent entity covers
            // its subentities' objects too), else the save fails with 133021 as it should.
            for name in Self.constrainedNames(entity) {
              if let attribute = entity.attributesByName[name], let value = Self.unique(attribute.attributeType, count) {
                object.setValue(value, forKey: name)
              }
            }
            count += 1
          }
          try context.save()
          return count
        }
        savedObjects += inserted
        // A second coordinator opens the file without complaint and sees the rows.
        let reader = try StoreStack(model: model, at: url).context
        let total = try reader.performAndWait {
          try model.entities.filter { $0.superentity == nil }.reduce(0) {
            $0 + (try reader.count(for: NSFetchRequest<NSManagedObject>(entityName: $1.entityName)))
          }
        }
        #expect(total == inserted, "\(bundle.lastPathComponent) \(name)")
      }
    }
    #expect(stores >= 50)
    #expect(savedObjects > 100)
  }

  /// Entities whose required relationships or unsupported required attributes would fail validation alone.
  private static func canInsertAlone(_ entity: NSEntityDescription) -> Bool {
    entity.layout.slots.allSatisfy { slot in
      guard !slot.isOptional, !slot.isTransient else { return true }
      if let attribute = slot.attribute { return attribute.isSupportedAtRunTime || attribute.defaultValue != nil }
      return false
    }
  }

  /// The attributes named by the uniqueness constraints of an entity and its superentities.
  private static func constrainedNames(_ entity: NSEntityDescription) -> Set<String> {
    var names: Set<String> = []
    var current: NSEntityDescription? = entity
    while let declaring = current {
      for constraint in declaring.uniquenessConstraints { names.formUnion(constraint) }
      current = declaring.superentity
    }
    return names
  }

  /// A value of `type` different for each `index`, where the type has such values.
  private static func unique(_ type: NSAttributeType, _ index: Int) -> Any? {
    switch type {
    case .stringAttributeType: "unique \(index)"
    case .integer16AttributeType: Int16(index)
    case .integer32AttributeType: Int32(index)
    case .integer64AttributeType: Int64(index)
    case .doubleAttributeType: Double(index)
    case .floatAttributeType: Float(index)
    case .dateAttributeType: Date(timeIntervalSinceReferenceDate: Double(index))
    case .UUIDAttributeType: UUID()
    case .URIAttributeType: URL(fileURLWithPath: "/unique/\(index)")
    case .decimalAttributeType: Decimal(index)
    default: nil
    }
  }

  /// A value of the attribute's type that keeps its validation rules (its minimum, its pattern).
  private static func sample(_ attribute: NSAttributeDescription) -> Any {
    let type = attribute.attributeType
    if let minimum = attribute.minValue {
      switch type {
      case .integer16AttributeType: return Int16(minimum)
      case .integer32AttributeType: return Int32(minimum)
      case .integer64AttributeType: return Int64(minimum)
      case .doubleAttributeType: return minimum
      case .floatAttributeType: return Float(minimum)
      case .decimalAttributeType: return Decimal(minimum)
      case .dateAttributeType: return Date(timeIntervalSinceReferenceDate: minimum)
      default: break
      }
    }
    if type == .stringAttributeType, let pattern = attribute.regularExpression {
      let candidates = ["sample", "someone@example.com", "ABC", "abc", "123"]
      return candidates.first { $0.wholeMatch(of: (try? Regex(pattern)) ?? Regex(verbatim: "sample")) != nil } ?? "sample"
    }
    return sample(type)
  }

  private static func sample(_ type: NSAttributeType) -> Any {
    switch type {
    case .stringAttributeType: "sample"
    case .integer16AttributeType: Int16(1)
    case .integer32AttributeType: Int32(1)
    case .integer64AttributeType: Int64(1)
    case .doubleAttributeType: 1.5
    case .floatAttributeType: Float(1.5)
    case .booleanAttributeType: true
    case .dateAttributeType: Date(timeIntervalSinceReferenceDate: 0)
    case .binaryDataAttributeType: Data([1])
    case .UUIDAttributeType: UUID()
    case .URIAttributeType: URL(fileURLWithPath: "/sample")
    case .decimalAttributeType: Decimal(1)
    case .transformableAttributeType: "sample"
    case .compositeAttributeType, .objectIDAttributeType, .undefinedAttributeType: Data()
    }
  }
}

/// Stands in for a fixture app's own value transformer: text as UTF-8.
final class UTF8Transformer: AttributeValueTransformer, @unchecked Sendable {
  override func transformedValue(_ value: Any) throws -> Data { Data("\(value)".utf8) }
  override func reverseTransformedValue(_ data: Data) throws -> Any { String(decoding: data, as: UTF8.self) }
}
