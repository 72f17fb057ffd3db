import EngineTestSupport
import Foundation
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
}
