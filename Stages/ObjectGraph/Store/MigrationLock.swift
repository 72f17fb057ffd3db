import Foundation
internal import GRDB

extension Database {
  /// Runs `body` in a transaction of `kind` (`.immediate` or `.exclusive`: a migration's), waiting for the
  /// store's write lock however long another connection holds it.
  ///
  /// A migration on open holds the store's write lock from its first look at the version hashes until its
  /// result is committed, which may take longer than the busy timeout (a big store, a staged migration's
  /// handlers). A second opener of the same store (another coordinator, another process) that finds the old
  /// version waits here for that lock, then finds the store migrated and has nothing left to do; it must not
  /// fail after the busy timeout. So `BEGIN` is tried again each time SQLite gives up waiting (`SQLITE_BUSY`
  /// before the transaction began); once it began, a failure is the caller's as usual. Waiting here holds no
  /// lock (SQLite releases the shared lock it took before it waits), so the holder can always commit: no
  /// deadlock.
  func inMigrationTransaction(_ kind: Database.TransactionKind, _ body: () throws -> Database.TransactionCompletion) throws {
    var began = false
    while true {
      do {
        try inTransaction(kind) {
          began = true
          return try body()
        }
        return
      } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && !began {
        // The busy timeout elapsed while another connection held the lock: wait again (a short pause keeps a
        // zero timeout from spinning).
        Thread.sleep(forTimeInterval: 0.01)
      }
    }
  }
}
