import Foundation

/// A value read from a binary property list (`bplist00`), the format of Apple's compiled models (`.mom`),
/// compiled mapping models (`.cdm`) and `VersionInfo.plist`.
///
/// `uid` is the keyed archiver's object reference (marker `0x8n`), which Foundation's own reader on Linux
/// does not hand back in a usable form; that is why ObjectGraph reads the format itself.
enum PropertyListValue: Sendable, Equatable {
  case null
  case bool(Bool)
  /// An integer; unsigned 64-bit values above `Int64.max` (16-byte integers) are refused.
  case integer(Int64)
  case real(Double)
  case date(Date)
  case data(Data)
  case string(String)
  /// A keyed archive's reference to an object of `$objects`, by index.
  case uid(UInt64)
  case array([PropertyListValue])
  case set([PropertyListValue])
  /// A dictionary; binary property lists allow other keys, but the files ObjectGraph reads have string keys.
  case dictionary([String: PropertyListValue])

  /// The string, or `nil` when the value is not a string.
  var string: String? {
    if case .string(let text) = self { return text }
    return nil
  }

  /// The dictionary, or `nil` when the value is not a dictionary.
  var dictionary: [String: PropertyListValue]? {
    if case .dictionary(let entries) = self { return entries }
    return nil
  }

  /// The elements of an array or set, or `nil`.
  var elements: [PropertyListValue]? {
    switch self {
    case .array(let values), .set(let values): values
    default: nil
    }
  }

  /// The integer (a Boolean as 0 or 1), or `nil`.
  var integer: Int64? {
    switch self {
    case .integer(let value): value
    case .bool(let flag): flag ? 1 : 0
    default: nil
    }
  }

  /// The Boolean (a non-zero integer is true), or `nil`.
  var bool: Bool? {
    switch self {
    case .bool(let flag): flag
    case .integer(let value): value != 0
    default: nil
    }
  }
}
