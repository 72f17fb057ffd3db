import Foundation
internal import GRDB

/// Persistent history: every transaction written to a store with ``NSPersistentHistoryTrackingKey``
/// is recorded in two tables of its own, `ATRANSACTION` (one row per save or batch request: when, who)
/// and `ACHANGE` (one row per object inserted, updated or deleted, with the properties an update
/// changed), in the same SQLite transaction as the change itself, so history and data never disagree.
extension NSPersistentStore {
  func createHistoryTables() throws {
    try refuseCoreDataHistory()
    try write { db in
      try db.execute(
        sql: """
          CREATE TABLE IF NOT EXISTS ATRANSACTION (Z_PK INTEGER PRIMARY KEY AUTOINCREMENT, ZTIMESTAMP REAL NOT NULL, ZAUTHOR TEXT, ZCONTEXTNAME TEXT, ZBUNDLEID TEXT, ZPROCESSID TEXT);
          CREATE TABLE IF NOT EXISTS ACHANGE (Z_PK INTEGER PRIMARY KEY AUTOINCREMENT, ZTRANSACTIONID INTEGER NOT NULL, ZCHANGETYPE INTEGER NOT NULL, ZENTITY INTEGER NOT NULL, ZENTITYPK INTEGER NOT NULL, ZCOLUMNS TEXT, ZTOMBSTONE BLOB);
          CREATE INDEX IF NOT EXISTS ACHANGE_ZTRANSACTIONID ON ACHANGE (ZTRANSACTIONID);
          """)
      // Tables an earlier engine made lack the writer's bundle and process and the tombstones: added, empty
      // for old rows.
      for (table, column, type) in Self.laterHistoryColumns where try !Self.columns(of: table, db: db).contains(column) {
        try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN \(column) \(type)")
      }
    }
  }

  /// The history columns a later engine added, each with its table and type.
  private static let laterHistoryColumns = [
    ("ATRANSACTION", "ZBUNDLEID", "TEXT"), ("ATRANSACTION", "ZPROCESSID", "TEXT"), ("ACHANGE", "ZTOMBSTONE", "BLOB"),
  ]

  /// The names of a table's columns, in capitals.
  private static func columns(of table: String, db: Database) throws -> Set<String> {
    Set(try db.columns(in: table).map { $0.name.uppercased() })
  }

  /// Who writes: this program's bundle identifier (its name without one) and this process's ID.
  static let writer: (bundleID: String, processID: String) = (
    Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName, "\(ProcessInfo.processInfo.processIdentifier)"
  )

  /// Records one transaction's changes, inside the caller's transaction. Does nothing when history is not
  /// tracked or nothing changed.
  func recordHistory(_ entries: [StoreHistoryEntry], author: String?, contextName: String?, db: Database) throws {
    guard storeOptions.persistentHistoryTracking, !entries.isEmpty else { return }
    try db.execute(
      sql: "INSERT INTO ATRANSACTION (ZTIMESTAMP, ZAUTHOR, ZCONTEXTNAME, ZBUNDLEID, ZPROCESSID) VALUES (?, ?, ?, ?, ?)",
      arguments: [Date().timeIntervalSinceReferenceDate, author, contextName, Self.writer.bundleID, Self.writer.processID])
    let transaction = db.lastInsertedRowID
    let statement = try db.cachedStatement(
      sql: "INSERT INTO ACHANGE (ZTRANSACTIONID, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS, ZTOMBSTONE) VALUES (?, ?, ?, ?, ?, ?)")
    for entry in entries {
      try statement.execute(arguments: [
        transaction, entry.kind.rawValue, entry.entityNumber, entry.primaryKey, entry.properties?.joined(separator: ","),
        entry.tombstone,
      ])
    }
  }

  /// The transactions after a bound (all of them for `.all`), oldest first, with their changes, and
  /// where the reading starts: the number of the last transaction before them (0 when there is none),
  /// read in the same transaction, so a reader's position in this store never skips one.
  func history(after bound: StoreHistoryBound) throws -> (start: Int64, transactions: [StoreHistoryTransaction]) {
    guard try hasHistoryTables() else { return (0, []) }
    return try read { db in
      let (condition, arguments) = Self.transactions(bound, after: true)
      let start: Int64 =
        switch bound {
        case .all: 0
        case .transaction(let number): number
        case .date(let date):
          try Int64.fetchOne(
            db, sql: "SELECT MAX(Z_PK) FROM ATRANSACTION WHERE ZTIMESTAMP <= ?", arguments: [date.timeIntervalSinceReferenceDate]) ?? 0
        }
      var changes: [Int64: [StoreHistoryChange]] = [:]
      // A read-only store's tables may be an earlier engine's, without tombstones.
      let tombstone = try Self.columns(of: "ACHANGE", db: db).contains("ZTOMBSTONE") ? "ZTOMBSTONE" : "NULL"
      let changeRows = try Row.fetchCursor(
        db,
        sql:
          "SELECT Z_PK, ZTRANSACTIONID, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS, \(tombstone) FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION\(condition)) ORDER BY Z_PK",
        arguments: arguments)
      while let row = try changeRows.next() {
        guard let kind = StoreHistoryChange.Kind(rawValue: row[2]), let id = objectID(pk: row[4], entityNumber: row[3]) else {
          continue
        }
        let columns: String? = row[5]
        let preserved: Data? = row[6]
        let change = StoreHistoryChange(
          number: row[0], kind: kind, objectID: id, updatedProperties: columns.map { Set($0.split(separator: ",").map(String.init)) },
          tombstone: preserved.flatMap { HistoryTombstone.decode($0, entity: id.entity) })
        changes[row[1], default: []].append(change)
      }
      var transactions: [StoreHistoryTransaction] = []
      // A read-only store's tables may be an earlier engine's, without the writer's columns.
      let present = try Self.columns(of: "ATRANSACTION", db: db)
      let writer = ["ZBUNDLEID", "ZPROCESSID"].map { present.contains($0) ? $0 : "NULL" }.joined(separator: ", ")
      let rows = try Row.fetchCursor(
        db, sql: "SELECT Z_PK, ZTIMESTAMP, ZAUTHOR, ZCONTEXTNAME, \(writer) FROM ATRANSACTION\(condition) ORDER BY Z_PK",
        arguments: arguments)
      while let row = try rows.next() {
        let number: Int64 = row[0]
        transactions.append(
          StoreHistoryTransaction(
            number: number, storeIdentifier: identifier, timestamp: Date(timeIntervalSinceReferenceDate: row[1]), author: row[2],
            contextName: row[3], bundleID: row[4] ?? "", processID: row[5] ?? "", changes: changes[number] ?? []))
      }
      return (start, transactions)
    }
  }

  /// Deletes the transactions up to a bound (every one for `.all`); returns how many.
  func deleteHistory(through bound: StoreHistoryBound) throws -> Int {
    guard try hasHistoryTables() else { return 0 }
    return try write { db in
      let (condition, arguments) = Self.transactions(bound, after: false)
      try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID IN (SELECT Z_PK FROM ATRANSACTION\(condition))", arguments: arguments)
      try db.execute(sql: "DELETE FROM ATRANSACTION\(condition)", arguments: arguments)
      return db.changesCount
    }
  }

  /// The `WHERE` clause choosing `ATRANSACTION` rows after a bound (for reading) or up to it (for
  /// deleting: through a transaction, before a date), with its arguments.
  private static func transactions(_ bound: StoreHistoryBound, after: Bool) -> (String, StatementArguments) {
    switch bound {
    case .all: ("", [])
    case .transaction(let number): (after ? " WHERE Z_PK > ?" : " WHERE Z_PK <= ?", [number])
    case .date(let date): (after ? " WHERE ZTIMESTAMP > ?" : " WHERE ZTIMESTAMP < ?", [date.timeIntervalSinceReferenceDate])
    }
  }

  /// The number of the store's last transaction, or `nil` when it has none.
  func lastHistoryTransaction() throws -> Int64? {
    guard try hasHistoryTables() else { return nil }
    return try read { db in try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ATRANSACTION") }
  }

  private func hasHistoryTables() throws -> Bool {
    try refuseCoreDataHistory()
    return try read { db in try db.tableExists("ATRANSACTION") }
  }

  /// Whether the store open in `db` holds history that Apple's Core Data recorded (see
  /// ``refuseCoreDataHistory()``).
  static func hasCoreDataHistory(in db: Database) throws -> Bool {
    guard try db.tableExists("ATRANSACTION") else { return false }
    return try db.columns(in: "ATRANSACTION").contains { $0.name == "Z_ENT" }
  }

  /// Why a store with Core Data's history, added without history tracking, is opened read-only: as Core
  /// Data does ("Forcing into Read Only mode"), since a save there would record no history and the app's
  /// other processes and extensions, which read it, would never see the change.
  static let coreDataHistoryReadOnlyReason =
    "it holds persistent history that Apple's Core Data recorded (ATRANSACTION, ACHANGE), and it was added without NSPersistentHistoryTrackingKey, so a save would record no history and the app's other processes would never see it (Core Data opens such a store read-only too). ObjectGraph cannot write Core Data's history format, so it can only read this store; make changes with Core Data on an Apple platform"

  /// Refuses to touch history tables that Core Data wrote: its `ATRANSACTION`, `ACHANGE` and
  /// `ATRANSACTIONSTRING` are entities of its own (with `Z_ENT` and `Z_OPT` columns), kept up to date by
  /// triggers, in a format the engine neither reads nor writes. The engine's tables have neither column.
  private func refuseCoreDataHistory() throws {
    let isCoreData = try read { db in try Self.hasCoreDataHistory(in: db) }
    guard isCoreData else { return }
    throw Self.coreDataHistoryError(url: url)
  }

  /// The refusal of history tracking, or of a history request, on a store with Core Data's history.
  static func coreDataHistoryError(url: URL?) -> ObjectGraphError {
    ObjectGraphError(
      .unsupportedFeature,
      "The store at \(url.storePath) holds persistent history that Apple's Core Data recorded (its ATRANSACTION, ACHANGE and ATRANSACTIONSTRING tables), in a format ObjectGraph does not read or write. The store and its history were left untouched. Open the store without NSPersistentHistoryTrackingKey (it then opens read-only, as in Core Data) and do not fetch its history here; Core Data on Apple platforms reads it.",
      url: url)
  }

  /// Runs a write, turning SQLite failures into ObjectGraph errors.
  private func write<T>(_ body: (Database) throws -> T) throws -> T {
    try refuseWritesIfReadOnly("its history cannot be changed")
    do {
      return try database.write(body)
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreSave, "Writing the history of the store at \(url.storePath) failed", error, url: url)
    }
  }
}
