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

/// A ``PropertyMapping/valueExpression`` once read: the two forms the migration manager evaluates.
enum MappingExpression {
  /// `$source.a.b`: the key path's components.
  case keyPath([String])
  /// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "<mapping>", $source.<keyPath>)`.
  case destinationInstances(mapping: String, keyPath: [String])

  static let selector = "destinationInstancesForEntityMappingNamed:sourceInstances:"

  /// Reads an expression string, or returns `nil` when it is neither form.
  static func parse(_ text: String) -> MappingExpression? {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if let keyPath = sourceKeyPath(trimmed) { return .keyPath(keyPath) }
    guard trimmed.hasPrefix("FUNCTION("), trimmed.hasSuffix(")") else { return nil }
    let arguments = trimmed.dropFirst("FUNCTION(".count).dropLast().split(separator: ",", omittingEmptySubsequences: false)
      .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    guard arguments.count == 4, arguments[0] == "$manager", unquoted(arguments[1]) == selector,
      let mapping = unquoted(arguments[2]), !mapping.isEmpty, let keyPath = sourceKeyPath(arguments[3])
    else { return nil }
    return .destinationInstances(mapping: mapping, keyPath: keyPath)
  }

  /// The components of `$source.a.b`, or `nil`.
  private static func sourceKeyPath(_ text: String) -> [String]? {
    guard text.hasPrefix("$source.") else { return nil }
    let components = text.dropFirst("$source.".count).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    let identifier = { (part: String) in
      guard let first = part.first, first.isLetter || first == "_" else { return false }
      return part.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }
    return components.allSatisfy(identifier) ? components : nil
  }

  /// The text between matching double or single quotes, or `nil`.
  private static func unquoted(_ text: String) -> String? {
    guard text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first else { return nil }
    return String(text.dropFirst().dropLast())
  }
}
