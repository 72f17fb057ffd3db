import Foundation

extension SlotValue {
  /// `value` as the Swift type `type` stores (widening or narrowing numbers when exact), or `nil` when it
  /// cannot be one.
  static func coerce(_ value: Any, to type: NSAttributeType) -> StoredValue {
    switch type {
    case .stringAttributeType: return (value as? String).map { .string($0) }
    case .integer16AttributeType: return integer(value).flatMap { Int16(exactly: $0) }.map { .int16($0) }
    case .integer32AttributeType: return integer(value).flatMap { Int32(exactly: $0) }.map { .int32($0) }
    case .integer64AttributeType: return integer(value).map { .int64($0) }
    case .doubleAttributeType:
      return ((value as? Double) ?? (value as? Float).map(Double.init) ?? integer(value).map(Double.init)).map { .double($0) }
    case .floatAttributeType:
      return ((value as? Float) ?? (value as? Double).map(Float.init) ?? integer(value).map(Float.init)).map { .float($0) }
    case .booleanAttributeType: return (value as? Bool).map { .bool($0) }
    case .dateAttributeType: return (value as? Date).map { .date($0) }
    case .binaryDataAttributeType: return (value as? Data).map { .data($0) }
    case .UUIDAttributeType: return (value as? UUID).map { .boxed(.init($0)) }
    case .URIAttributeType: return (value as? URL).map { .boxed(.init($0)) }
    case .decimalAttributeType:
      let decimal = (value as? Decimal) ?? integer(value).map { Decimal($0) } ?? (value as? Double).map { Decimal($0) }
      return decimal.map { .boxed(.init($0)) }
    case .transformableAttributeType, .compositeAttributeType, .objectIDAttributeType, .undefinedAttributeType:
      // Kept in memory; saving it is refused with a clear error (see validation).
      return .boxed(.init(UnsupportedValue(value: value)))
    }
  }

  private static func integer(_ value: Any) -> Int64? {
    switch value {
    case let v as Int64: v
    case let v as Int: Int64(v)
    case let v as Int32: Int64(v)
    case let v as Int16: Int64(v)
    case let v as Int8: Int64(v)
    case let v as UInt8: Int64(v)
    case let v as UInt16: Int64(v)
    case let v as UInt32: Int64(v)
    case let v as UInt: Int64(exactly: v)
    case let v as UInt64: Int64(exactly: v)
    default: nil
    }
  }
}
