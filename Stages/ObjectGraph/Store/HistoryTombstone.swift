import Foundation
internal import GRDB

/// What a deleted object leaves in persistent history: the values of its attributes marked
/// `preservesValueInHistoryOnDeletion` ("Preserve After Deletion" in Xcode), read from its row just before the
/// row is deleted (Core Data's `NSPersistentHistoryChange.tombstone`).
///
/// Kept in the change's `ZTOMBSTONE` column as a binary property list: strings, numbers, dates and data as
/// they are; a UUID, URL or decimal as its text, turned back into its type from the attribute's when read.
/// An attribute without a value is left out.
enum HistoryTombstone {
  /// The attributes of `entity` whose values outlive its objects in history.
  static func preservedAttributes(of entity: NSEntityDescription) -> [NSAttributeDescription] {
    entity.properties.compactMap { $0 as? NSAttributeDescription }.filter(\.preservesValueInHistoryOnDeletion)
  }

  /// The tombstones of the rows of `ids` (objects of `entity`), read from `store` on `db` before a save or a
  /// batch delete deletes them; none, and the IDs never made, when `entity` preserves no attribute.
  static func read(
    _ ids: @autoclosure () -> [NSManagedObjectID], of entity: NSEntityDescription, from store: NSPersistentStore, db: Database
  ) throws -> [NSManagedObjectID: Data] {
    let preserved = preservedAttributes(of: entity)
    guard !preserved.isEmpty else { return [:] }
    var tombstones: [NSManagedObjectID: Data] = [:]
    for (id, snapshot) in try store.snapshots(for: ids(), db: db) {
      tombstones[id] = encode(snapshot.values, of: preserved, entity: entity)
    }
    return tombstones
  }

  /// The tombstone of a row of `entity` holding `values` (in the entity's layout): the values of `attributes`
  /// (its ``preservedAttributes(of:)``), or `nil` when none has a value.
  static func encode(_ values: [StoredValue], of attributes: [NSAttributeDescription], entity: NSEntityDescription) -> Data? {
    var kept: [String: Any] = [:]
    for attribute in attributes {
      guard let index = entity.layout.index(of: attribute.name), index < values.count, let value = values[index] else {
        continue
      }
      switch value {
      case .boxed(let box):
        switch box.value {
        case let uuid as UUID: kept[attribute.name] = uuid.uuidString
        case let url as URL: kept[attribute.name] = url.absoluteString
        case let decimal as Decimal: kept[attribute.name] = "\(decimal)"
        default: continue
        }
      default:
        guard let plain = value.boxedValue, !(plain is NSManagedObjectID) else { continue }
        kept[attribute.name] = plain
      }
    }
    guard !kept.isEmpty else { return nil }
    return try? PropertyListSerialization.data(fromPropertyList: kept, format: .binary, options: 0)
  }

  /// A tombstone read back: each value of the type its attribute of `entity` has (numbers as `NSNumber`s,
  /// as Core Data hands them out).
  static func decode(_ data: Data, entity: NSEntityDescription) -> [String: any Sendable]? {
    guard
      let stored = (try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)) as? [String: Any]
    else { return nil }
    let attributes = entity.attributesByName
    var values: [String: any Sendable] = [:]
    for (name, raw) in stored {
      switch (attributes[name]?.attributeType, raw) {
      case (.UUIDAttributeType, let text as String): values[name] = UUID(uuidString: text)
      case (.URIAttributeType, let text as String): values[name] = URL(string: text)
      case (.decimalAttributeType, let text as String): values[name] = Decimal(string: text)
      case (_, let text as String): values[name] = text
      case (_, let date as Date): values[name] = date
      case (_, let bytes as Data): values[name] = bytes
      case (_, let number as NSNumber): values[name] = number
      default: continue
      }
    }
    return values
  }
}
