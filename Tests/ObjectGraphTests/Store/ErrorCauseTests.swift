import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// A store failure keeps SQLite's own error, so a caller can tell a busy database from a full disk or a
/// damaged file.
@Suite("Errors keep their cause", .temporaryFolders)
struct ErrorCauseTests {
  @Test("A file that is not SQLite: 134000, with SQLite's SQLITE_NOTADB attached, and the file untouched")
  func foreignFileKeepsSQLiteError() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("NotAStore.sqlite")
    let bytes = Data(repeating: 0x41, count: 4096)
    try bytes.write(to: url)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let error = expectCode(.persistentStoreInvalidType) { try coordinator.addPersistentStore(type: .sqlite, at: url) }
    #expect(error?.sqlitePrimaryResultCode == 26, "SQLITE_NOTADB")
    let cause = try #require(error?.underlyingError as? DatabaseError)
    #expect(cause.resultCode == .SQLITE_NOTADB)
    #expect(error?.message.contains("SQLite said") == true)
    #expect(try Data(contentsOf: url) == bytes)
  }

  @Test("A save while another connection holds the write lock: 134030, SQLITE_BUSY attached, nothing written")
  func busyDatabaseKeepsSQLiteError() throws {
    // A short busy timeout, so the test waits a tenth of a second instead of the default ten.
    let stack = try StoreStack(
      model: try Models.notes(),
      options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        NSSQLitePragmasOption: ["busy_timeout": "100"],
      ])
    let (url, context) = (stack.storeURL, stack.context)

    let other = try DatabaseQueue(path: url.path)
    try other.writeWithoutTransaction { db in
      try db.execute(sql: "BEGIN IMMEDIATE")
      defer { try? db.execute(sql: "ROLLBACK") }
      let error = context.performAndWait {
        let note = Note(context: context)
        note.title = "blocked"
        return expectCode(.persistentStoreSave) { try context.save() }
      }
      #expect(error?.sqlitePrimaryResultCode == 5, "SQLITE_BUSY, got \(String(describing: error))")
      #expect((error?.underlyingError as? DatabaseError)?.resultCode == .SQLITE_BUSY)
      #expect(context.performAndWait { context.hasChanges }, "the context keeps its changes for a retry")
    }
    try other.close()
    #expect(try rawRows(url, "SELECT COUNT(*) AS c FROM ZNOTE")[0]["c"] as Int == 0)
    // Once the lock is gone, the same save goes through.
    try context.performAndWait { try context.save() }
    #expect(try rawRows(url, "SELECT COUNT(*) AS c FROM ZNOTE")[0]["c"] as Int == 1)
  }

  @Test(
    "A full disk: 134030 with SQLITE_FULL and a message that says so; the context keeps its changes; a retry after space frees up saves them"
  )
  func fullDiskKeepsChangesForARetry() throws {
    // A "disk" of 200 pages (800 KB): SQLite refuses to grow the database past it, as with a full disk.
    let stack = try StoreStack(
      model: try Models.notes(),
      options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        NSSQLitePragmasOption: ["max_page_count": "200"],
      ])
    let (url, ballast) = (stack.storeURL, stack.context)
    let page = String(repeating: "x", count: 4_000)
    try ballast.performAndWait {
      for index in 0..<140 {
        let note = Note(context: ballast)
        note.title = "ballast \(index)"
        note.body = page
      }
      try ballast.save()
    }

    let context = stack.freshContext()
    let error = context.performAndWait {
      for index in 0..<80 {
        let note = Note(context: context)
        note.title = "kept \(index)"
        note.body = page
      }
      return expectCode(.persistentStoreSave) { try context.save() }
    }
    #expect(error?.sqlitePrimaryResultCode == 13, "SQLITE_FULL, got \(String(describing: error))")
    #expect(
      error?.message.contains("The disk (or the store's max_page_count) is full: free some space and save again") == true,
      "the message says the disk is full: \(error?.message ?? "")")
    #expect(context.performAndWait { context.insertedObjects.count } == 80, "the context keeps its changes for a retry")
    #expect(try rawRows(url, "SELECT COUNT(*) AS c FROM ZNOTE")[0]["c"] as Int == 140, "nothing of the failed save was written")

    // Space frees up (the ballast goes), and the same save goes through.
    try ballast.performAndWait {
      for note in try ballast.fetch(NSFetchRequest<Note>(entityName: "Note")) { ballast.delete(note) }
      try ballast.save()
    }
    try context.performAndWait { try context.save() }
    #expect(try rawRows(url, "SELECT COUNT(*) AS c FROM ZNOTE")[0]["c"] as Int == 80)
    #expect(!context.performAndWait { context.hasChanges })
  }
}
