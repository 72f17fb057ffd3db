import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// A store's own SQL trace (`ObjectGraphSQLTraceOption`): what a save and a fetch really run, per store, so
/// tests can assert SQL without the process-wide `SQLDebug` switch (and run in parallel).
@Suite("Per-store SQL trace", .temporaryFolders)
struct SQLTraceTests {
  /// A context whose store reports its SQL into `log`.
  private func tracedContext(_ log: Locked<[String]>, type: NSPersistentStore.StoreType = .sqlite) throws -> NSManagedObjectContext {
    try StoreStack(
      model: try Models.notes(), type: type, fileName: "Traced.sqlite",
      options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        ObjectGraphSQLTraceOption: { sql in log.withLock { $0.append(sql) } } as @Sendable (String) -> Void,
      ]
    ).context
  }

  @Test(
    "A save runs one multi-row INSERT for its notes, reserving keys in Z_PRIMARYKEY, inside one transaction",
    arguments: bothStoreTypes)
  func saveSQL(type: NSPersistentStore.StoreType) throws {
    let log = Locked<[String]>([])
    let context = try tracedContext(log, type: type)
    log.withLock { $0 = [] }
    try context.performAndWait {
      for title in ["a", "b", "c"] { Note(context: context).title = title }
      try context.save()
    }
    let statements = log.withLock { $0 }
    let inserts = statements.filter { $0.hasPrefix("INSERT INTO ZNOTE") }
    #expect(inserts.count == 1, "\(statements)")
    #expect(inserts.first?.components(separatedBy: "(?, ").count == 4, "three rows in one statement: \(inserts)")
    #expect(statements.contains { $0.hasPrefix("SELECT Z_MAX FROM Z_PRIMARYKEY") })
    #expect(statements.contains { $0.hasPrefix("UPDATE Z_PRIMARYKEY SET Z_MAX") })
    #expect(statements.first?.hasPrefix("BEGIN") == true && statements.last == "COMMIT TRANSACTION", "\(statements)")
  }

  @Test("A fetch with a predicate and a sort runs it in SQL, with the arguments bound, not in memory", arguments: bothStoreTypes)
  func fetchSQL(type: NSPersistentStore.StoreType) throws {
    let log = Locked<[String]>([])
    let context = try tracedContext(log, type: type)
    try context.performAndWait {
      Note(context: context).title = "x"
      try context.save()
    }
    log.withLock { $0 = [] }
    try context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "title BEGINSWITH %@ AND rating > %d", "x", 2)
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      _ = try context.fetch(request)
    }
    let selects = log.withLock { $0 }.filter { $0.hasPrefix("SELECT") }
    #expect(selects.count == 1, "\(selects)")
    let sql = selects.first ?? ""
    #expect(sql.contains("FROM ZNOTE t0"))
    #expect(sql.contains("ZRATING > ?"), "\(sql)")
    #expect(sql.contains("ORDER BY"), "\(sql)")
    #expect(!sql.contains("'x'"), "arguments are bound, never spliced into the SQL: \(sql)")
  }

  @Test("Two stores keep their traces apart, and a store without one traces nothing", arguments: bothStoreTypes)
  func tracesArePerStore(type: NSPersistentStore.StoreType) throws {
    let first = Locked<[String]>([])
    let second = Locked<[String]>([])
    let contextA = try tracedContext(first, type: type)
    let contextB = try tracedContext(second, type: type)
    let untraced = try StoreStack(type: type)
    first.withLock { $0 = [] }
    second.withLock { $0 = [] }
    try contextA.performAndWait {
      Note(context: contextA).title = "only in A"
      try contextA.save()
    }
    try untraced.context.performAndWait {
      Note(context: untraced.context).title = "untraced"
      try untraced.context.save()
    }
    #expect(first.withLock { $0 }.contains { $0.hasPrefix("INSERT INTO ZNOTE") })
    #expect(second.withLock { $0 }.isEmpty)
    try contextB.performAndWait { _ = try contextB.count(for: NSFetchRequest<Note>(entityName: "Note")) }
    #expect(second.withLock { $0 }.contains { $0.contains("COUNT") })
    #expect(!first.withLock { $0 }.contains { $0.contains("COUNT") })
  }

  @Test("obtainPermanentIDs for several objects reserves their keys in one transaction, one block per table", arguments: bothStoreTypes)
  func obtainPermanentIDsInOneTransaction(type: NSPersistentStore.StoreType) throws {
    let log = Locked<[String]>([])
    let context = try tracedContext(log, type: type)
    let ids = try context.performAndWait {
      let objects: [NSManagedObject] =
        (0..<3).map { _ in Note(context: context) as NSManagedObject } + (0..<2).map { _ in Tag(context: context) as NSManagedObject }
      log.withLock { $0 = [] }
      try context.obtainPermanentIDs(for: objects)
      return objects.map(\.objectID)
    }
    let statements = log.withLock { $0 }
    #expect(statements.filter { $0.hasPrefix("BEGIN") }.count == 1, "\(statements)")
    #expect(statements.filter { $0.hasPrefix("UPDATE Z_PRIMARYKEY") }.count == 2, "one block per table: \(statements)")
    #expect(ids.allSatisfy { !$0.isTemporaryID })
    #expect(ids.prefix(3).map(\.primaryKey) == [1, 2, 3])
    #expect(ids.suffix(2).map(\.primaryKey) == [1, 2])
  }

  @Test("A batch update by a predicate without joins is one UPDATE with its own WHERE; through a to-one, a key subquery")
  func batchStatements() throws {
    let log = Locked<[String]>([])
    let context = try tracedContext(log)
    try context.performAndWait {
      let work = Notebook(context: context)
      work.name = "Work"
      for index in 0..<6 {
        let note = Note(context: context)
        note.title = "note \(index)"
        note.rating = Int64(index)
        if index < 3 { note.notebook = work }
      }
      try context.save()
      log.withLock { $0 = [] }
      let plain = NSBatchUpdateRequest(entityName: "Note")
      plain.predicate = NSPredicate(format: "rating >= 4")
      plain.propertiesToUpdate = ["body": "high"]
      plain.resultType = .updatedObjectsCountResultType
      #expect(try (context.execute(plain) as? NSBatchUpdateResult)?.result as? Int == 2)
      let joined = NSBatchUpdateRequest(entityName: "Note")
      joined.predicate = NSPredicate(format: "notebook.name == 'Work'")
      joined.propertiesToUpdate = ["body": "work"]
      joined.resultType = .updatedObjectsCountResultType
      #expect(try (context.execute(joined) as? NSBatchUpdateResult)?.result as? Int == 3)
    }
    let statements = log.withLock { $0 }.filter { $0.hasPrefix("UPDATE ZNOTE") }
    #expect(statements.count == 2, "\(statements)")
    #expect(
      statements.first?.hasPrefix("UPDATE ZNOTE AS t0 SET ") == true && statements.first?.contains("IN (SELECT") == false, "\(statements)")
    #expect(statements.dropFirst().first?.contains("WHERE t0.Z_PK IN (SELECT t0.Z_PK FROM ZNOTE t0 ") == true, "\(statements)")
    let bodies = try context.performAndWait {
      context.reset()  // a batch update changes the file, not the context's objects
      return try context.fetch(NSFetchRequest<Note>(entityName: "Note")).map { "\($0.title ?? ""):\($0.body ?? "-")" }.sorted()
    }
    #expect(bodies == ["note 0:work", "note 1:work", "note 2:work", "note 3:-", "note 4:high", "note 5:high"])
  }
}
