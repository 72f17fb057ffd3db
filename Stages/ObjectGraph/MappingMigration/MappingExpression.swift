import Foundation

/// An ``NSPropertyMapping/valueExpression`` once read: the `NSExpression` format forms that mapping models
/// hold and Xcode's mapping editor writes, as a tree the migration manager checks against the models and
/// evaluates (see ``NSPropertyMapping`` for the list).
indirect enum MappingExpression: Equatable {
  /// A constant: `"text"`, `42`, `2.5`, `YES`, `nil`.
  case constant(MappingConstant)
  /// `NOW()`: the date the value is computed.
  case now
  /// `$source`, `$manager` or `$entityPolicy`, with a key path from it (`$source.notes.@count`).
  case variable(MappingVariable, MappingKeyPath)
  /// `FUNCTION(operand, "selector:", arguments…)`.
  case function(operand: MappingExpression, selector: String, arguments: [MappingExpression])

  /// The selector of the relationship expressions: the destination instances a named entity mapping made.
  static let selector = "destinationInstancesForEntityMappingNamed:sourceInstances:"
  /// The selector of the relationship expressions the model compiler writes when the source relationship's
  /// destination has subentities (several mappings may hold the instances).
  static let sourceRelationshipSelector = "destinationInstancesForSourceRelationshipNamed:sourceInstances:"

  /// Why an expression cannot be used, worded for an error message.
  struct Unsupported: Error {
    let reason: String
  }

  /// Reads an expression string.
  /// - Throws: ``Unsupported`` saying what in the text ObjectGraph does not read.
  static func parse(_ text: String) throws -> MappingExpression {
    var parser = MappingExpressionParser(text)
    return try parser.parseWhole()
  }
}

/// A constant of a mapping expression.
enum MappingConstant: Equatable {
  case null
  case string(String)
  case integer(Int64)
  case double(Double)
  case bool(Bool)

  /// The value a property gets.
  var value: Any? {
    switch self {
    case .null: nil
    case .string(let text): text
    case .integer(let number): number
    case .double(let number): number
    case .bool(let flag): flag
    }
  }
}

/// The variables Core Data gives a property mapping's expression, named by the keys Apple publishes
/// (``NSMigrationSourceObjectKey`` is `$source`, …).
enum MappingVariable: String, Equatable, CaseIterable {
  /// The source instance being migrated (``NSMigrationSourceObjectKey``).
  case source
  /// The destination instance being filled (``NSMigrationDestinationObjectKey``).
  case destination
  /// The ``NSMigrationManager`` (``NSMigrationManagerKey``).
  case manager
  /// The ``NSEntityMapping`` being run (``NSMigrationEntityMappingKey``).
  case entityMapping
  /// The ``NSPropertyMapping`` being evaluated (``NSMigrationPropertyMappingKey``).
  case propertyMapping
  /// The entity mapping's ``NSEntityMapping/migrationPolicy`` (``NSMigrationEntityPolicyKey``).
  case entityPolicy
}
