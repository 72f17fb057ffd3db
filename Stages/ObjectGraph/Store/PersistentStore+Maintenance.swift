import Foundation
internal import GRDB

extension NSPersistentStore {
  /// Runs what the store's options ask for when it is added: `ANALYZE` (``NSSQLiteAnalyzeOption``), then
  /// `VACUUM` (``NSSQLiteManualVacuumOption``). SQLite stores only, and not read-only ones (nothing can be
  /// written there); in-memory and binary stores have no file SQLite keeps.
  ///
  /// - Throws: ``NSPersistentStoreOpenError`` when SQLite fails (the store is not added then).
  func runMaintenanceOnAdd() throws {
    guard storeType == .sqlite, url != nil, !storeOptions.readOnly,
      storeOptions.analyzesOnAdd || storeOptions.vacuumsOnAdd
    else { return }
    do {
      try database.writeWithoutTransaction { db in
        if storeOptions.analyzesOnAdd { try db.execute(sql: "ANALYZE") }
        if storeOptions.vacuumsOnAdd { try db.execute(sql: "VACUUM") }
      }
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreOpen, "Analysing or vacuuming the store at \(url.storePath) when it was added failed", error, url: url)
    }
  }
}
