import Foundation

/// The type of an attribute, as Xcode's model editor names them.
///
/// ``NSManagedObject/value(forKey:)`` returns exactly one Swift type per case: `String`, `Int16`, `Int32`,
/// `Int64`, `Double`, `Float`, `Bool`, `Date`, `Data`, `UUID`, `URL`, `Decimal`.
///
/// A ``transformable`` attribute holds any value its ``AttributeValueTransformer`` turns into bytes
/// (`value(forKey:)` gives the value back); a predicate compares its stored bytes (`==`, `<`, `IN`…), as Core
/// Data does, and a sort cannot name it. The last three
/// cases (``composite``, ``objectID`` and ``undefined``) exist so that every Xcode model loads and can be
/// inspected; the engine does not store values of those types, and using such an attribute at run time
/// (saving a value, naming it in a predicate) is an ``ObjectGraphError/Code/unsupportedFeature`` error.
public enum NSAttributeType: Sendable, Hashable, CustomStringConvertible {
  case string, integer16, integer32, integer64, double, float, boolean, date, binaryData, uuid, uri, decimal
  /// A value kept through a value transformer (`NSValueTransformer`): described, not stored.
  case transformable
  /// A composite attribute (Xcode 15): described, not stored.
  case composite
  /// An attribute holding an object ID (Xcode's "Object ID" type): described, not stored.
  case objectID
  /// An attribute with no type (Xcode's "Undefined", for transient attributes): described, not stored.
  case undefined

  /// Whether the engine stores values of this type.
  public var isSupported: Bool {
    switch self {
    case .composite, .objectID, .undefined: false
    default: true
    }
  }

  /// Whether values of this type are integers.
  var isInteger: Bool {
    switch self {
    case .integer16, .integer32, .integer64: true
    default: false
    }
  }

  /// Whether values of this type are numbers (booleans count, as 0 and 1): what arithmetic, `@sum` and
  /// `@avg` accept.
  var isNumeric: Bool {
    switch self {
    case .integer16, .integer32, .integer64, .double, .float, .boolean, .decimal: true
    default: false
    }
  }

  /// The Swift type `value(forKey:)` returns for this attribute type.
  public var swiftTypeName: String {
    switch self {
    case .string: "String"
    case .integer16: "Int16"
    case .integer32: "Int32"
    case .integer64: "Int64"
    case .double: "Double"
    case .float: "Float"
    case .boolean: "Bool"
    case .date: "Date"
    case .binaryData: "Data"
    case .uuid: "UUID"
    case .uri: "URL"
    case .decimal: "Decimal"
    case .transformable, .composite, .objectID, .undefined: "(unsupported)"
    }
  }

  /// The name Xcode writes in a model file (`attributeType="Integer 64"`).
  public var xcodeName: String {
    switch self {
    case .string: "String"
    case .integer16: "Integer 16"
    case .integer32: "Integer 32"
    case .integer64: "Integer 64"
    case .double: "Double"
    case .float: "Float"
    case .boolean: "Boolean"
    case .date: "Date"
    case .binaryData: "Binary"
    case .uuid: "UUID"
    case .uri: "URI"
    case .decimal: "Decimal"
    case .transformable: "Transformable"
    case .composite: "Composite"
    case .objectID: "ObjectID"
    case .undefined: "Undefined"
    }
  }

  /// Reads Xcode's name for a type; `nil` for a name this engine does not know.
  public init?(xcodeName: String) {
    guard let match = Self.all.first(where: { $0.xcodeName == xcodeName }) else { return nil }
    self = match
  }

  /// Core Data's number for the type (`NSAttributeType`'s raw value: String 700, Integer 64 300, Date 900, …),
  /// as a compiled model and the entity version hashes hold it.
  public var coreDataNumber: Int {
    switch self {
    case .undefined: 0
    case .integer16: 100
    case .integer32: 200
    case .integer64: 300
    case .decimal: 400
    case .double: 500
    case .float: 600
    case .string: 700
    case .boolean: 800
    case .date: 900
    case .binaryData: 1000
    case .uuid: 1100
    case .uri: 1200
    case .transformable: 1800
    case .objectID: 2000
    case .composite: 2100
    }
  }

  /// Reads Core Data's number for a type (``coreDataNumber``); `nil` for a number Core Data does not use.
  public init?(coreDataNumber: Int) {
    guard let match = Self.all.first(where: { $0.coreDataNumber == coreDataNumber }) else { return nil }
    self = match
  }

  public var description: String { xcodeName }

  /// Every type, for the initialisers that read a type's name or number.
  private static let all: [NSAttributeType] = [
    .string, .integer16, .integer32, .integer64, .double, .float, .boolean, .date, .binaryData, .uuid, .uri,
    .decimal, .transformable, .composite, .objectID, .undefined,
  ]
}
