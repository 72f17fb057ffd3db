import Foundation
import GRDB

extension ObjectGraphError {
  /// The one way a SQLite failure becomes an ``ObjectGraphError``: the message says what the engine was
  /// doing, then SQLite's own words, result code and statement, then what to do; the `DatabaseError`
  /// stays attached as ``underlyingError`` and its extended result code as ``sqliteResultCode``.
  ///
  /// - Parameters:
  ///   - code: the engine's code for the failure.
  ///   - doing: what the engine was doing, e.g. "Saving to the store at /path failed".
  ///   - error: what SQLite (through GRDB) reported.
  ///   - advice: what the user can do, appended as its own sentence.
  ///   - url: the store file, if any.
  static func database(_ code: Code, _ doing: String, _ error: DatabaseError, advice: String? = nil, url: URL?) -> ObjectGraphError {
    var detail = "SQLite said \"\(error.message ?? "\(error.resultCode)")\" (\(error.extendedResultCode)"
    if let sql = error.sql { detail += "; SQL: \(sql)" }
    detail += ")"
    // The causes a user can act on get their own advice, ahead of the caller's more general one.
    let cause: String? =
      switch error.resultCode {
      case .SQLITE_FULL:
        "The disk (or the store's max_page_count) is full: free some space and save again; the context keeps its changes."
      case .SQLITE_READONLY:
        "The store's file or its folder cannot be written (a read-only file system, or permissions): "
          + "open it with StoreOptions(readOnly: true) to read it, or copy it somewhere writable."
      case .SQLITE_BUSY:
        "Another connection (another process, say) held the store's write lock for longer than the busy timeout: "
          + "try again, and keep other writers' transactions short."
      default: nil
      }
    let message = "\(doing): \(detail)." + [cause, advice].compactMap { $0.map { " \($0)" } }.joined()
    return ObjectGraphError(code, message, url: url, underlyingError: error, sqliteResultCode: error.extendedResultCode.rawValue)
  }
}
