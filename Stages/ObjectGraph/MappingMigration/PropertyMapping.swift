import Foundation

/// How one property of a destination instance gets its value during a migration (Core Data's
/// `NSPropertyMapping`).
///
/// Core Data gives the value as an `NSExpression` evaluated with `$source` (the source instance),
/// `$manager` (the ``MigrationManager``) and `$entityPolicy`. ObjectGraph has no `NSExpression`; it takes
/// either a Swift closure, which can compute anything, or the two expression strings mapping models almost
/// always hold:
///
/// - `$source.title`, `$source.notebook.name`: a key path of the source instance (through to-one
///   relationships);
/// - `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "NoteToNote", $source.notes)`:
///   the destination instances that the entity mapping `NoteToNote` made from the objects at that key path,
///   for relationships.
///
/// Any other expression is refused by ``MigrationManager/migrateStore(from:type:options:mapping:to:type:options:)``
/// with error 134110 naming the entity mapping and the expression, before the destination store is made.
///
/// ```swift
/// PropertyMapping(name: "title", valueExpression: "$source.title")
/// PropertyMapping(name: "rating") { source, _ in Int64(source.value(forKey: "rating") as? String ?? "") ?? 0 }
/// ```
public final class PropertyMapping {
  /// The name of the destination property this mapping fills.
  public var name: String
  /// The value as an expression string (one of the two forms above), or `nil`.
  public var valueExpression: String?
  /// The value as a closure of the source instance and the migration manager, or `nil`. When both this and
  /// ``valueExpression`` are set, the closure wins; when neither is, the property keeps its default value.
  public var value: ((ManagedObject, MigrationManager) throws -> Any?)?
  /// Anything the app wants to keep with the mapping (Core Data's `userInfo`).
  public var userInfo: [String: Any]

  /// Makes a property mapping whose value is an expression string.
  public init(name: String, valueExpression: String?, userInfo: [String: Any] = [:]) {
    self.name = name
    self.valueExpression = valueExpression
    self.value = nil
    self.userInfo = userInfo
  }

  /// Makes a property mapping whose value a closure computes from the source instance.
  public init(name: String, userInfo: [String: Any] = [:], value: @escaping (ManagedObject, MigrationManager) throws -> Any?) {
    self.name = name
    self.valueExpression = nil
    self.value = value
    self.userInfo = userInfo
  }
}
