import Foundation
internal import GRDB

/// One store's part of a query generation: a SQLite connection of its own on the store's file, holding a
/// read transaction open, so every read through it sees the file as it was when the transaction began
/// (SQLite's WAL snapshot), whatever is saved since.
///
/// Only a SQLite file in WAL mode gives one (``NSPersistentStore/makeSnapshot()``): there a reader never
/// blocks a writer, and a writer never disturbs a reader's snapshot. What it costs while it is open: an open
/// file (the connection), and the write-ahead log cannot be checkpointed past the snapshot's last frame nor
/// restarted, so the log grows with every later save until the snapshot ends (SQLite's auto-checkpoints are
/// passive and skip what a reader still needs; a blocking checkpoint another connection asks for waits its
/// busy timeout and gives up). The snapshot ends when ``close()`` runs or the last reference goes.
final class StoreSnapshot: Sendable {
  /// The connection, inside its read transaction; `nil` once closed.
  private let connection: Locked<DatabaseQueue?>
  /// The store file, for error messages.
  let url: URL?

  private init(connection: DatabaseQueue, url: URL?) {
    self.connection = Locked(connection)
    self.url = url
  }

  deinit { close() }

  /// Opens a connection on `store`'s file and begins its read transaction: what the file holds now (the last
  /// transaction committed by any connection, in any process) is what the snapshot reads from then on.
  static func open(on store: NSPersistentStore, path: String) throws -> StoreSnapshot {
    let queue = try NSPersistentStore.makeDatabase(
      path: path, options: store.storeOptions, readOnly: true, url: store.url, holdsReadTransaction: true)
    do {
      try queue.inDatabase { db in
        try db.execute(sql: "BEGIN DEFERRED TRANSACTION")
        // A deferred transaction reads nothing until its first statement: this one fixes the snapshot.
        _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
      }
    } catch let error as DatabaseError {
      try? queue.close()
      throw ObjectGraphError.database(
        .persistentStoreOperation, "Opening a query generation on the store at \(store.url.storePath) failed", error,
        url: store.url)
    }
    return StoreSnapshot(connection: queue, url: store.url)
  }

  /// Runs a read inside the snapshot's transaction.
  ///
  /// - Throws: ``NSPersistentStoreOperationError`` when the snapshot was closed (its store was removed from
  ///   the coordinator) or its transaction ended (SQLite rolled it back after an error): reading on would
  ///   read another generation.
  func read<T>(_ body: (Database) throws -> T) throws -> T {
    guard let queue = connection.withLock({ $0 }) else {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "The query generation of the store at \(url.storePath) has ended: the store was removed from its coordinator. Move the context to another generation (setQueryGenerationFrom(.current), or nil to unpin it)."
      )
    }
    return try queue.inDatabase { db in
      guard db.isInsideTransaction else {
        throw ObjectGraphError(
          .persistentStoreOperation,
          "The query generation of the store at \(url.storePath) was lost: SQLite ended its read transaction after an error. Move the context to another generation (setQueryGenerationFrom(.current)) and read again."
        )
      }
      return try body(db)
    }
  }

  /// Ends the read transaction and closes the connection (again: nothing). The log may then be checkpointed
  /// past the snapshot.
  func close() {
    guard
      let queue = connection.withLock({ state -> DatabaseQueue? in
        defer { state = nil }
        return state
      })
    else { return }
    try? queue.inDatabase { db in if db.isInsideTransaction { try db.execute(sql: "ROLLBACK") } }
    try? queue.close()
  }
}

extension NSPersistentStore {
  /// A snapshot of this store as it is now, for a query generation; `nil` for a store that has none to give:
  /// an in-memory or binary store, a SQLite store at `/dev/null` (in memory), a file opened as immutable
  /// (nothing can change it), or a file in another journal mode than WAL. Reads of such a store in a
  /// generation read what it holds at the time, as Core Data's contexts "gracefully revert to unpinned
  /// behavior" with a store that is not SQLite in WAL mode.
  ///
  /// Called with the coordinator's lock held, so no save of this coordinator comes between the snapshot and
  /// the caller's last look at the store.
  func makeSnapshot() throws -> StoreSnapshot? {
    guard storeType == .sqlite, let url, url.isFileURL, url.standardizedFileURL.path != "/dev/null",
      !SideFiles.opensImmutable(url)
    else { return nil }
    let mode = try read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
    guard mode?.lowercased() == "wal" else { return nil }
    return try StoreSnapshot.open(on: self, path: url.path)
  }

  /// Runs a read in `snapshot` (a query generation's view of this store) when there is one, else on the store's
  /// own connection (what the store holds now).
  func read<T>(in snapshot: StoreSnapshot?, _ body: (Database) throws -> T) throws -> T {
    guard let snapshot else { return try read(body) }
    do {
      return try snapshot.read(body)
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(.coreData, "Reading the store at \(url.storePath) failed", error, url: url)
    }
  }
}
