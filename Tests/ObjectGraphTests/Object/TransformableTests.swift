import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// A colour kept as JSON by a transformer of the app's own.
struct RGB: Codable, Equatable {
  var red, green, blue: Double
}

/// The app's transformer for ``RGB``: JSON bytes.
final class RGBTransformer: AttributeValueTransformer, @unchecked Sendable {
  override func transformedValue(_ value: Any) throws -> Data {
    guard let color = value as? RGB else { throw ObjectGraphError(.validationValue, "expected an RGB, got \(type(of: value))") }
    return try JSONEncoder().encode(color)
  }

  override func reverseTransformedValue(_ data: Data) throws -> Any {
    try JSONDecoder().decode(RGB.self, from: data)
  }
}

/// Something the secure unarchiving transformer cannot archive.
struct Opaque {
  var id = 1
}

/// Transformable attributes: values turned into bytes by a transformer (the secure unarchiving one by
/// default, or one registered by name), stored, and turned back when read.
@Suite("Transformable attributes", .temporaryFolders, .serialized)
struct TransformableTests {
  static func model() throws -> ManagedObjectModel {
    AttributeValueTransformer.setValueTransformer(RGBTransformer(), forName: "RGBTransformer")
    let keywords = AttributeDescription(name: "keywords", type: .transformable)
    let settings = AttributeDescription(name: "settings", type: .transformable)
    settings.valueTransformerName = "NSSecureUnarchiveFromDataTransformer"
    let color = AttributeDescription(name: "color", type: .transformable)
    color.valueTransformerName = "RGBTransformer"
    let missing = AttributeDescription(name: "shape", type: .transformable)
    missing.valueTransformerName = "NoSuchTransformer"
    let card = EntityDescription(
      name: "Card",
      properties: [
        .attribute(AttributeDescription(name: "title", type: .string)), .attribute(keywords), .attribute(settings), .attribute(color),
        .attribute(missing),
      ])
    return try ManagedObjectModel(entities: [card])
  }

  @Test("Values go through their transformer to the store and come back as they were", arguments: bothStoreTypes)
  func roundTrip(type: StoreType) throws {
    let stack = try Stack(model: Self.model(), type: type)
    let entity = stack.entity("Card")
    try stack.context.performAndWait {
      let card = ManagedObject(entity: entity, insertInto: stack.context)
      card.setValue("first", forKey: "title")
      card.setValue(["swift", "linux"], forKey: "keywords")
      card.setValue(["fontSize": 14, "dark": true] as [String: Any], forKey: "settings")
      card.setValue(RGB(red: 1, green: 0.5, blue: 0), forKey: "color")
      #expect(card.value(forKey: "keywords") as? [String] == ["swift", "linux"])
      try stack.context.save()
      card.setValue(["swift", "linux", "sqlite"], forKey: "keywords")
      #expect(card.changedValues()["keywords"] as? [String] == ["swift", "linux", "sqlite"])
      #expect(card.committedValues(forKeys: ["keywords"])["keywords"] as? [String] == ["swift", "linux"])
      try stack.context.save()
    }
    let (_, reader) = try stack.reader()
    try reader.performAndWait {
      let card = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Card")).first)
      #expect(card.value(forKey: "keywords") as? [String] == ["swift", "linux", "sqlite"])
      let settings = try #require(card.value(forKey: "settings") as? [String: Any])
      #expect(settings["fontSize"] as? Int == 14 && settings["dark"] as? Bool == true)
      #expect(card.value(forKey: "color") as? RGB == RGB(red: 1, green: 0.5, blue: 0))
      #expect(card.value(forKey: "shape") == nil)
    }
    if type == .sqlite {
      let rows = try rawRows(stack.storeURL, "SELECT ZCOLOR, ZKEYWORDS FROM ZCARD")
      let json = try #require(rows.first?["ZCOLOR"] as Data?)
      #expect(try JSONDecoder().decode(RGB.self, from: json) == RGB(red: 1, green: 0.5, blue: 0))
      let archive = try #require(rows.first?["ZKEYWORDS"] as Data?)
      #expect(String(decoding: archive.prefix(6), as: UTF8.self) == "bplist")
    }
  }

  @Test("A value its transformer refuses, or a transformer nobody registered, fails the save naming both; nothing is lost or written")
  func refusals() throws {
    let stack = try Stack(model: Self.model())
    let entity = stack.entity("Card")
    stack.context.performAndWait {
      let card = ManagedObject(entity: entity, insertInto: stack.context)
      card.setValue(Opaque(), forKey: "keywords")
      #expect(card.value(forKey: "keywords") is Opaque)
      let refused = expectCode(.validationValue) { try stack.context.save() }
      #expect(refused?.message.contains("Card.keywords") == true && refused?.message.contains("Opaque") == true)
      card.setValue(nil, forKey: "keywords")
      card.setValue("round", forKey: "shape")
      let missing = expectCode(.validationValue) { try stack.context.save() }
      #expect(missing?.message.contains("'NoSuchTransformer'") == true)
      card.setValue("not a colour", forKey: "shape")
      card.setValue(nil, forKey: "shape")
      card.setValue(42, forKey: "color")
      let wrong = expectCode(.validationValue) { try stack.context.save() }
      #expect(wrong?.message.contains("expected an RGB") == true)
      stack.context.rollback()
    }
    #expect(try stack.storedCount("Card") == 0)
  }

  @Test("Transformable attributes are compared only with nil, in SQL and in memory; batch requests transform too")
  func fetchesAndBatches() throws {
    let stack = try Stack(model: Self.model())
    try stack.context.performAndWait {
      let request = FetchRequest<ManagedObject>(entityName: "Card")
      request.predicate = try FetchPredicate(format: "keywords == %@", ["swift"])
      let inSQL = expectCode(.unsupportedFeature) { _ = try stack.context.fetch(request) }
      #expect(inSQL?.message.contains("transformable") == true)
      let card = ManagedObject(entity: stack.entity("Card"), insertInto: stack.context)
      _ = expectCode(.unsupportedFeature) { _ = try request.predicate?.evaluate(with: card) }
      stack.context.rollback()

      let insert = BatchInsertRequest(entityName: "Card", objects: [["title": "batch", "color": RGB(red: 0, green: 0, blue: 1)]])
      insert.resultType = .objectIDs
      let ids = try #require((try stack.context.execute(insert) as? BatchInsertResult)?.result as? [ManagedObjectID])
      #expect(try stack.context.existingObject(with: ids[0]).value(forKey: "color") as? RGB == RGB(red: 0, green: 0, blue: 1))
      _ = expectCode(.validationValue) {
        _ = try stack.context.execute(BatchInsertRequest(entityName: "Card", objects: [["keywords": Opaque()]]))
      }
    }
  }

  /// `NSNull` in a batch insert's row is no value, as in Core Data: the attribute's transformer is not
  /// handed it (RGBTransformer would refuse it), even for a transformer registered by a name nobody
  /// registered, and the row's column is NULL.
  @Test("A batch insert's NSNull for a transformable attribute is stored as no value, past its transformer")
  func batchInsertNullTransformable() throws {
    let stack = try Stack(model: Self.model())
    try stack.context.performAndWait {
      let insert = BatchInsertRequest(
        entityName: "Card",
        objects: [
          ["title": "no colour", "color": NSNull(), "shape": NSNull(), "keywords": NSNull()],
          ["title": "blue", "color": RGB(red: 0, green: 0, blue: 1)],
        ])
      insert.resultType = .objectIDs
      let ids = try #require((try stack.context.execute(insert) as? BatchInsertResult)?.result as? [ManagedObjectID])
      #expect(ids.count == 2)
      let plain = try stack.context.existingObject(with: ids[0])
      #expect(plain.value(forKey: "title") as? String == "no colour")
      #expect(plain.value(forKey: "color") == nil)
      #expect(plain.value(forKey: "shape") == nil)
      #expect(plain.value(forKey: "keywords") == nil)
      #expect(try stack.context.existingObject(with: ids[1]).value(forKey: "color") as? RGB == RGB(red: 0, green: 0, blue: 1))
    }
  }
}
