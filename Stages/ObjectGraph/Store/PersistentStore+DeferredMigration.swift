import Foundation
internal import GRDB

/// The cleanup a deferred lightweight migration leaves for later
/// (`NSPersistentStoreDeferredLightweightMigrationOptionKey`), and its finish.
///
/// Apple documents that a deferred migration defers "expensive cleanup tasks — such as dropping a table", that
/// the store's metadata tells whether any remain (the same key, `true`), and that
/// `finishDeferredLightweightMigration()` runs them all and `finishDeferredLightweightMigrationTask()` one. It
/// does not document where the tasks are kept: the engine keeps them in the metadata too, as the SQL
/// statements they are (``ObjectGraphDeferredMigrationTasksKey``), in the order they run: dropping the
/// indexes, tables and columns nothing maps to any more, then creating the layout's non-unique indexes. Each
/// is written so that it can run after the store was used meanwhile (`IF EXISTS`, `IF NOT EXISTS`, a column
/// dropped only while it is there).
extension NSPersistentStore {
  /// The tasks a deferred migration left in `metadata`, in the order they run.
  static func deferredTasks(in metadata: [String: any Sendable]) -> [String] {
    metadata[ObjectGraphDeferredMigrationTasksKey] as? [String] ?? []
  }

  /// Runs `tasks` on the store open in `db`, inside the caller's transaction.
  static func runDeferredTasks(_ tasks: [String], db: Database) throws {
    for task in tasks {
      // `ALTER TABLE <table> DROP COLUMN <column>`: only while the column is there.
      let words = task.split(separator: " ").map(String.init)
      if words.count == 6, words[0] == "ALTER", words[3] == "DROP" {
        guard try db.tableExists(words[2]), try db.columns(in: words[2]).contains(where: { $0.name == words[5] }) else { continue }
      }
      try db.execute(sql: task)
    }
  }

  /// Runs the deferred tasks of this store: all of them, or only the first (`all` false), in one
  /// transaction that also updates the metadata; the keys go once none remain. Returns whether a task ran.
  /// A store that is not SQLite, is read-only, or has no deferred task is left alone.
  /// - Throws: ``NSPersistentStoreSaveError`` when SQLite fails: the transaction rolls back, and the tasks stay.
  func finishDeferredMigration(all: Bool) throws -> Bool {
    guard storeType == .sqlite, url != nil, !storeOptions.readOnly,
      !Self.deferredTasks(in: sendableMetadata).isEmpty || sendableMetadata[NSPersistentStoreDeferredLightweightMigrationOptionKey] != nil
    else { return false }
    do {
      let remaining = try database.write { db -> [String]? in
        try refuseWritesIfModelChanged(db)
        var tasks = Self.deferredTasks(in: try StoreMetadata.read(in: db))
        guard !tasks.isEmpty else {
          try StoreMetadata.update(
            in: db, with: [:], removing: [NSPersistentStoreDeferredLightweightMigrationOptionKey, ObjectGraphDeferredMigrationTasksKey],
            url: url)
          return nil
        }
        let count = all ? tasks.count : 1
        try Self.runDeferredTasks(Array(tasks.prefix(count)), db: db)
        tasks.removeFirst(count)
        if tasks.isEmpty {
          try StoreMetadata.update(
            in: db, with: [:], removing: [NSPersistentStoreDeferredLightweightMigrationOptionKey, ObjectGraphDeferredMigrationTasksKey],
            url: url)
        } else {
          try StoreMetadata.update(
            in: db, with: [NSPersistentStoreDeferredLightweightMigrationOptionKey: true, ObjectGraphDeferredMigrationTasksKey: tasks],
            url: url)
        }
        return tasks
      }
      storedMetadata.withLock { metadata in
        let left = remaining ?? []
        metadata[NSPersistentStoreDeferredLightweightMigrationOptionKey] = left.isEmpty ? nil : true
        metadata[ObjectGraphDeferredMigrationTasksKey] = left.isEmpty ? nil : left
      }
      return remaining != nil
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreSave, "Finishing the deferred lightweight migration of the store at \(url.storePath) failed", error,
        advice: "The tasks run in one transaction, so the store and its remaining tasks were left as they were.", url: url)
    }
  }
}
