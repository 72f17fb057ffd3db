import Foundation
internal import GRDB
internal import GRDBSQLite

/// A GRDB statement driven straight through SQLite's C interface, for the loops that touch every row of a
/// big save or fetch.
///
/// GRDB's own `execute(arguments:)` and `Row` are convenient but go through an array of boxed values per
/// statement and a `Row` per result; at 100,000 rows that overhead is larger than SQLite's own work. Here
/// each value is bound or read with one C call. GRDB still prepares, caches and finalizes the statement,
/// and owns the connection and its transactions.
///
/// Only use it on the connection's own queue, inside a GRDB `read` or `write` block, like the
/// `Database` it came from.
struct RawStatement {
  let handle: OpaquePointer

  init(_ statement: Statement) {
    handle = statement.sqliteStatement
  }

  /// The statement's SQL, for error messages only: read from SQLite when asked, since GRDB's
  /// `Statement.sql` trims the whole text through `NSString` on every call, and a multi-row insert's
  /// text is long (it cost a tenth of a 100,000-note import when read for every statement).
  var sql: String { sqlite3_sql(handle).map { String(cString: $0) } ?? "" }

  /// SQLite's `SQLITE_TRANSIENT`: SQLite copies the bytes before the bind call returns.
  private static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

  // MARK: - Writing

  /// Makes the statement ready to run again; bindings are kept until replaced.
  func reset() throws {
    let code = sqlite3_reset(handle)
    guard code == SQLITE_OK else { throw error(code) }
  }

  func bind(_ value: DatabaseValue, at index: Int32) throws {
    let code: Int32
    switch value.storage {
    case .null:
      code = sqlite3_bind_null(handle, index)
    case .int64(let int):
      code = sqlite3_bind_int64(handle, index, int)
    case .double(let double):
      code = sqlite3_bind_double(handle, index, double)
    case .string(var string):
      code = string.withUTF8 { bytes in
        // An empty buffer may have no address, and a NULL pointer would bind NULL, not "".
        sqlite3_bind_text64(
          handle, index, bytes.baseAddress.map(UnsafeRawPointer.init) ?? Self.empty, UInt64(bytes.count), Self.transient, UInt8(SQLITE_UTF8)
        )
      }
    case .blob(let data):
      code = data.withUnsafeBytes { bytes in
        if let base = bytes.baseAddress {
          sqlite3_bind_blob64(handle, index, base, UInt64(bytes.count), Self.transient)
        } else {
          sqlite3_bind_zeroblob(handle, index, 0)
        }
      }
    }
    guard code == SQLITE_OK else { throw error(code) }
  }

  /// Resets the statement and binds `values` to its parameters, in order, as GRDB's `setArguments` does,
  /// without making `StatementArguments` (its initializers are generic code GRDB does not specialise; one
  /// makes a key path at every call, which cost a small fetch a tenth of its time).
  /// - Throws: a `DatabaseError` when the statement has another number of parameters.
  func bindAll(_ values: [DatabaseValue]) throws {
    try reset()
    sqlite3_clear_bindings(handle)
    let expected = Int(sqlite3_bind_parameter_count(handle))
    guard expected == values.count else {
      throw DatabaseError(
        resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments: \(values.count), expected \(expected)", sql: sql)
    }
    for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1)) }
  }

  func bind(_ int: Int64, at index: Int32) throws {
    let code = sqlite3_bind_int64(handle, index, int)
    guard code == SQLITE_OK else { throw error(code) }
  }

  func bindNull(at index: Int32) throws {
    let code = sqlite3_bind_null(handle, index)
    guard code == SQLITE_OK else { throw error(code) }
  }

  /// Runs a statement that returns no rows (INSERT, UPDATE, DELETE).
  ///
  /// After a failed step the statement is reset before the error is thrown: it stays in GRDB's cache,
  /// and `sqlite3_reset` reports the last step's error, so the next save would otherwise fail again at
  /// its first `reset()` with this stale error.
  func run() throws {
    let code = sqlite3_step(handle)
    guard code == SQLITE_DONE else {
      let failure = error(code)
      sqlite3_reset(handle)
      throw failure
    }
  }

  // MARK: - Reading

  /// Resets the statement after its last row, ignoring errors (the step that failed already reported
  /// them), so a cached statement holds no lock while it waits for its next use.
  func finish() { sqlite3_reset(handle) }

  /// Moves to the next result row: `true` when there is one, `false` at the end.
  func next() throws -> Bool {
    switch sqlite3_step(handle) {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    case let code: throw error(code)
    }
  }

  func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

  // The `…OrNil` readers ask for the column's type only when the value read could stand for NULL (0, 0.0,
  // or no pointer), which saves a call per column on the rows of a big fetch.

  func int64OrNil(_ column: Int32) -> Int64? {
    let value = sqlite3_column_int64(handle, column)
    return value == 0 && isNull(column) ? nil : value
  }

  func doubleOrNil(_ column: Int32) -> Double? {
    let value = sqlite3_column_double(handle, column)
    return value == 0 && isNull(column) ? nil : value
  }

  func stringOrNil(_ column: Int32) -> String? {
    guard let text = sqlite3_column_text(handle, column) else { return isNull(column) ? nil : "" }
    let count = Int(sqlite3_column_bytes(handle, column))
    return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
  }
  func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
  func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

  func string(_ column: Int32) -> String {
    // `sqlite3_column_text` first, then the byte count, as SQLite's documentation asks.
    guard let text = sqlite3_column_text(handle, column) else { return "" }
    let count = Int(sqlite3_column_bytes(handle, column))
    return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
  }

  func data(_ column: Int32) -> Data {
    guard let bytes = sqlite3_column_blob(handle, column) else { return Data() }
    return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, column)))
  }

  /// The column's value as an attribute of `type`: what `SQLiteValueCoding.decode(databaseValue(column),
  /// as: type)` gives, without making a `DatabaseValue` when the stored value already has the type's
  /// storage class (text for a string, an integer for an Integer 64, a real for a Double or a Date).
  func storedValue(_ column: Int32, as type: NSAttributeType) -> StoredValue {
    switch (sqlite3_column_type(handle, column), type) {
    case (SQLITE_NULL, _): nil
    case (SQLITE_TEXT, .stringAttributeType): .string(string(column))
    case (SQLITE_INTEGER, .integer64AttributeType): .int64(int64(column))
    case (SQLITE_FLOAT, .doubleAttributeType): .double(double(column))
    case (SQLITE_FLOAT, .dateAttributeType): .date(Date(timeIntervalSinceReferenceDate: double(column)))
    default: SQLiteValueCoding.decode(databaseValue(column), as: type)
    }
  }

  /// The column's value in the type its storage class stands for: an Integer 64 for an integer, a Double for a
  /// real, a String for text, Data for a blob (for a value whose attribute type is not known).
  func valueAsStored(_ column: Int32) -> StoredValue {
    switch sqlite3_column_type(handle, column) {
    case SQLITE_INTEGER: .int64(int64(column))
    case SQLITE_FLOAT: .double(double(column))
    case SQLITE_TEXT: .string(string(column))
    case SQLITE_BLOB: .data(data(column))
    default: nil
    }
  }

  /// The column's value as SQLite stores it, for the less common attribute types.
  func databaseValue(_ column: Int32) -> DatabaseValue {
    switch sqlite3_column_type(handle, column) {
    case SQLITE_NULL: .null
    case SQLITE_INTEGER: int64(column).databaseValue
    case SQLITE_FLOAT: double(column).databaseValue
    case SQLITE_TEXT: string(column).databaseValue
    default: data(column).databaseValue
    }
  }

  // MARK: - Errors

  /// A valid address for binding an empty string (a static, never-freed byte).
  private static var empty: UnsafeRawPointer { UnsafeRawPointer(("" as StaticString).utf8Start) }

  private func error(_ code: Int32) -> DatabaseError {
    let message = sqlite3_db_handle(handle).flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
    return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
  }
}
