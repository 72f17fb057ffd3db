import Foundation

/// The type of an attribute, with Core Data's raw values: `UInt`s that a
/// compiled model and the entity version hashes hold (String 700, Integer 64 300, Date 900, …).
///
/// ```swift
/// let title = NSAttributeDescription()
/// title.name = "title"
/// title.attributeType = .stringAttributeType       // or, the newer form: title.type = .string
/// ```
///
/// ``NSManagedObject/value(forKey:)`` returns exactly one Swift type per case: `String`, `Int16`, `Int32`,
/// `Int64`, `Double`, `Float`, `Bool`, `Date`, `Data`, `UUID`, `URL`, `Decimal`.
///
/// A ``transformableAttributeType`` attribute holds any value its ``AttributeValueTransformer`` turns into
/// bytes (`value(forKey:)` gives the value back); a predicate compares its stored bytes (`==`, `<`, `IN`…), as
/// Core Data does, and a sort cannot name it. A ``compositeAttributeType`` attribute is an
/// ``NSCompositeAttributeDescription``: its value is a `[String: Any]` of its elements' values. The last two
/// cases (``objectIDAttributeType`` and ``undefinedAttributeType``) exist so that every Xcode model loads and
/// can be inspected; the engine does not store values of those types, and using such an attribute at run time
/// (saving a value, naming it in a predicate) is an ``ObjectGraphUnsupportedFeatureError`` error.
///
/// Printed (`description`), a type is the name Xcode's model editor shows (`Integer 64`), which is what the
/// engine's messages say.
public enum NSAttributeType: UInt, Sendable, Hashable, CustomStringConvertible {
  /// No type (Xcode's "Undefined", for transient attributes): described, not stored.
  case undefinedAttributeType = 0
  /// A 16-bit integer (`Int16`).
  case integer16AttributeType = 100
  /// A 32-bit integer (`Int32`).
  case integer32AttributeType = 200
  /// A 64-bit integer (`Int64`).
  case integer64AttributeType = 300
  /// A decimal number (`Decimal`).
  case decimalAttributeType = 400
  /// A double-precision number (`Double`).
  case doubleAttributeType = 500
  /// A single-precision number (`Float`).
  case floatAttributeType = 600
  /// A string (`String`).
  case stringAttributeType = 700
  /// A Boolean (`Bool`).
  case booleanAttributeType = 800
  /// A date (`Date`).
  case dateAttributeType = 900
  /// Bytes (`Data`; Xcode's "Binary Data").
  case binaryDataAttributeType = 1000
  /// A UUID (`UUID`).
  case UUIDAttributeType = 1100
  /// A URL (`URL`; Xcode's "URI").
  case URIAttributeType = 1200
  /// A value kept through a value transformer (`NSValueTransformer`).
  case transformableAttributeType = 1800
  /// An attribute holding an object ID (Xcode's "Object ID" type): described, not stored.
  case objectIDAttributeType = 2000
  /// A composite attribute (Xcode 15, ``NSCompositeAttributeDescription``): a dictionary of its elements' values.
  case compositeAttributeType = 2100

  /// The name Xcode's model editor shows (`Integer 64`): what the engine's messages print.
  public var description: String { xcodeName }

  // The rest is the engine's own: what it stores, reads and writes for each type.

  /// Whether the engine stores values of this type (a composite's elements are stored, each in a column of its
  /// own, when it is an ``NSCompositeAttributeDescription``: see ``NSAttributeDescription/unsupportedReason``).
  var isSupported: Bool {
    switch self {
    case .compositeAttributeType, .objectIDAttributeType, .undefinedAttributeType: false
    default: true
    }
  }

  /// Whether values of this type are integers.
  var isInteger: Bool {
    switch self {
    case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType: true
    default: false
    }
  }

  /// Whether values of this type are numbers (booleans count, as 0 and 1): what arithmetic, `@sum` and
  /// `@avg` accept.
  var isNumeric: Bool {
    switch self {
    case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .doubleAttributeType,
      .floatAttributeType, .booleanAttributeType, .decimalAttributeType:
      true
    default: false
    }
  }

  /// The Swift type `value(forKey:)` returns for this attribute type, for messages.
  var swiftTypeName: String {
    switch self {
    case .stringAttributeType: "String"
    case .integer16AttributeType: "Int16"
    case .integer32AttributeType: "Int32"
    case .integer64AttributeType: "Int64"
    case .doubleAttributeType: "Double"
    case .floatAttributeType: "Float"
    case .booleanAttributeType: "Bool"
    case .dateAttributeType: "Date"
    case .binaryDataAttributeType: "Data"
    case .UUIDAttributeType: "UUID"
    case .URIAttributeType: "URL"
    case .decimalAttributeType: "Decimal"
    case .transformableAttributeType, .compositeAttributeType, .objectIDAttributeType, .undefinedAttributeType:
      "(unsupported)"
    }
  }

  /// The name Xcode writes in a model file (`attributeType="Integer 64"`).
  var xcodeName: String {
    switch self {
    case .stringAttributeType: "String"
    case .integer16AttributeType: "Integer 16"
    case .integer32AttributeType: "Integer 32"
    case .integer64AttributeType: "Integer 64"
    case .doubleAttributeType: "Double"
    case .floatAttributeType: "Float"
    case .booleanAttributeType: "Boolean"
    case .dateAttributeType: "Date"
    case .binaryDataAttributeType: "Binary"
    case .UUIDAttributeType: "UUID"
    case .URIAttributeType: "URI"
    case .decimalAttributeType: "Decimal"
    case .transformableAttributeType: "Transformable"
    case .compositeAttributeType: "Composite"
    case .objectIDAttributeType: "ObjectID"
    case .undefinedAttributeType: "Undefined"
    }
  }

  /// Reads Xcode's name for a type; `nil` for a name this engine does not know.
  init?(xcodeName: String) {
    guard let match = Self.all.first(where: { $0.xcodeName == xcodeName }) else { return nil }
    self = match
  }

  /// Every type, in Xcode's order, for reading a type's name.
  static let all: [NSAttributeType] = [
    .stringAttributeType, .integer16AttributeType, .integer32AttributeType, .integer64AttributeType,
    .doubleAttributeType, .floatAttributeType, .booleanAttributeType, .dateAttributeType, .binaryDataAttributeType,
    .UUIDAttributeType, .URIAttributeType, .decimalAttributeType, .transformableAttributeType,
    .compositeAttributeType, .objectIDAttributeType, .undefinedAttributeType,
  ]
}

extension NSAttributeDescription {
  /// The type of an attribute in Swift's newer spelling (Core Data's `NSAttributeDescription.AttributeType`): a
  /// wrapper around ``NSAttributeType`` with one static member per type.
  ///
  /// ```swift
  /// attribute.type = .string                     // the same as attribute.attributeType = .stringAttributeType
  /// attribute.type.rawValue == .stringAttributeType
  /// ```
  public struct AttributeType: RawRepresentable, Sendable, Hashable {
    /// The type as ``NSAttributeType`` names it.
    public var rawValue: NSAttributeType

    /// Wraps an ``NSAttributeType``.
    public init(rawValue: NSAttributeType) {
      self.rawValue = rawValue
    }

    /// ``NSAttributeType/undefinedAttributeType``.
    public static let undefined = AttributeType(rawValue: .undefinedAttributeType)
    /// ``NSAttributeType/integer16AttributeType``.
    public static let integer16 = AttributeType(rawValue: .integer16AttributeType)
    /// ``NSAttributeType/integer32AttributeType``.
    public static let integer32 = AttributeType(rawValue: .integer32AttributeType)
    /// ``NSAttributeType/integer64AttributeType``.
    public static let integer64 = AttributeType(rawValue: .integer64AttributeType)
    /// ``NSAttributeType/decimalAttributeType``.
    public static let decimal = AttributeType(rawValue: .decimalAttributeType)
    /// ``NSAttributeType/doubleAttributeType``.
    public static let double = AttributeType(rawValue: .doubleAttributeType)
    /// ``NSAttributeType/floatAttributeType``.
    public static let float = AttributeType(rawValue: .floatAttributeType)
    /// ``NSAttributeType/stringAttributeType``.
    public static let string = AttributeType(rawValue: .stringAttributeType)
    /// ``NSAttributeType/booleanAttributeType``.
    public static let boolean = AttributeType(rawValue: .booleanAttributeType)
    /// ``NSAttributeType/dateAttributeType``.
    public static let date = AttributeType(rawValue: .dateAttributeType)
    /// ``NSAttributeType/binaryDataAttributeType``.
    public static let binaryData = AttributeType(rawValue: .binaryDataAttributeType)
    /// ``NSAttributeType/UUIDAttributeType``.
    public static let uuid = AttributeType(rawValue: .UUIDAttributeType)
    /// ``NSAttributeType/URIAttributeType``.
    public static let uri = AttributeType(rawValue: .URIAttributeType)
    /// ``NSAttributeType/transformableAttributeType``.
    public static let transformable = AttributeType(rawValue: .transformableAttributeType)
    /// ``NSAttributeType/objectIDAttributeType``.
    public static let objectID = AttributeType(rawValue: .objectIDAttributeType)
    /// ``NSAttributeType/compositeAttributeType``.
    public static let composite = AttributeType(rawValue: .compositeAttributeType)
  }
}
