import Foundation
internal import GRDB

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
    let cause: String?
    switch error.resultCode {
    case .SQLITE_FULL:
      // What to do again depends on what failed: a save (the context keeps its changes), a migration or an
      // open (the file is as it was).
      cause =
        code == .persistentStoreSave || code == .managedObjectConstraintMerge
        ? "The disk (or the store's max_page_count) is full: free some space and save again; the context keeps its changes."
        : "The disk (or the store's max_page_count) is full: free some space and try again; the file was left as it was."
    case .SQLITE_READONLY where error.extendedResultCode.rawValue == 1288 /* SQLITE_READONLY_CANTINIT */:
      cause =
        "SQLite reads a store in WAL mode through a -shm file beside it, which it could not create: the folder cannot "
        + "be written. Copy the store with its -wal to a folder you can write, or make this one writable."
    case .SQLITE_READONLY where error.extendedResultCode.rawValue == 776 /* SQLITE_READONLY_ROLLBACK */:
      cause =
        "A -journal file beside the store (a transaction a stopped process left unfinished, or a file that only looks "
        + "like one) must be rolled back first, which only a read-write connection can do."
    case .SQLITE_READONLY:
      // Said for read-only opens too: a WAL store cannot be read where its folder cannot be written (its
      // -shm must be made or written), so "open it read-only" alone is not the whole advice.
      cause =
        "The store's file or its folder cannot be written (a read-only file system, or permissions). A store in "
        + "rollback-journal mode can be read there with the option NSReadOnlyPersistentStoreOption: true; a store in WAL mode (Core Data's "
        + "default) needs a folder it can write even to be read, for its -shm: make the folder writable for this user, or "
        + "copy the store with its -wal and -shm to a folder you can write."
    case .SQLITE_BUSY where error.extendedResultCode.rawValue == 517 /* SQLITE_BUSY_SNAPSHOT */:
      cause =
        "Another connection (another process, say) wrote to the store after this one began reading it, so this "
        + "one could not write on top of what it read: nothing was written; do it again."
    case .SQLITE_BUSY:
      cause =
        "Another connection (another process, say) held the store's lock for longer than the busy timeout, or opened it in "
        + "another journal mode (every coordinator of a store must use the same journal_mode pragma): keep other writers' "
        + "transactions short, and give every coordinator the same NSSQLitePragmasOption."
    case .SQLITE_IOERR:
      cause = "The disk reported an error: most often it is full (free some space), or the file was changed or removed by another program."
    case .SQLITE_CANTOPEN:
      cause = "SQLite could not open the file or one beside it (-wal, -shm, -journal): check that they exist, are files, and are readable."
    default:
      cause = nil
    }
    let message = "\(doing): \(detail)." + [cause, advice].compactMap { $0.map { " \($0)" } }.joined()
    return ObjectGraphError(code, message, url: url, underlyingError: error, sqliteResultCode: error.extendedResultCode.rawValue)
  }
}
