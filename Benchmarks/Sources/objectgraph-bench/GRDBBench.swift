import Foundation
import GRDB

/// The baseline: what a careful hand-written GRDB program does for the same work.
///
/// Connection settings match ObjectGraph's store: a `DatabaseQueue` (one connection), `PRAGMA
/// journal_mode = WAL`, and SQLite's default `synchronous` (not set: in WAL mode that is the build's
/// default, the same one ObjectGraph gets, since it sets no `synchronous` pragma either). Dates are stored
/// as `timeIntervalSinceReferenceDate` REALs and read back into `Date`s, as ObjectGraph does.
struct GRDBBench {
  /// A `DatabaseQueue` on `url` with the settings above.
  func openDatabase(at url: URL) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.label = "objectgraph-bench.grdb"
    configuration.prepareDatabase { db in
      try db.execute(sql: "PRAGMA journal_mode = WAL")
    }
    return try DatabaseQueue(path: url.path, configuration: configuration)
  }

  /// Times: one transaction inserting every row with one prepared statement.
  func insert(_ dataset: Dataset, at url: URL) throws -> Double {
    let database = try openDatabase(at: url)
    try database.write { db in
      try db.execute(sql: "CREATE TABLE item (name TEXT, count INTEGER, score REAL, createdAt REAL)")
    }
    return try Stopwatch.seconds {
      try database.write { db in
        let statement = try db.makeStatement(sql: "INSERT INTO item (name, count, score, createdAt) VALUES (?, ?, ?, ?)")
        for index in 0..<dataset.count {
          try statement.execute(arguments: [
            dataset.names[index], dataset.counts[index], dataset.scores[index],
            dataset.dates[index].timeIntervalSinceReferenceDate,
          ])
        }
      }
    }
  }

  /// Times: read every row's four columns through a cursor.
  func fetchAll(at url: URL) throws -> (seconds: Double, checksum: Checksum) {
    try timedRead(at: url, sql: "SELECT name, count, score, createdAt FROM item", arguments: [])
  }

  /// Times: the predicate fetch's SQL equivalent, reading the four columns of each row.
  func fetchFiltered(at url: URL) throws -> (seconds: Double, checksum: Checksum) {
    try timedRead(
      at: url, sql: "SELECT name, count, score, createdAt FROM item WHERE count >= ? AND score < ? ORDER BY name",
      arguments: [Dataset.minimumCount, Dataset.maximumScore])
  }

  private func timedRead(at url: URL, sql: String, arguments: StatementArguments) throws -> (seconds: Double, checksum: Checksum) {
    let database = try openDatabase(at: url)
    var checksum = Checksum()
    let seconds = try Stopwatch.seconds {
      try database.read { db in
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try rows.next() {
          let name: String = row[0]
          let count: Int64 = row[1]
          let score: Double = row[2]
          let createdAt = Date(timeIntervalSinceReferenceDate: row[3])
          checksum.add(name: name, count: count, score: score, createdAt: createdAt)
        }
      }
    }
    return (seconds, checksum)
  }

  /// Rows in the `item` table (not timed).
  func rowCount(at url: URL) throws -> Int {
    try openDatabase(at: url).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") ?? 0 }
  }
}
