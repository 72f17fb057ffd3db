import Foundation
internal import GRDB

/// How attribute values are written to and read from SQLite columns, as Core Data stores them: dates as
/// seconds since 2001-01-01 (`timeIntervalSinceReferenceDate`), booleans as 0/1, UUIDs as 16 bytes, URLs as
/// their absolute string, decimals as their exact decimal text (a decimal that is not a number as the text
/// `NaN`, as Core Data writes `NSDecimalNumber.notANumber`).
enum SQLiteValueCoding {
  /// The text Core Data stores for a decimal that is not a number (`NSDecimalNumber.notANumber`).
  static let decimalNaN = "NaN"

  /// A decimal as Core Data stores it: its exact decimal text, or ``decimalNaN``.
  static func text(of decimal: Decimal) -> String {
    decimal.isNaN ? decimalNaN : decimal.description
  }

  /// A decimal from the text of a store's column: ``decimalNaN`` is `Decimal.nan` (Core Data reads it as
  /// `NSDecimalNumber.notANumber`); any other text is read as a decimal number, or `nil` when it is none.
  static func decimal(fromText text: String) -> Decimal? {
    if text == decimalNaN { return Decimal.nan }
    return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
  }

  static func encode(_ value: StoredValue, as type: NSAttributeType) -> DatabaseValue {
    guard let value else { return .null }
    // Values were type-checked when they were set: each case holds the attribute type's Swift type.
    switch (type, value) {
    case (.stringAttributeType, .string(let string)): return string.databaseValue
    case (.integer64AttributeType, .int64(let int)): return int.databaseValue
    case (.doubleAttributeType, .double(let double)): return double.databaseValue
    case (.dateAttributeType, .date(let date)): return date.timeIntervalSinceReferenceDate.databaseValue
    case (.booleanAttributeType, .bool(let bool)): return (bool ? 1 : 0 as Int64).databaseValue
    case (.integer32AttributeType, .int32(let int)): return Int64(int).databaseValue
    case (.integer16AttributeType, .int16(let int)): return Int64(int).databaseValue
    case (.floatAttributeType, .float(let float)): return Double(float).databaseValue
    case (.binaryDataAttributeType, .data(let data)), (.transformableAttributeType, .data(let data)): return data.databaseValue
    case (.UUIDAttributeType, _):
      if let uuid = value.boxed(as: UUID.self) { return withUnsafeBytes(of: uuid.uuid) { Data($0) }.databaseValue }
    case (.URIAttributeType, _):
      if let url = value.boxed(as: URL.self) { return url.absoluteString.databaseValue }
    case (.decimalAttributeType, _):
      if let decimal = value.boxed(as: Decimal.self) { return text(of: decimal).databaseValue }
    default:
      break
    }
    return .null
  }

  static func decode(_ value: DatabaseValue, as type: NSAttributeType) -> StoredValue {
    switch value.storage {
    case .null:
      return nil
    case .int64(let int):
      switch type {
      case .integer64AttributeType: return .int64(int)
      case .integer32AttributeType: return .int32(Int32(truncatingIfNeeded: int))
      case .integer16AttributeType: return .int16(Int16(truncatingIfNeeded: int))
      case .booleanAttributeType: return .bool(int != 0)
      case .doubleAttributeType: return .double(Double(int))
      case .floatAttributeType: return .float(Float(int))
      case .dateAttributeType: return .date(Date(timeIntervalSinceReferenceDate: Double(int)))
      case .decimalAttributeType: return .boxed(.init(Decimal(int)))
      case .stringAttributeType: return .string(String(int))
      default: return nil
      }
    case .double(let double):
      switch type {
      case .doubleAttributeType: return .double(double)
      case .floatAttributeType: return .float(Float(double))
      case .dateAttributeType: return .date(Date(timeIntervalSinceReferenceDate: double))
      // `exactly:` after truncation: a double too large for the type (or NaN, from a foreign store or an
      // average) reads as nil instead of stopping the program.
      case .integer64AttributeType: return Int64(exactly: double.rounded(.towardZero)).map { .int64($0) }
      case .integer32AttributeType: return Int32(exactly: double.rounded(.towardZero)).map { .int32($0) }
      case .integer16AttributeType: return Int16(exactly: double.rounded(.towardZero)).map { .int16($0) }
      case .booleanAttributeType: return .bool(double != 0)
      case .decimalAttributeType: return .boxed(.init(Decimal(double)))
      default: return nil
      }
    case .string(let string):
      switch type {
      case .stringAttributeType: return .string(string)
      case .URIAttributeType: return URL(string: string).map { .boxed(.init($0)) }
      case .decimalAttributeType: return decimal(fromText: string).map { .boxed(.init($0)) }
      case .integer64AttributeType: return Int64(string).map { .int64($0) }
      case .doubleAttributeType: return Double(string).map { .double($0) }
      default: return .string(string)
      }
    case .blob(let data):
      switch type {
      case .UUIDAttributeType:
        guard data.count == 16 else { return nil }
        let bytes = [UInt8](data)
        return .boxed(
          .init(
            UUID(
              uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
              ))))
      case .stringAttributeType: return .string(String(decoding: data, as: UTF8.self))
      default: return .data(data)
      }
    }
  }

  /// The SQL value a predicate constant compares as.
  static func encode(predicateValue: PredicateValue) -> DatabaseValue {
    switch predicateValue {
    case .null: .null
    case .string(let string): string.databaseValue
    case .integer(let int): int.databaseValue
    case .double(let double): double.databaseValue
    case .bool(let bool): (bool ? 1 : 0 as Int64).databaseValue
    case .date(let date): date.timeIntervalSinceReferenceDate.databaseValue
    case .data(let data): data.databaseValue
    case .uuid(let uuid): withUnsafeBytes(of: uuid.uuid) { Data($0) }.databaseValue
    case .url(let url): url.absoluteString.databaseValue
    case .decimal(let decimal): text(of: decimal).databaseValue
    case .objectID(let id): (id.primaryKey ?? -1).databaseValue
    // An entity is compared through Z_ENT by the predicate compiler, never bound as a value.
    case .collection, .entity: .null
    }
  }
}
