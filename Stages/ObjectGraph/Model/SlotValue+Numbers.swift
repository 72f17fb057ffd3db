import Foundation

extension SlotValue {
  /// A number or Boolean as the `NSNumber` Core Data's key-value coding hands out (see ``boxedValue``);
  /// `nil` for any other value.
  ///
  /// Small integers come from ``SharedNumbers``, made once, as an iPhone's come out of tagged pointers:
  /// on Linux each new `NSNumber` is an allocation, and flags, counts and enumerations stored as
  /// integers are mostly small.
  var numberValue: NSNumber? {
    switch self {
    // The range is tested before the table is touched: most numbers outside it pay nothing for it.
    case .int64(let value): SharedNumbers.isShared(value) ? SharedNumbers.int64.number(value) : NSNumber(value: value)
    case .int32(let value):
      SharedNumbers.isShared(Int64(value)) ? SharedNumbers.int32.number(Int64(value)) : NSNumber(value: value)
    case .int16(let value):
      SharedNumbers.isShared(Int64(value)) ? SharedNumbers.int16.number(Int64(value)) : NSNumber(value: value)
    case .double(let value): NSNumber(value: value)
    case .float(let value): NSNumber(value: value)
    // Foundation's two Boolean numbers: no allocation.
    case .bool(let value): NSNumber(value: value)
    default: nil
    }
  }
}

/// The `NSNumber`s of the integers from ``lowest`` to ``highest`` for one integer type, made once and shared by every
/// read that hands one out.
///
/// Each integer type has its own table, so that a shared number is the one `NSNumber(value:)` makes for
/// the attribute's type (the same `objCType`).
final class SharedNumbers: Sendable {
  /// The integers kept: those from `lowest` to `highest`.
  static let lowest: Int64 = -128
  static let highest: Int64 = 1023

  static let int64 = SharedNumbers { NSNumber(value: $0) }
  static let int32 = SharedNumbers { NSNumber(value: Int32($0)) }
  static let int16 = SharedNumbers { NSNumber(value: Int16($0)) }

  private let numbers: [NSNumber]

  private init(_ make: (Int64) -> NSNumber) {
    numbers = (Self.lowest...Self.highest).map(make)
  }

  /// Whether `value` has a shared number.
  @inline(__always)
  static func isShared(_ value: Int64) -> Bool { value >= lowest && value <= highest }

  /// The shared number for `value`, which must have one (see ``isShared(_:)``).
  @inline(__always)
  func number(_ value: Int64) -> NSNumber {
    numbers[Int(truncatingIfNeeded: value &- Self.lowest)]
  }
}
