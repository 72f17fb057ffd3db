import Foundation
import ObjectGraph

/// Reads a store through the engine, read-only, and describes its objects: per entity, how many there are
/// and the first few, with their attributes and relationships. Every value comes from a fetch request and
/// `value(forKey:)`, as a Core Data program would read it; nothing reads the file's tables directly.
struct StoreReader {
  let url: URL
  let version: ModelChoice
  /// How many objects to show per entity (and members per to-many).
  let limit: Int

  /// Opens the store read-only, describes it, and removes it from its coordinator (which takes away any
  /// `-wal` and `-shm` file the look made), also when reading fails.
  func objectLines() throws -> [String] {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version.model)
    let store = try coordinator.addPersistentStore(
      type: .sqlite, at: url, options: [NSReadOnlyPersistentStoreOption: true])
    defer { try? coordinator.remove(store) }
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return try context.performAndWait {
      var lines: [String] = []
      for entity in Self.entitiesInOrder(version.model) {
        lines += try describe(entity, in: context)
      }
      return lines
    }
  }

  /// Root entities by name, each followed by its subentities (depth first, by name): the order in which
  /// Core Data numbers entities in `Z_PRIMARYKEY`, so a hierarchy reads top down.
  static func entitiesInOrder(_ model: NSManagedObjectModel) -> [NSEntityDescription] {
    func walk(_ entity: NSEntityDescription) -> [NSEntityDescription] {
      [entity] + entity.subentities.sorted { ($0.name ?? "") < ($1.name ?? "") }.flatMap(walk)
    }
    return model.entities.filter { $0.superentity == nil }.sorted { ($0.name ?? "") < ($1.name ?? "") }.flatMap(walk)
  }

  /// An entity's count line and its first objects.
  private func describe(_ entity: NSEntityDescription, in context: NSManagedObjectContext) throws -> [String] {
    let own = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
    own.includesSubentities = false
    let ownCount = try context.count(for: own)
    var heading = "\(entity.name ?? ""): \(Self.objects(ownCount))"
    if !entity.subentities.isEmpty {
      let all = NSFetchRequest<NSManagedObject>(entityName: entity.name ?? "")
      let total = try context.count(for: all)
      let names = Self.descendants(of: entity).compactMap(\.name).joined(separator: ", ")
      heading += " of its own, \(total) with its subentities (\(names))"
    }
    var lines = [heading]
    guard limit > 0, ownCount > 0 else { return lines }
    // No sort descriptors: the store's order, which is by primary key; sorted again below to be sure.
    own.fetchLimit = limit
    let objects = try context.fetch(own).sorted { Self.sortKey($0) < Self.sortKey($1) }
    for object in objects {
      lines.append("  \(Self.reference(object))")
      lines += properties(of: object).map { "    \($0)" }
    }
    if ownCount > objects.count { lines.append("  … \(ownCount - objects.count) more") }
    return lines
  }

  /// `name: value` for each stored property of `object`, attributes first, then relationships (inherited
  /// ones first in each, as the model lists them). Transient properties hold nothing in the store.
  private func properties(of object: NSManagedObject) -> [String] {
    let all = object.entity.properties
    let ordered = all.filter { $0 is NSAttributeDescription } + all.filter { $0 is NSRelationshipDescription }
    return ordered.compactMap { property -> String? in
      guard !property.isTransient else { return nil }
      if let attribute = property as? NSAttributeDescription {
        return "\(attribute.name): \(ValueText.attribute(object.value(forKey: attribute.name), type: attribute.attributeType))"
      }
      guard let relationship = property as? NSRelationshipDescription else { return nil }
      return "\(relationship.name): \(related(object.value(forKey: relationship.name), toMany: relationship.isToMany))"
    }
  }

  /// A to-one as `Person #17 "Theodora Stone"`; a to-many as its count and its first members.
  private func related(_ value: Any?, toMany: Bool) -> String {
    if !toMany {
      guard let object = value as? NSManagedObject else { return "nil" }
      let name = Self.displayName(object).map { " \(ValueText.quoted($0))" } ?? ""
      return Self.reference(object) + name
    }
    let members: [NSManagedObject]
    if let ordered = value as? NSOrderedSet {
      members = ordered.array.compactMap { $0 as? NSManagedObject }
    } else {
      members = ((value as? Set<NSManagedObject>) ?? []).sorted { Self.sortKey($0) < Self.sortKey($1) }
    }
    guard !members.isEmpty else { return "0 objects" }
    let shown = members.prefix(max(limit, 1)).map(Self.reference)
    let more = members.count > shown.count ? ", …" : ""
    return "\(Self.objects(members.count)): \(shown.joined(separator: ", "))\(more)"
  }

  /// The object's non-empty string attributes, joined by spaces (`Theodora Stone`), or `nil` when it has
  /// none: enough to recognise the object a relationship leads to.
  static func displayName(_ object: NSManagedObject) -> String? {
    let words = object.entity.properties.compactMap { property -> String? in
      guard let attribute = property as? NSAttributeDescription, attribute.attributeType == .stringAttributeType, !attribute.isTransient
      else {
        return nil
      }
      return (object.value(forKey: attribute.name) as? String).flatMap { $0.isEmpty ? nil : $0 }
    }
    return words.isEmpty ? nil : words.joined(separator: " ")
  }

  /// `Car #12`: the entity and the primary key, from the object's URI (`x-coredata://UUID/Car/p12`).
  static func reference(_ object: NSManagedObject) -> String {
    let key = primaryKey(object).map(String.init) ?? object.objectID.uriRepresentation().lastPathComponent
    return "\(object.entity.name ?? "?") #\(key)"
  }

  /// The primary key a permanent object ID's URI ends with (`p12`), or `nil` for another URI.
  static func primaryKey(_ object: NSManagedObject) -> Int64? {
    let last = object.objectID.uriRepresentation().lastPathComponent
    guard last.hasPrefix("p") else { return nil }
    return Int64(last.dropFirst())
  }

  /// The primary key to sort by; an ID whose URI ends otherwise sorts last.
  static func sortKey(_ object: NSManagedObject) -> Int64 { primaryKey(object) ?? .max }

  /// Every entity below `entity`, depth first, by name.
  static func descendants(of entity: NSEntityDescription) -> [NSEntityDescription] {
    entity.subentities.sorted { ($0.name ?? "") < ($1.name ?? "") }.flatMap { [$0] + descendants(of: $0) }
  }

  /// "1 object", "115 objects".
  static func objects(_ count: Int) -> String { count == 1 ? "1 object" : "\(count) objects" }
}
