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
    let message = "\(doing): \(detail)." + (advice.map { " \($0)" } ?? "")
    return ObjectGraphError(code, message, url: url, underlyingError: error, sqliteResultCode: error.extendedResultCode.rawValue)
  }
}
