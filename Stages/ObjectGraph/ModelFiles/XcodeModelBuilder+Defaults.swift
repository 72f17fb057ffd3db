import Foundation

/// Reading an attribute's default value from the text Xcode wrote (`defaultValueString`, or
/// `defaultDateTimeInterval` for a Date), the way Core Data ends up with it: Foundation's string conversions
/// (`NSString`'s `intValue`, `longLongValue`, `doubleValue`, `floatValue`, `boolValue`) take what they can read and
/// ignore the rest, so text that is not in the type's canonical form still gives a value. Each rule and its source is
/// written down in `Docs/ObjectGraph.md`, "Reading Xcode models".
extension XcodeModelLoader {
  /// What the text of one default value was read as.
  enum DefaultReading {
    /// The text is in the type's canonical form (`12`, `0.5`, `YES`, a UUID, a URL): read as written.
    case exact(any Sendable)
    /// The text is not canonical, but Foundation's conversion reads a value from it; `rule` says how.
    case lenient(any Sendable, rule: String)
    /// The text gives no value of the type: the attribute has no default (`nil`); `rule` says why.
    case none(rule: String)
    /// The text is a number outside the type's range: the model is refused, naming `expected`.
    case outOfRange(expected: String)
  }

  /// Reads a default value's text for an attribute of `type`. The text is never empty here; the caller has removed
  /// the spaces around it (for every type but String, where they belong to the value).
  static func readDefault(_ text: String, type: NSAttributeType) -> DefaultReading {
    switch type {
    case .stringAttributeType:
      return .exact(text)
    case .integer16AttributeType:
      return readInteger(text, as: Int16.self, conversion: "intValue")
    case .integer32AttributeType:
      return readInteger(text, as: Int32.self, conversion: "intValue")
    case .integer64AttributeType:
      return readInteger(text, as: Int64.self, conversion: "longLongValue")
    case .doubleAttributeType:
      return readFloatingPoint(text, as: Double.self, conversion: "doubleValue")
    case .floatAttributeType:
      return readFloatingPoint(text, as: Float.self, conversion: "floatValue")
    case .decimalAttributeType:
      return readDecimal(text)
    case .booleanAttributeType:
      return readBoolean(text)
    case .dateAttributeType:
      return readDate(text)
    case .UUIDAttributeType:
      if let uuid = UUID(uuidString: text) { return .exact(uuid) }
      return .none(
        rule: "it is not a UUID (such as E621E1F8-C36C-495A-93FC-0C247A3E6E5F), so the attribute has no default, "
          + "as in Core Data")
    case .URIAttributeType:
      if let url = URL(string: text, encodingInvalidCharacters: false) { return .exact(url) }
      return .none(rule: "it is not a valid URL (NSURL(string:) gives nil), so the attribute has no default")
    case .binaryDataAttributeType:
      return .none(rule: "Binary Data attributes have no default value in Xcode; the text is ignored")
    case .compositeAttributeType:
      return .none(rule: "a composite's default is its elements' defaults, so the text is ignored")
    case .transformableAttributeType, .objectIDAttributeType, .undefinedAttributeType:
      return .none(rule: "the engine does not store \(type.xcodeName) values, so the default is not kept")
    }
  }

  // MARK: - By type

  /// `Integer 16/32/64`: `12` as written; otherwise NSString's `intValue`/`longLongValue`: the leading whole number
  /// (`1.0` → 1, `1e3` → 1, `7 apples` → 7), or 0 when the text does not start with one (`YES` → 0).
  private static func readInteger<T: FixedWidthInteger & Sendable>(
    _ text: String, as: T.Type, conversion: String
  ) -> DefaultReading {
    let expected = "a whole number from \(T.min) to \(T.max)"
    if text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "-" || $0 == "+") }), let value = T(text) {
      return .exact(value)
    }
    guard let digits = leadingInteger(text) else {
      return .lenient(T.zero, rule: "it does not start with a number, and NSString.\(conversion) reads such text as 0")
    }
    guard let value = T(digits) else { return .outOfRange(expected: expected) }
    return .lenient(
      value, rule: "only its leading whole number is read, as NSString.\(conversion) does (the rest is ignored)")
  }

  /// `Double`/`Float`: a decimal number as written; otherwise NSString's `doubleValue`/`floatValue`: the leading
  /// number (`2.5 kg` → 2.5), or 0 when the text does not start with one.
  private static func readFloatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible & Sendable>(
    _ text: String, as: T.Type, conversion: String
  ) -> DefaultReading {
    if isDecimalNumber(text), let value = T(text) { return .exact(value) }
    guard let number = leadingNumber(text), let value = T(number) else {
      return .lenient(T.zero, rule: "it does not start with a number, and NSString.\(conversion) reads such text as 0")
    }
    return .lenient(value, rule: "only its leading number is read, as NSString.\(conversion) does (the rest is ignored)")
  }

  /// `Decimal`: a decimal number as written; otherwise its leading number; no default when it has none
  /// (`NSDecimalNumber(string:)` gives NaN, which no store holds).
  private static func readDecimal(_ text: String) -> DefaultReading {
    let posix = Locale(identifier: "en_US_POSIX")
    if isDecimalNumber(text), let value = Decimal(string: text, locale: posix) { return .exact(value) }
    guard let number = leadingNumber(text), let value = Decimal(string: number, locale: posix) else {
      return .none(
        rule: "it does not start with a number (NSDecimalNumber(string:) gives NaN), so the attribute has no default")
    }
    return .lenient(value, rule: "only its leading number is read, as NSDecimalNumber(string:) does")
  }

  /// `Boolean`: `YES`/`NO` as Xcode writes them; otherwise NSString's `boolValue`.
  private static func readBoolean(_ text: String) -> DefaultReading {
    switch text {
    case "YES": return .exact(true)
    case "NO": return .exact(false)
    default:
      return .lenient(
        boolValue(text),
        rule: "read as NSString.boolValue reads it: true when it starts with Y, y, T, t or a non-zero digit (after "
          + "spaces, a sign and zeros), false otherwise")
    }
  }

  /// `Date`: seconds since 2001-01-01 00:00:00 UTC, as `defaultDateTimeInterval` holds them; otherwise the leading
  /// number of seconds, as NSString's `doubleValue` reads it; no default when there is none.
  private static func readDate(_ text: String) -> DefaultReading {
    if isDecimalNumber(text), let seconds = Double(text) { return .exact(Date(timeIntervalSinceReferenceDate: seconds)) }
    guard let number = leadingNumber(text), let seconds = Double(number) else {
      return .none(
        rule: "it does not start with a number of seconds since 2001-01-01 00:00:00 UTC, so the attribute has no "
          + "default")
    }
    return .lenient(
      Date(timeIntervalSinceReferenceDate: seconds),
      rule: "only its leading number of seconds since 2001-01-01 00:00:00 UTC is read, as NSString.doubleValue does")
  }

  // MARK: - Foundation's conversions, written out

  /// Whether `text` is a plain decimal number (`-12`, `0.5`, `1e3`), not `nan`, `inf` or hexadecimal.
  static func isDecimalNumber(_ text: String) -> Bool {
    !text.isEmpty && text.allSatisfy { "0123456789+-.eE".contains($0) } && text.contains(where: \.isNumber)
      && Double(text) != nil
  }

  /// The leading whole number as `NSString.intValue` scans it (CoreFoundation's `__CFStringScanInteger`): spaces,
  /// an optional sign, spaces, then the digits up to the first non-digit. `nil` when there is no digit. The result
  /// is the sign and the digits (`"-0012"`), to be converted by the caller, which checks the range.
  static func leadingInteger(_ text: String) -> String? {
    var rest = Substring(text).drop(while: \.isWhitespace)
    var sign = ""
    if let first = rest.first, first == "-" || first == "+" {
      sign = first == "-" ? "-" : ""
      rest = rest.dropFirst().drop(while: \.isWhitespace)
    }
    let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
    return digits.isEmpty ? nil : sign + digits
  }

  /// The leading number as `NSString.doubleValue` scans it (CoreFoundation's `__CFStringScanDouble`, which hands
  /// strtod the run of `0-9 + - . e E` after the spaces): an optional sign, digits with an optional decimal point
  /// (at least one digit), and an exponent only when digits follow the `e`. `nil` when there is no such number
  /// (`inf`, `nan` and hexadecimal are not read).
  static func leadingNumber(_ text: String) -> String? {
    var rest = Substring(text).drop(while: \.isWhitespace)
    var sign = ""
    if let first = rest.first, first == "-" || first == "+" {
      sign = first == "-" ? "-" : ""
      rest = rest.dropFirst()
    }
    let isDigit: (Character) -> Bool = { $0.isASCII && $0.isNumber }
    let whole = rest.prefix(while: isDigit)
    rest = rest.dropFirst(whole.count)
    var fraction: Substring = ""
    if rest.first == "." {
      fraction = rest.dropFirst().prefix(while: isDigit)
      rest = rest.dropFirst(1 + fraction.count)
    }
    guard !whole.isEmpty || !fraction.isEmpty else { return nil }
    var exponent = ""
    if let marker = rest.first, marker == "e" || marker == "E" {
      var afterMarker = rest.dropFirst()
      var exponentSign = ""
      if let first = afterMarker.first, first == "-" || first == "+" {
        exponentSign = String(first)
        afterMarker = afterMarker.dropFirst()
      }
      let exponentDigits = afterMarker.prefix(while: isDigit)
      if !exponentDigits.isEmpty { exponent = "e" + exponentSign + exponentDigits }
    }
    // Written with a digit on both sides of the point, which Swift's parsers want; the value is the same.
    return sign + (whole.isEmpty ? "0" : whole) + "." + (fraction.isEmpty ? "0" : fraction) + exponent
  }

  /// `NSString.boolValue`, as Apple documents it: after leading spaces, true for `Y`, `y`, `T` or `t`; otherwise an
  /// optional sign and any zeros are skipped, and the value is true when a digit 1-9 comes next. The rest is ignored.
  static func boolValue(_ text: String) -> Bool {
    var rest = Substring(text).drop(while: \.isWhitespace)
    guard let first = rest.first else { return false }
    if "YyTt".contains(first) { return true }
    if first == "-" || first == "+" { rest = rest.dropFirst() }
    rest = rest.drop(while: { $0 == "0" })
    guard let next = rest.first else { return false }
    return "123456789".contains(next)
  }
}
