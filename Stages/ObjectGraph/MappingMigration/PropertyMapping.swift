import Foundation

/// How one property of a destination instance gets its value during a migration (Core Data's
/// `NSPropertyMapping`).
///
/// Core Data gives the value as an `NSExpression` evaluated with `$source` (the source instance),
/// `$manager` (the ``NSMigrationManager``) and `$entityPolicy`. ObjectGraph has no `NSExpression`; it takes
/// either a Swift closure, which can compute anything, or an expression string in the forms mapping models
/// hold and Xcode's mapping editor writes:
///
/// - `$source.title`, `$source.notebook.name`: a key path of the source instance, through to-one and
///   to-many relationships (`$source.tags.name` is the set of the tags' names), with Key-Value Coding's
///   collection operators: `$source.notes.@count`, `@sum`, `@avg`, `@min`, `@max` (`$source.notes.@sum.words`),
///   `@unionOfObjects`, `@distinctUnionOfObjects`, `@unionOfSets`, `@distinctUnionOfSets`
///   (`$source.countries.@distinctUnionOfSets.moods`), `@unionOfArrays`, `@distinctUnionOfArrays`;
/// - a constant: `"text"`, `42`, `2.5`, `YES`, `NO`, `nil`; and `NOW()`, the date of the migration;
/// - `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "NoteToNote", $source.notes)`:
///   the destination instances that the entity mapping `NoteToNote` made from the objects at that key path,
///   for relationships; `FUNCTION($manager, "destinationInstancesForSourceRelationshipNamed:sourceInstances:",
///   "notes", $source.notes)`: those made by the mappings of the relationship's destination entity and its
///   subentities;
/// - `FUNCTION($source, "valueForKey:", "title")`, `"valueForKeyPath:"`, and on a string `"uppercaseString"`,
///   `"lowercaseString"`, `"capitalizedString"`, `"stringByAppendingString:"`;
/// - `FUNCTION($entityPolicy, "anySelector:", …)`, answered by the mapping's policy
///   (``NSEntityMigrationPolicy/evaluateFunction(_:arguments:manager:)``).
///
/// Any other expression (arithmetic, other functions or selectors, other variables) is refused, naming the
/// entity mapping, the property and the expression: when a mapping model file is loaded
/// (``NSMappingModel/init(contentsOf:)``), and by ``NSMigrationManager/migrateStore(from:type:options:mapping:to:type:options:)``
/// with error 134110 before the destination store is made.
///
/// ```swift
/// NSPropertyMapping(name: "title", valueExpression: "$source.title")
/// NSPropertyMapping(name: "rating") { source, _ in Int64(source.value(forKey: "rating") as? String ?? "") ?? 0 }
/// ```
public final class NSPropertyMapping {
  /// The name of the destination property this mapping fills.
  public var name: String
  /// The value as an expression string (one of the forms above), or `nil`.
  public var valueExpression: String?
  /// The value as a closure of the source instance and the migration manager, or `nil`. When both this and
  /// ``valueExpression`` are set, the closure wins; when neither is, the property keeps its default value.
  public var value: ((NSManagedObject, NSMigrationManager) throws -> Any?)?
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
  public init(name: String, userInfo: [String: Any] = [:], value: @escaping (NSManagedObject, NSMigrationManager) throws -> Any?) {
    self.name = name
    self.valueExpression = nil
    self.value = value
    self.userInfo = userInfo
  }
}
