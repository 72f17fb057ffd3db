import Foundation

/// Number types a `@ObjectGraphManaged` property may declare whatever the attribute's own number type, converted
/// exactly (a value that does not fit stops with the usual message).
public protocol ManagedNumber {
  /// The number `value` holds, converted exactly, or `nil`.
  init?(managedNumber value: Any)
}

extension ManagedNumber where Self: BinaryInteger {
  /// Converts any integer (or a Bool, as 0 or 1) exactly.
  public init?(managedNumber value: Any) {
    switch value {
    case let number as any BinaryInteger: self.init(exactly: number)
    case let flag as Bool: self = flag ? 1 : 0
    default: return nil
    }
  }
}

extension ManagedNumber where Self: BinaryFloatingPoint {
  /// Converts any floating-point number or integer.
  public init?(managedNumber value: Any) {
    switch value {
    case let number as Double: self.init(number)
    case let number as Float: self.init(number)
    case let number as any BinaryInteger: self.init(number)
    default: return nil
    }
  }
}

extension Int: ManagedNumber {}
extension Int8: ManagedNumber {}
extension Int16: ManagedNumber {}
extension Int32: ManagedNumber {}
extension Int64: ManagedNumber {}
extension UInt: ManagedNumber {}
extension UInt8: ManagedNumber {}
extension UInt16: ManagedNumber {}
extension UInt32: ManagedNumber {}
extension UInt64: ManagedNumber {}
extension Double: ManagedNumber {}
extension Float: ManagedNumber {}

extension Optional: ManagedNumber where Wrapped: ManagedNumber {
  /// Converts to the wrapped number type.
  public init?(managedNumber value: Any) {
    guard let number = Wrapped(managedNumber: value) else { return nil }
    self = .some(number)
  }
}
