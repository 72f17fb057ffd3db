import Foundation

extension SlotValue {
  /// `value` as the Swift type `type` stores (widening or narrowing numbers when exact), or `nil` when it
  /// cannot be one.
  static func coerce(_ value: Any, to type: NSAttributeType) -> StoredValue {
    switch type {
    case .string: return (value as? String).map { .string($0) }
    case .integer16: return integer(value).flatMap { Int16(exactly: $0) }.map { .int16($0) }
    case .integer32: return integer(value).flatMap { Int32(exactly: $0) }.map { .int32($0) }
    case .integer64: return integer(value).map { .int64($0) }
    case .double:
      return ((value as? Double) ?? (value as? Float).map(Double.init) ?? integer(value).map(Double.init)).map { .double($0) }
    case .float:
      return ((value as? Float) ?? (value as? Double).map(Float.init) ?? integer(value).map(Float.init)).map { .float($0) }
    case .boolean: return (value as? Bool).map { .bool($0) }
    case .date: return (value as? Date).map { .date($0) }
    case .binaryData: return (value as? Data).map { .data($0) }
    case .uuid: return (value as? UUID).map { .boxed(.init($0)) }
    case .uri: return (value as? URL).map { .boxed(.init($0)) }
    case .decimal:
      let decimal = (value as? Decimal) ?? integer(value).map { Decimal($0) } ?? (value as? Double).map { Decimal($0) }
      return decimal.map { .boxed(.init($0)) }
    case .transformable, .composite, .objectID, .undefined:
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
