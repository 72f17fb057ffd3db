import EngineTestSupport
import Foundation
import GRDB
import GRDBSQLite
import TestSupport
import Testing

@testable import ObjectGraph

/// How the SQLite store runs a read: one deferred transaction, on a connection whose compiled statements
/// stay compiled from one read to the next.
@Suite("Store reads", .temporaryFolders)
struct StoreReadTests {
  /// A store with `count` objects whose `int64` is their number.
  private func filledStack(count: Int) throws -> StoreStack {
    let stack = try StoreStack(model: Models.allTypes(), type: .sqlite)
    try stack.context.performAndWait {
      for number in 0..<count {
        let object = NSManagedObject(entity: stack.entity("Everything"), insertInto: stack.context)
        object.setValue(Int64(number), forKey: "int64")
        object.setValue("row \(number)", forKey: "string")
      }
      try stack.context.save()
    }
    return stack
  }

  /// How many times SQLite compiled again each statement prepared on the store's connection, by its SQL.
  private func recompilations(_ store: NSPersistentStore) throws -> [String: Int32] {
    try store.read { db in
      var counts: [String: Int32] = [:]
      var statement = sqlite3_next_stmt(db.sqliteConnection, nil)
      while let current = statement {
        let sql = sqlite3_sql(current).map { String(cString: $0) } ?? "?"
        counts[sql, default: 0] += sqlite3_stmt_status(current, SQLITE_STMTSTATUS_REPREPARE, 0)
        statement = sqlite3_next_stmt(db.sqliteConnection, current)
      }
      return counts
    }
  }

  @Test("Fetches and faults with new arguments reuse their compiled statements: none is compiled again")
  func statementsStayCompiled() throws {
    let stack = try filledStack(count: 200)
    let (coordinator, context) = try stack.reader()
    var fetched: [Int64] = []
    try context.performAndWait {
      for threshold in stride(from: Int64(0), to: 200, by: 20) {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Everything")
        request.predicate = NSPredicate(format: "int64 >= %lld", threshold)
        request.sortDescriptors = [NSSortDescriptor(key: "int64", ascending: true)]
        request.fetchLimit = 3
        request.returnsObjectsAsFaults = true
        request.includesPropertyValues = false
        // Each object is a fault: reading it fires it, one read of its row each.
        for object in try context.fetch(request) {
          fetched.append(try #require(object.value(forKey: "int64") as? Int64))
        }
      }
    }
    #expect(fetched.count == 30)
    #expect(fetched.prefix(6) == [0, 1, 2, 20, 21, 22])
    let counts = try recompilations(try #require(coordinator.persistentStores.first))
    // The fetch and the fault have each run ten times with new arguments, each in its own read.
    let fetch = try #require(counts.first { $0.key.contains("WHERE (t0.ZINT64 >= ?)") })
    let fault = try #require(counts.first { $0.key.contains("WHERE t0.Z_PK IN (?)") })
    #expect(fetch.value == 0)
    #expect(fault.value == 0)
    // Each read's transaction too: its BEGIN and COMMIT are compiled once, not once per read.
    #expect(counts["BEGIN DEFERRED TRANSACTION"] == 0)
    #expect(counts["COMMIT TRANSACTION"] == 0)
  }

  @Test("A read is one deferred transaction, ended when the read returns or throws")
  func readIsOneTransaction() throws {
    let stack = try filledStack(count: 3)
    let store = stack.store
    let inside = try store.read { db in db.isInsideTransaction }
    #expect(inside)
    struct Stop: Error {}
    #expect(throws: Stop.self) { try store.read { _ in throw Stop() } }
    #expect(store.database.inDatabase { db in db.isInsideTransaction } == false)
    // Two statements of one read see the same rows, and the connection still writes after reads.
    let (before, after) = try store.read { db in
      (
        try Int.fetchOne(db, sql: "SELECT count(*) FROM ZEVERYTHING"),
        try Int.fetchOne(db, sql: "SELECT count(*) FROM ZEVERYTHING")
      )
    }
    #expect(before == 3 && after == 3)
    try stack.context.performAndWait {
      NSManagedObject(entity: stack.entity("Everything"), insertInto: stack.context).setValue(Int64(9), forKey: "int64")
      try stack.context.save()
    }
    #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM ZEVERYTHING") } == 4)
  }

  @Test("An SQLite failure inside a read is an ObjectGraph error naming the store, and the next read works")
  func failedRead() throws {
    let stack = try filledStack(count: 1)
    let error = try #require(throws: ObjectGraphError.self) {
      try stack.store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM ZNOSUCHTABLE") }
    }
    #expect(error.message.contains("Reading the store at"))
    #expect(try stack.store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM ZEVERYTHING") } == 1)
  }
}
