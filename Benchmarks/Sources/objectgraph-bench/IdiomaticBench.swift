import Foundation
import GRDB
import ObjectGraph

/// The rows as an app keeps them with GRDB: a record struct, inserted with `insert(_:)`, its date stored
/// as seconds since the reference date (the encoding strategy GRDB offers for it), as the engine stores
/// dates.
private struct GRDBItem: Codable, FetchableRecord, PersistableRecord {
  static let databaseTableName = "item"
  static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
    .timeIntervalSinceReferenceDate
  }

  var name: String
  var count: Int64
  var score: Double
  var createdAt: Date
}

/// ObjectGraph written as Core Data code is written, against GRDB written as its documentation shows:
/// `--only idiomatic`.
///
/// | row | ObjectGraph | GRDB |
/// | --- | --- | --- |
/// | insert+save | `BenchItem(context:)` and four property sets per object, `save()` | a `Codable` record's `insert(db)` per row, one `write` |
/// | fetch, typed | `context.fetch(NSFetchRequest<BenchItem>)`, the four `@ObjectGraphManaged` properties read | `Row.fetchCursor`, `row["name"]` and the other named subscripts |
/// | fetch, `value(forKey:)` | the same fetch, `value(forKey:) as? String` / `as? Int64` / `as? Double` / `as? Date` | the same |
/// | predicate+sort | `NSPredicate(format:)` and a sort descriptor, typed reads | the same `WHERE … ORDER BY name`, named subscripts |
///
/// The files are the ones the `crud` group writes (the engine's) and a GRDB file made here by the record
/// inserts, each opened afresh for every fetch before its clock starts; every read is checked against the
/// generated rows. Each row is printed with its parts, each part the best of the runs with a clock of its own.
struct IdiomaticBench {
  let objectGraph: ObjectGraphBench
  let dataset: Dataset
  let folder: URL

  /// One row's measurements: the whole on both sides, and the engine's parts.
  struct Measured {
    var result: BenchmarkResult
    /// Each part's name and best time.
    var parts: [(String, Double)]
  }

  private var grdbURL: URL { folder.appendingPathComponent("idiomatic-grdb.sqlite") }
  private var engineURL: URL { folder.appendingPathComponent("idiomatic-objectgraph.sqlite") }

  func run(repetitions: Int) throws -> [Measured] {
    var rows: [Measured] = []
    rows.append(try insertRow(repetitions: repetitions))
    let all = dataset.checksum(where: { _, _ in true })
    let filtered = dataset.checksum(where: Dataset.matchesPredicate)
    rows.append(
      try fetchRow(
        "fetch all \(dataset.count), typed properties", repetitions: repetitions, expected: all, request: Self.all,
        read: ObjectGraphBench.typed, sql: Self.selectAll))
    rows.append(
      try fetchRow(
        "fetch all \(dataset.count), value(forKey:) + as?", repetitions: repetitions, expected: all, request: Self.all,
        read: ObjectGraphBench.keyValueCoded, sql: Self.selectAll))
    rows.append(
      try fetchRow(
        "predicate+sort (\(filtered.rows) rows), typed", repetitions: repetitions, expected: filtered,
        request: ObjectGraphBench.filteredRequest,
        read: ObjectGraphBench.typed, sql: Self.selectFiltered))
    rows.append(try smallFetchesRow(repetitions: repetitions))
    return rows
  }

  // MARK: - Many small fetches

  /// How many small fetches the last row makes, and the rows each returns.
  static let smallFetches = 1_000
  static let smallFetchLimit = 10

  /// The per-fetch cost: `smallFetches` fetches of `smallFetchLimit` rows, each with a predicate made from
  /// the format anew (as code that builds its predicates at run time does), its objects' values read.
  private func smallFetchesRow(repetitions: Int) throws -> Measured {
    var result = BenchmarkResult(name: "\(Self.smallFetches) predicate fetches of \(Self.smallFetchLimit) rows")
    let thresholds = (0..<Self.smallFetches).map { Int64($0 * 97 % 100_000) }
    let expected = Self.smallFetches * Self.smallFetchLimit
    var making = Double.infinity
    var grdbReadEach = Double.infinity
    for _ in 0..<repetitions {
      making = min(making, Self.makePredicates(thresholds))
      let engine = try engineSmallFetches(thresholds)
      let grdb = try grdbSmallFetches(thresholds, readEach: false)
      let grdbSeparate = try grdbSmallFetches(thresholds, readEach: true)
      guard engine.rows == expected, grdb.rows == expected, grdbSeparate.rows == expected else {
        throw BenchmarkError(
          "small fetches: ObjectGraph read \(engine.rows) rows, GRDB \(grdb.rows) in one read and \(grdbSeparate.rows) with a read each, expected \(expected)"
        )
      }
      result.record(objectGraph: engine.seconds)
      result.record(grdb: grdb.seconds)
      grdbReadEach = min(grdbReadEach, grdbSeparate.seconds)
    }
    /// Microseconds per fetch of a time for all of them.
    func perFetch(_ seconds: Double) -> Double { seconds / Double(Self.smallFetches) * 1e6 }
    return Measured(
      result: result,
      parts: [
        ("one fetch (µs)", perFetch(result.objectGraphBest)), ("of which making its predicate (µs)", perFetch(making)),
        ("GRDB's, all in one read (µs)", perFetch(result.grdbBest)), ("GRDB's, a read each (µs)", perFetch(grdbReadEach)),
      ])
  }

  /// The time to make the small fetches' predicates alone (`NSPredicate(format:)`, parsed at once, as
  /// Core Data parses it), without fetching.
  private static func makePredicates(_ thresholds: [Int64]) -> Double {
    var made: [NSPredicate] = []
    made.reserveCapacity(thresholds.count)
    return Stopwatch.seconds {
      for threshold in thresholds { made.append(NSPredicate(format: "count >= %lld", threshold)) }
      made.removeAll()
    }
  }

  private func engineSmallFetches(_ thresholds: [Int64]) throws -> (seconds: Double, rows: Int) {
    let coordinator = try objectGraph.openStore(at: engineURL)
    let context = objectGraph.makeContext(coordinator)
    var rows = 0
    var checksum = Checksum()
    let seconds = try Stopwatch.seconds {
      try context.performAndWait {
        for threshold in thresholds {
          let request = NSFetchRequest<BenchItem>(entityName: "Item")
          request.predicate = NSPredicate(format: "count >= %lld", threshold)
          request.fetchLimit = Self.smallFetchLimit
          for item in try context.fetch(request) {
            try ObjectGraphBench.typed(item, into: &checksum)
            rows += 1
          }
        }
      }
    }
    withExtendedLifetime(context) {}
    return (seconds, rows)
  }

  /// The same fetches through GRDB: all in one `read` (one transaction, the verdict's side), or, `readEach`,
  /// each in a `read` of its own, as an app's fetches made at different times are, and as each of the
  /// engine's fetches is.
  private func grdbSmallFetches(_ thresholds: [Int64], readEach: Bool) throws -> (seconds: Double, rows: Int) {
    let database = try GRDBBench().openDatabase(at: grdbURL)
    var rows = 0
    var checksum = Checksum()
    func fetch(_ db: GRDB.Database, _ threshold: Int64) throws {
      let cursor = try GRDB.Row.fetchCursor(
        db, sql: "SELECT name, count, score, createdAt FROM item WHERE count >= ? LIMIT ?",
        arguments: [threshold, Self.smallFetchLimit])
      while let row = try cursor.next() {
        checksum.add(
          name: row["name"], count: row["count"], score: row["score"],
          createdAt: Date(timeIntervalSinceReferenceDate: row["createdAt"]))
        rows += 1
      }
    }
    let seconds = try Stopwatch.seconds {
      if readEach {
        for threshold in thresholds { try database.read { db in try fetch(db, threshold) } }
      } else {
        try database.read { db in
          for threshold in thresholds { try fetch(db, threshold) }
        }
      }
    }
    return (seconds, rows)
  }

  // MARK: - Insert

  private func insertRow(repetitions: Int) throws -> Measured {
    var result = BenchmarkResult(name: "insert+save \(dataset.count)")
    var inserting = Double.infinity
    var saving = Double.infinity
    for run in 0..<repetitions {
      let engineFile = run == repetitions - 1 ? engineURL : folder.appendingPathComponent("idiomatic-objectgraph-\(run).sqlite")
      let grdbFile = run == repetitions - 1 ? grdbURL : folder.appendingPathComponent("idiomatic-grdb-\(run).sqlite")
      let (insert, save) = try engineInsert(at: engineFile)
      result.record(objectGraph: insert + save)
      inserting = min(inserting, insert)
      saving = min(saving, save)
      result.record(grdb: try grdbInsert(at: grdbFile))
    }
    let stored = try objectGraph.rowCount(at: engineURL)
    let grdbStored = try DatabaseQueue(path: grdbURL.path).read { try GRDBItem.fetchCount($0) }
    guard stored == dataset.count, grdbStored == dataset.count else {
      throw BenchmarkError(
        "idiomatic insert: the files hold \(stored) (ObjectGraph) and \(grdbStored) (GRDB) rows, expected \(dataset.count)")
    }
    return Measured(result: result, parts: [("the inserts (objects made, four properties set)", inserting), ("save()", saving)])
  }

  /// Inserts every row as a `BenchItem` with its typed properties, then saves; the two parts timed apart.
  private func engineInsert(at url: URL) throws -> (insert: Double, save: Double) {
    let coordinator = try objectGraph.openStore(at: url)
    let context = objectGraph.makeContext(coordinator)
    var insert = 0.0
    var save = 0.0
    let dataset = self.dataset
    try context.performAndWait {
      insert = Stopwatch.seconds {
        for index in 0..<dataset.count {
          let item = BenchItem(context: context)
          item.name = dataset.names[index]
          item.count = dataset.counts[index]
          item.score = dataset.scores[index]
          item.createdAt = dataset.dates[index]
        }
      }
      save = try Stopwatch.seconds { try context.save() }
    }
    withExtendedLifetime(context) {}
    return (insert, save)
  }

  /// Inserts every row as a `GRDBItem` record in one write.
  private func grdbInsert(at url: URL) throws -> Double {
    let database = try GRDBBench().openDatabase(at: url)
    try database.write { db in
      try db.create(table: "item") { table in
        table.column("name", .text).notNull()
        table.column("count", .integer).notNull()
        table.column("score", .double).notNull()
        table.column("createdAt", .double).notNull()
      }
    }
    let dataset = self.dataset
    return try Stopwatch.seconds {
      try database.write { db in
        for index in 0..<dataset.count {
          try GRDBItem(
            name: dataset.names[index], count: dataset.counts[index], score: dataset.scores[index],
            createdAt: dataset.dates[index]
          ).insert(db)
        }
      }
    }
  }

  // MARK: - Fetch

  private static let selectAll = "SELECT name, count, score, createdAt FROM item"
  private static let selectFiltered = "SELECT name, count, score, createdAt FROM item WHERE count >= ? AND score < ? ORDER BY name"

  private static func all() -> ObjectGraph.NSFetchRequest<BenchItem> { NSFetchRequest<BenchItem>(entityName: "Item") }

  /// A fetch row: the whole fetch-and-read on both sides, and the engine's fetch and reads apart.
  private func fetchRow(
    _ name: String, repetitions: Int, expected: Checksum, request: () throws -> ObjectGraph.NSFetchRequest<BenchItem>,
    read: (BenchItem, inout Checksum) throws -> Void, sql: String
  ) throws -> Measured {
    var result = BenchmarkResult(name: name)
    var fetching = Double.infinity
    var reading = Double.infinity
    let arguments: StatementArguments = sql == Self.selectAll ? [] : [Dataset.minimumCount, Dataset.maximumScore]
    for _ in 0..<repetitions {
      let whole = try engineFetch(try request(), read: read, split: false)
      let split = try engineFetch(try request(), read: read, split: true)
      let grdb = try grdbFetch(sql: sql, arguments: arguments)
      for (side, checksum) in [("ObjectGraph", whole.checksum), ("ObjectGraph in parts", split.checksum), ("GRDB", grdb.checksum)]
      where checksum != expected {
        throw BenchmarkError("\(name): \(side) read back \(checksum), expected \(expected)")
      }
      result.record(objectGraph: whole.fetch)
      fetching = min(fetching, split.fetch)
      reading = min(reading, split.reads)
      result.record(grdb: grdb.seconds)
    }
    return Measured(result: result, parts: [("the fetch (objects made, nothing read)", fetching), ("the reads", reading)])
  }

  /// Fetches in a context on a new coordinator; `split`: the fetch and the reads each with a clock (the
  /// reads' time then 0 in `fetch`), else one clock over both (in `fetch`).
  private func engineFetch(
    _ request: ObjectGraph.NSFetchRequest<BenchItem>, read: (BenchItem, inout Checksum) throws -> Void, split: Bool
  ) throws -> (fetch: Double, reads: Double, checksum: Checksum) {
    let coordinator = try objectGraph.openStore(at: engineURL)
    let context = objectGraph.makeContext(coordinator)
    var objects: [BenchItem] = []
    var checksum = Checksum()
    var fetch = 0.0
    var reads = 0.0
    try context.performAndWait {
      if split {
        fetch = try Stopwatch.seconds { objects = try context.fetch(request) }
        reads = try Stopwatch.seconds { for object in objects { try read(object, &checksum) } }
      } else {
        fetch = try Stopwatch.seconds {
          objects = try context.fetch(request)
          for object in objects { try read(object, &checksum) }
        }
      }
    }
    withExtendedLifetime((context, objects)) {}
    return (fetch, reads, checksum)
  }

  /// Reads the rows through a cursor with GRDB's named, typed subscripts.
  private func grdbFetch(sql: String, arguments: StatementArguments) throws -> (seconds: Double, checksum: Checksum) {
    let database = try GRDBBench().openDatabase(at: grdbURL)
    var checksum = Checksum()
    let seconds = try Stopwatch.seconds {
      try database.read { db in
        let rows = try GRDB.Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try rows.next() {
          checksum.add(
            name: row["name"], count: row["count"], score: row["score"],
            createdAt: Date(timeIntervalSinceReferenceDate: row["createdAt"]))
        }
      }
    }
    return (seconds, checksum)
  }
}
