import Foundation
import GRDB
import ObjectGraph

/// Batch update and batch delete requests (`context.execute(_:)`: rows changed in SQL, no objects) against
/// the same `UPDATE` and `DELETE` statements run through GRDB, on the same rows.
///
/// Every measurement starts from a new pair of files holding the dataset's N `Item` rows, made before the
/// clock starts (the engine's by a batch insert request, GRDB's by its prepared insert) and closed, so each
/// WAL is checkpointed into its file and removed; each file is then opened afresh (coordinator and
/// context, or `DatabaseQueue`), still before the clock. The clock covers the request in the context
/// (`performAndWait { try context.execute(request) }`, the request made before, its result type the default
/// status only) and GRDB's write transaction running the one statement. The store is added with the
/// default options, so it records no persistent history. Afterwards both files are checked to hold the
/// rows expected, and removed.
///
/// | case | ObjectGraph | GRDB |
/// | --- | --- | --- |
/// | update all | `NSBatchUpdateRequest`, `propertiesToUpdate = ["count": -1]` | `UPDATE item SET count = ?` |
/// | update half | the same with the predicate `score < 0.5` | `... WHERE score < ?` |
/// | delete all | `NSBatchDeleteRequest(fetchRequest:)` of every `Item` | `DELETE FROM item` |
/// | delete half | the same with the predicate `score < 0.5` | `DELETE FROM item WHERE score < ?` |
///
/// The value -1 is never in the data (counts are 0..<100000), so the rows holding it are the rows updated.
struct BatchChangeBench {
  /// What one measurement does.
  enum Change: CaseIterable {
    case updateAll, updateHalf, deleteAll, deleteHalf

    var isDelete: Bool { self == .deleteAll || self == .deleteHalf }
    var isFiltered: Bool { self == .updateHalf || self == .deleteHalf }
  }

  /// The value the updates give `count`.
  static let updatedCount = -1
  /// The predicate of the filtered cases: `score < 0.5`, about half the rows.
  static let maximumScore = 0.5

  let objectGraph: ObjectGraphBench
  let grdb: GRDBBench
  let dataset: Dataset
  let folder: URL

  /// Rows with `score < maximumScore`.
  var filteredRows: Int { dataset.scores.lazy.filter { $0 < Self.maximumScore }.count }

  /// One result per case, best of `repetitions` runs each, ObjectGraph then GRDB in each run.
  func run(repetitions: Int) throws -> [BenchmarkResult] {
    let rows = ObjectGraphBench.dictionaries(dataset)
    let filtered = filteredRows
    var results: [BenchmarkResult] = []
    for change in Change.allCases {
      let matched = change.isFiltered ? filtered : dataset.count
      var result = BenchmarkResult(name: name(change, rows: matched))
      for run in 0..<repetitions {
        let engineFile = folder.appendingPathComponent("batchupdate-objectgraph-\(run).sqlite")
        let grdbFile = folder.appendingPathComponent("batchupdate-grdb-\(run).sqlite")
        try ObjectGraphBench.makeStore(model: objectGraph.model, entityName: "Item", rows: rows, at: engineFile)
        _ = try grdb.insert(dataset, at: grdbFile)
        try expectCheckpointed([engineFile, grdbFile])

        result.record(objectGraph: try engineSeconds(change, at: engineFile))
        result.record(grdb: try grdbSeconds(change, at: grdbFile))

        // What both files hold now: rows left, or rows holding the new value.
        let expected = change.isDelete ? dataset.count - matched : matched
        let (engineCount, grdbCount) = (try engineCount(change, at: engineFile), try grdbCount(change, at: grdbFile))
        guard engineCount == expected, grdbCount == expected else {
          throw BenchmarkError(
            "\(result.name): afterwards the files hold \(engineCount) (ObjectGraph) and \(grdbCount) (GRDB) "
              + "\(change.isDelete ? "rows" : "updated rows"), expected \(expected)")
        }
        for file in [engineFile, grdbFile] {
          for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
        }
      }
      results.append(result)
    }
    return results
  }

  private func name(_ change: Change, rows: Int) -> String {
    switch change {
    case .updateAll: "update all \(rows) rows"
    case .updateHalf: "update where score < 0.5 (\(rows) rows)"
    case .deleteAll: "delete all \(rows) rows"
    case .deleteHalf: "delete where score < 0.5 (\(rows) rows)"
    }
  }

  private func predicate() throws -> NSPredicate {
    NSPredicate(format: "score < %f", Self.maximumScore)
  }

  /// Times: the change as a batch request in a new context on a new coordinator.
  private func engineSeconds(_ change: Change, at url: URL) throws -> Double {
    let request: any NSPersistentStoreRequest
    switch change {
    case .updateAll, .updateHalf:
      let update = NSBatchUpdateRequest(entityName: "Item")
      update.propertiesToUpdate = ["count": Int64(Self.updatedCount)]
      if change.isFiltered { update.predicate = try predicate() }
      request = update
    case .deleteAll, .deleteHalf:
      let fetch = NSFetchRequest<NSManagedObject>(entityName: "Item")
      if change.isFiltered { fetch.predicate = try predicate() }
      request = NSBatchDeleteRequest(fetchRequest: fetch)
    }
    let coordinator = try objectGraph.openStore(at: url)
    let context = objectGraph.makeContext(coordinator)
    let seconds = try Stopwatch.seconds {
      _ = try context.performAndWait { try context.execute(request) }
    }
    withExtendedLifetime((coordinator, context)) {}
    return seconds
  }

  /// Times: the same change as one statement in one GRDB write transaction.
  private func grdbSeconds(_ change: Change, at url: URL) throws -> Double {
    let (sql, arguments): (String, StatementArguments) =
      switch change {
      case .updateAll: ("UPDATE item SET count = ?", [Self.updatedCount])
      case .updateHalf: ("UPDATE item SET count = ? WHERE score < ?", [Self.updatedCount, Self.maximumScore])
      case .deleteAll: ("DELETE FROM item", [])
      case .deleteHalf: ("DELETE FROM item WHERE score < ?", [Self.maximumScore])
      }
    let database = try grdb.openDatabase(at: url)
    return try Stopwatch.seconds {
      try database.write { db in try db.execute(sql: sql, arguments: arguments) }
    }
  }

  /// Rows left after a delete, or rows holding the new value after an update, counted through the engine
  /// (not timed).
  private func engineCount(_ change: Change, at url: URL) throws -> Int {
    let coordinator = try objectGraph.openStore(at: url)
    let context = objectGraph.makeContext(coordinator)
    let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
    if !change.isDelete { request.predicate = NSPredicate(format: "count == %d", Self.updatedCount) }
    return try context.performAndWait { try context.count(for: request) }
  }

  /// The same count through GRDB (not timed).
  private func grdbCount(_ change: Change, at url: URL) throws -> Int {
    let sql = change.isDelete ? "SELECT COUNT(*) FROM item" : "SELECT COUNT(*) FROM item WHERE count = \(Self.updatedCount)"
    return try grdb.openDatabase(at: url).read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
  }
}
