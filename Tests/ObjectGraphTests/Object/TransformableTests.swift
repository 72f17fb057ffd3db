import EngineTestSupport
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
    guard let color = value as? RGB else { throw ObjectGraphError(.managedObjectValidation, "expected an RGB, got \(type(of: value))") }
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

/// A badge of the app's own, archived by a subclass of the secure unarchiving transformer.
final class Badge: NSObject, NSSecureCoding {
  static var supportsSecureCoding: Bool { true }
  let label: String
  init(label: String) { self.label = label }
  func encode(with coder: NSCoder) { coder.encode(label as NSString, forKey: "label") }
  init?(coder: NSCoder) {
    guard let label = coder.decodeObject(of: NSString.self, forKey: "label") else { return nil }
    self.label = label as String
  }
}

/// Core Data's documented pattern: subclass the secure unarchiving transformer and name your class.
final class BadgeTransformer: SecureUnarchiveFromDataTransformer, @unchecked Sendable {
  override class var allowedTopLevelClasses: [AnyClass] { [Badge.self] + super.allowedTopLevelClasses }
}

/// Transformable attributes: values turned into bytes by a transformer (the secure unarchiving one by
/// default, or one registered by name), stored, and turned back when read.
@Suite("Transformable attributes", .temporaryFolders, .serialized)
struct TransformableTests {
  static func model() throws -> NSManagedObjectModel {
    AttributeValueTransformer.setValueTransformer(RGBTransformer(), forName: "RGBTransformer")
    let keywords = NSAttributeDescription(name: "keywords", type: .transformable)
    let settings = NSAttributeDescription(name: "settings", type: .transformable)
    settings.valueTransformerName = "NSSecureUnarchiveFromDataTransformer"
    let color = NSAttributeDescription(name: "color", type: .transformable)
    color.valueTransformerName = "RGBTransformer"
    let missing = NSAttributeDescription(name: "shape", type: .transformable)
    missing.valueTransformerName = "NoSuchTransformer"
    let card = NSEntityDescription(
      name: "Card",
      properties: [
        .attribute(NSAttributeDescription(name: "title", type: .string)), .attribute(keywords), .attribute(settings), .attribute(color),
        .attribute(missing),
      ])
    return try NSManagedObjectModel(entities: [card])
  }

  @Test("Values go through their transformer to the store and come back as they were", arguments: bothStoreTypes)
  func roundTrip(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: Self.model(), type: type)
    let entity = stack.entity("Card")
    try stack.context.performAndWait {
      let card = NSManagedObject(entity: entity, insertInto: stack.context)
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
      let card = try #require(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Card")).first)
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
    let stack = try StoreStack(model: Self.model())
    let entity = stack.entity("Card")
    stack.context.performAndWait {
      let card = NSManagedObject(entity: entity, insertInto: stack.context)
      card.setValue(Opaque(), forKey: "keywords")
      #expect(card.value(forKey: "keywords") is Opaque)
      let refused = expectCode(.managedObjectValidation) { try stack.context.save() }
      #expect(refused?.message.contains("Card.keywords") == true && refused?.message.contains("Opaque") == true)
      card.setValue(nil, forKey: "keywords")
      card.setValue("round", forKey: "shape")
      let missing = expectCode(.managedObjectValidation) { try stack.context.save() }
      #expect(missing?.message.contains("'NoSuchTransformer'") == true)
      card.setValue("not a colour", forKey: "shape")
      card.setValue(nil, forKey: "shape")
      card.setValue(42, forKey: "color")
      let wrong = expectCode(.managedObjectValidation) { try stack.context.save() }
      #expect(wrong?.message.contains("expected an RGB") == true)
      stack.context.rollback()
    }
    #expect(try stack.storedCount("Card") == 0)
  }

  @Test("Transformable attributes take no string operators, nor a value no transformer is given; batch requests transform too")
  func fetchesAndBatches() throws {
    let stack = try StoreStack(model: Self.model())
    try stack.context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Card")
      request.predicate = NSPredicate(format: "keywords CONTAINS %@", "swift")
      let inSQL = expectCode(.unsupportedFeature) { _ = try stack.context.fetch(request) }
      #expect(inSQL?.message.contains("transformable") == true)
      let card = NSManagedObject(entity: stack.entity("Card"), insertInto: stack.context)
      _ = expectCode(.unsupportedFeature) { _ = try request.predicate.map { try FetchPredicate($0).evaluate(with: card) } }
      request.predicate = NSPredicate(format: "color == %@", stack.entity("Card"))
      _ = expectCode(.invalidValue) { _ = try stack.context.fetch(request) }
      stack.context.rollback()

      let insert = NSBatchInsertRequest(entityName: "Card", objects: [["title": "batch", "color": RGB(red: 0, green: 0, blue: 1)]])
      insert.resultType = .objectIDs
      let ids = try #require((try stack.context.execute(insert) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
      #expect(try stack.context.existingObject(with: ids[0]).value(forKey: "color") as? RGB == RGB(red: 0, green: 0, blue: 1))
      _ = expectCode(.managedObjectValidation) {
        _ = try stack.context.execute(NSBatchInsertRequest(entityName: "Card", objects: [["keywords": Opaque()]]))
      }
    }
  }

  /// A UUID kept as its 16 raw bytes, as apps store identifiers in a transformable attribute.
  final class UUIDBytesTransformer: AttributeValueTransformer, @unchecked Sendable {
    override func transformedValue(_ value: Any) throws -> Data {
      guard let uuid = value as? UUID else { throw ObjectGraphError(.managedObjectValidation, "expected a UUID, got \(type(of: value))") }
      return withUnsafeBytes(of: uuid.uuid) { Data($0) }
    }
    override func reverseTransformedValue(_ data: Data) throws -> Any {
      guard data.count == 16 else { throw ObjectGraphError(.managedObjectValidation, "expected 16 bytes") }
      return UUID(uuid: data.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) })
    }
  }

  @Test(
    "A transformable attribute compared with values compares its stored bytes, in SQL and in memory alike: ==, !=, <, IN, BETWEEN",
    arguments: bothStoreTypes)
  func comparedAsBytes(type: NSPersistentStore.StoreType) throws {
    AttributeValueTransformer.setValueTransformer(UUIDBytesTransformer(), forName: "UUIDBytes")
    let token = NSAttributeDescription(name: "token", type: .transformable)
    token.valueTransformerName = "UUIDBytes"
    let model = try NSManagedObjectModel(entities: [
      NSEntityDescription(name: "Device", properties: [.attribute(NSAttributeDescription(name: "name", type: .string)), .attribute(token)])
    ])
    let stack = try StoreStack(model: model, type: type)
    let uuids = ["00000000-0000-0000-0000-000000000001", "7F000000-0000-0000-0000-000000000000", "FF000000-0000-0000-0000-000000000000"]
      .compactMap(UUID.init(uuidString:))
    try stack.context.performAndWait {
      for (index, uuid) in uuids.enumerated() {
        let device = NSManagedObject(entity: stack.entity("Device"), insertInto: stack.context)
        device.setValue("d\(index)", forKey: "name")
        device.setValue(uuid, forKey: "token")
      }
      NSManagedObject(entity: stack.entity("Device"), insertInto: stack.context).setValue("none", forKey: "name")
      try stack.context.save()
    }
    let (_, reader) = try stack.reader()
    try reader.performAndWait {
      let all = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Device"))
      for (format, arguments, expected) in [
        ("token == %@", [uuids[1]] as [any Sendable], ["d1"]),
        ("token != %@", [uuids[1]], ["d0", "d2"]),
        ("token < %@", [uuids[1]], ["d0"]),
        ("token >= %@", [uuids[1]], ["d1", "d2"]),
        ("%@ < token", [uuids[0]], ["d1", "d2"]),
        ("token IN %@", [[uuids[0], uuids[2]]], ["d0", "d2"]),
        ("token BETWEEN %@", [[uuids[0], uuids[1]]], ["d0", "d1"]),
        ("token == nil", [], ["none"]),
      ] {
        let predicate = NSPredicate(format: format, argumentArray: arguments)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Device")
        request.predicate = predicate
        let fetched = try reader.fetch(request).compactMap { $0.value(forKey: "name") as? String }.sorted()
        #expect(fetched == expected, "\(format) in SQL")
        let evaluated = all.filter { predicate.evaluate(with: $0) }.compactMap { $0.value(forKey: "name") as? String }.sorted()
        // In memory a missing value is "not equal", as for every attribute (Core Data's gotcha).
        #expect(evaluated == (format == "token != %@" ? ["d0", "d2", "none"] : expected), "\(format) in memory")
      }
    }
  }

  final class NestedBadge: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    override init() {}
    func encode(with coder: NSCoder) {}
    init?(coder: NSCoder) {}
  }

  final class NestedBadgeTransformer: SecureUnarchiveFromDataTransformer, @unchecked Sendable {
    override class var allowedTopLevelClasses: [AnyClass] { [NestedBadge.self] }
  }

  @Test("A subclass of the secure unarchiving transformer stores the NSSecureCoding class its allowedTopLevelClasses names")
  func secureTransformerSubclass() throws {
    AttributeValueTransformer.setValueTransformer(BadgeTransformer(), forName: "BadgeTransformer")
    let badge = NSAttributeDescription(name: "badge", type: .transformable)
    badge.valueTransformerName = "BadgeTransformer"
    let model = try NSManagedObjectModel(entities: [NSEntityDescription(name: "Player", properties: [.attribute(badge)])])
    let stack = try StoreStack(model: model)
    try stack.context.performAndWait {
      let player = NSManagedObject(entity: stack.entity("Player"), insertInto: stack.context)
      player.setValue(Badge(label: "gold"), forKey: "badge")
      try stack.context.save()
      // A value of a class it does not name is refused, and the message says where to add it.
      player.setValue(Opaque(), forKey: "badge")
      let error = expectCode(.managedObjectValidation) { try stack.context.save() }
      #expect(error?.message.contains("allowedTopLevelClasses") == true, "\(error?.message ?? "")")
      #expect(error?.message.contains("register") == false, "\(error?.message ?? "")")
      stack.context.rollback()
      // A class nested in another type: Linux's archiver would stop the program; the save says why instead.
      AttributeValueTransformer.setValueTransformer(NestedBadgeTransformer(), forName: "BadgeTransformer")
      defer { AttributeValueTransformer.setValueTransformer(BadgeTransformer(), forName: "BadgeTransformer") }
      player.setValue(NestedBadge(), forKey: "badge")
      let nested = expectCode(.managedObjectValidation) { try stack.context.save() }
      #expect(nested?.message.contains("top level") == true, "\(nested?.message ?? "")")
      stack.context.rollback()
    }
    let (_, reader) = try stack.reader()
    try reader.performAndWait {
      let player = try #require(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Player")).first)
      #expect((player.value(forKey: "badge") as? Badge)?.label == "gold")
    }
  }

  /// `NSNull` in a batch insert's row is no value, as in Core Data: the attribute's transformer is not
  /// handed it (RGBTransformer would refuse it), even for a transformer registered by a name nobody
  /// registered, and the row's column is NULL.
  @Test("A batch insert's NSNull for a transformable attribute is stored as no value, past its transformer")
  func batchInsertNullTransformable() throws {
    let stack = try StoreStack(model: Self.model())
    try stack.context.performAndWait {
      let insert = NSBatchInsertRequest(
        entityName: "Card",
        objects: [
          ["title": "no colour", "color": NSNull(), "shape": NSNull(), "keywords": NSNull()],
          ["title": "blue", "color": RGB(red: 0, green: 0, blue: 1)],
        ])
      insert.resultType = .objectIDs
      let ids = try #require((try stack.context.execute(insert) as? NSBatchInsertResult)?.result as? [NSManagedObjectID])
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
