import Foundation
import GRDB

/// How attribute values are written to and read from SQLite columns, as Core Data stores them: dates as
/// seconds since 2001-01-01 (`timeIntervalSinceReferenceDate`), booleans as 0/1, UUIDs as 16 bytes, URLs as
/// their absolute string, decimals as their exact decimal text.
enum SQLiteValueCoding {
  static func encode(_ value: StoredValue, as type: AttributeType) -> DatabaseValue {
    guard let value else { return .null }
    // One cast, chosen by the attribute's type (values were type-checked when they were set).
    switch type {
    case .string: if let string = value as? String { return string.databaseValue }
    case .integer64: if let int = value as? Int64 { return int.databaseValue }
    case .double: if let double = value as? Double { return double.databaseValue }
    case .date: if let date = value as? Date { return date.timeIntervalSinceReferenceDate.databaseValue }
    case .boolean: if let bool = value as? Bool { return (bool ? 1 : 0 as Int64).databaseValue }
    case .integer32: if let int = value as? Int32 { return Int64(int).databaseValue }
    case .integer16: if let int = value as? Int16 { return Int64(int).databaseValue }
    case .float: if let float = value as? Float { return Double(float).databaseValue }
    case .binaryData: if let data = value as? Data { return data.databaseValue }
    case .uuid: if let uuid = value as? UUID { return withUnsafeBytes(of: uuid.uuid) { Data($0) }.databaseValue }
    case .uri: if let url = value as? URL { return url.absoluteString.databaseValue }
    case .decimal: if let decimal = value as? Decimal { return decimal.description.databaseValue }
    case .transformable, .composite, .objectID, .undefined: return .null
    }
    return .null
  }

  static func decode(_ value: DatabaseValue, as type: AttributeType) -> StoredValue {
    switch value.storage {
    case .null:
      return nil
    case .int64(let int):
      switch type {
      case .integer64: return int
      case .integer32: return Int32(truncatingIfNeeded: int)
      case .integer16: return Int16(truncatingIfNeeded: int)
      case .boolean: return int != 0
      case .double: return Double(int)
      case .float: return Float(int)
      case .date: return Date(timeIntervalSinceReferenceDate: Double(int))
      case .decimal: return Decimal(int)
      case .string: return String(int)
      default: return nil
      }
    case .double(let double):
      switch type {
      case .double: return double
      case .float: return Float(double)
      case .date: return Date(timeIntervalSinceReferenceDate: double)
      case .integer64: return Int64(double)
      case .integer32: return Int32(double)
      case .integer16: return Int16(double)
      case .boolean: return double != 0
      case .decimal: return Decimal(double)
      default: return nil
      }
    case .string(let string):
      switch type {
      case .string: return string
      case .uri: return URL(string: string)
      case .decimal: return Decimal(string: string, locale: Locale(identifier: "en_US_POSIX"))
      case .integer64: return Int64(string)
      case .double: return Double(string)
      default: return string
      }
    case .blob(let data):
      switch type {
      case .uuid:
        guard data.count == 16 else { return nil }
        let bytes = [UInt8](data)
        return UUID(
          uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
            bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
          ))
      case .string: return String(decoding: data, as: UTF8.self)
      default: return data
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
    case .decimal(let decimal): decimal.description.databaseValue
    case .objectID(let id): (id.primaryKey ?? -1).databaseValue
    case .collection: .null
    }
  }
}
