import Foundation
import ObjectGraph

/// Attribute values as `objectgraph inspect` prints them, each as its attribute type says: integers as
/// numbers, Booleans as `true`/`false`, floating-point numbers and decimals as numbers (`NaN` for a decimal
/// that is not one), strings quoted and escaped, dates in ISO 8601 (UTC), UUIDs in their usual form, URLs in
/// angle brackets, data as a byte count, no value as `nil`.
enum ValueText {
  /// The longest string shown whole; a longer one is cut, and says how long it was.
  static let longestString = 80

  /// The text of an attribute's value, as `value(forKey:)` returned it, read as the attribute's `type`
  /// says: `value(forKey:)` gives every number (Integer, Boolean, Double, Float) as an `NSNumber`, and an
  /// `NSNumber` holding 0 or 1 would pass for a Bool, so the value's own Swift type cannot tell.
  static func attribute(_ value: Any?, type: NSAttributeType) -> String {
    guard let value else { return "nil" }
    switch type {
    case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType:
      if let number = value as? NSNumber { return String(number.int64Value) }
    case .booleanAttributeType:
      if let bool = value as? Bool { return bool ? "true" : "false" }
      if let number = value as? NSNumber { return number.boolValue ? "true" : "false" }
    case .doubleAttributeType:
      if let number = value as? NSNumber { return "\(number.doubleValue)" }
    case .floatAttributeType:
      if let number = value as? NSNumber { return "\(number.floatValue)" }
    case .decimalAttributeType:
      if let decimal = value as? Decimal { return decimal.isNaN ? "NaN" : decimal.description }
    default:
      break
    }
    return other(value)
  }

  /// Any other value (a string, date, UUID, data, URL, or what a transformer gave), by its Swift type.
  private static func other(_ value: Any) -> String {
    switch value {
    case let string as String: return quoted(string)
    case let date as Date: return iso8601(date)
    case let uuid as UUID: return uuid.uuidString
    case let data as Data: return data.count == 1 ? "1 byte" : "\(data.count) bytes"
    case let url as URL: return "<\(url.absoluteString)>"
    default: return "\(value)"
    }
  }

  /// `"Theodora Stone"`: in quotes, with quotes, backslashes and control characters escaped as Swift
  /// writes them; past ``longestString`` characters, cut with `…` and the full length.
  static func quoted(_ string: String) -> String {
    var escaped = ""
    for scalar in string.prefix(longestString).unicodeScalars {
      switch scalar {
      case "\"": escaped += "\\\""
      case "\\": escaped += "\\\\"
      case "\n": escaped += "\\n"
      case "\r": escaped += "\\r"
      case "\t": escaped += "\\t"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        escaped += "\\u{\(String(scalar.value, radix: 16))}"
      default: escaped.unicodeScalars.append(scalar)
      }
    }
    let count = string.count
    return count > longestString ? "\"\(escaped)…\" (\(count) characters)" : "\"\(escaped)\""
  }

  /// `2021-04-07T15:52:49.638Z`: UTC, with milliseconds when the date has a fraction of a second.
  static func iso8601(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    let whole = date.timeIntervalSinceReferenceDate.rounded(.down) == date.timeIntervalSinceReferenceDate
    formatter.formatOptions = whole ? [.withInternetDateTime] : [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: date)
  }
}
