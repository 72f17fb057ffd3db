import Foundation
import GRDB
import ObjectGraph

/// Dictionary fetches (`resultType = .dictionaryResultType`: no objects, one dictionary per row or group)
/// against the same `SELECT` run through GRDB, reading the same values.
///
/// The rows are the dataset's `Item`s with one more attribute, `category` (String): `"category-"` and
/// `count % 16` in two digits, so 16 groups of about N / 16 rows. Both files are made once, before any
/// clock starts (the engine's by a batch insert request, GRDB's by its prepared insert into a plain table
/// `(name, count, score, createdAt, category)`), and closed, so their WALs are checkpointed into the files;
/// every measurement opens its file afresh (coordinator and context, or `DatabaseQueue`) before its clock
/// starts. Neither side has an index: both scan the table.
///
/// - grouped: `propertiesToFetch` = `category` and the `NSExpressionDescription`s `count:(name)`,
///   `sum:(count)` and `average:(score)`, `propertiesToGroupBy` = `category`, sorted by `category`; GRDB:
///   `SELECT category, COUNT(name), SUM(count), AVG(score) FROM item GROUP BY category ORDER BY category`.
/// - two attributes: `propertiesToFetch` = `name` and `count` of every row, as `[String: Any]` and as
///   `NSDictionary`; GRDB: `SELECT name, count FROM item`.
///
/// The clock covers the fetch and reading every value out of the results (`row["name"] as? String`, ...),
/// as GRDB's side reads each row's columns into Swift values through a cursor. Every result is checked
/// against what the generated rows give.
struct DictionaryBench {
  /// How many categories the rows fall into.
  static let categories: Int64 = 16

  /// One group of the grouped fetch.
  struct Group: Equatable, CustomStringConvertible {
    var category: String
    var rows: Int64
    var total: Int64
    var mean: Double

    var description: String { "\(category): \(rows) rows, total \(total), mean \(mean)" }

    /// Equal, but for the last bits of the mean (a sum of doubles in another order).
    func matches(_ other: Group) -> Bool {
      category == other.category && rows == other.rows && total == other.total
        && abs(mean - other.mean) <= 1e-9 * max(1, abs(mean))
    }
  }

  /// What reading `name` and `count` of many rows gives: order-independent sums.
  struct PairChecksum: Equatable, CustomStringConvertible {
    var rows = 0
    var nameBytes = 0
    var countSum: Int64 = 0

    mutating func add(name: String, count: Int64) {
      rows += 1
      nameBytes &+= name.utf8.count
      countSum &+= count
    }

    var description: String { "\(rows) rows (name bytes \(nameBytes), count sum \(countSum))" }
  }

  let dataset: Dataset
  let folder: URL
  let model: NSManagedObjectModel
  private let grdb = GRDBBench()

  var engineURL: URL { folder.appendingPathComponent("dictionary-objectgraph.sqlite") }
  var grdbURL: URL { folder.appendingPathComponent("dictionary-grdb.sqlite") }

  init(dataset: Dataset, folder: URL) throws {
    self.dataset = dataset
    self.folder = folder
    let item = NSEntityDescription(
      name: "Item",
      properties: [
        NSAttributeDescription(name: "name", type: .string, isOptional: false),
        NSAttributeDescription(name: "count", type: .integer64, isOptional: false),
        NSAttributeDescription(name: "score", type: .double, isOptional: false),
        NSAttributeDescription(name: "createdAt", type: .date, isOptional: false),
        NSAttributeDescription(name: "category", type: .string, isOptional: false),
      ])
    model = try NSManagedObjectModel(entities: [item])
  }

  static func category(_ count: Int64) -> String {
    let number = count % categories
    return "category-" + (number < 10 ? "0" : "") + String(number)
  }

  // MARK: - The files and the expected results (not timed)

  /// Makes both files, each holding the dataset's rows with their categories.
  func makeStores() throws {
    var rows = ObjectGraphBench.dictionaries(dataset)
    for index in rows.indices { rows[index]["category"] = Self.category(dataset.counts[index]) }
    try ObjectGraphBench.makeStore(model: model, entityName: "Item", rows: rows, at: engineURL)

    let database = try grdb.openDatabase(at: grdbURL)
    try database.write { db in
      try db.execute(sql: "CREATE TABLE item (name TEXT, count INTEGER, score REAL, createdAt REAL, category TEXT)")
      let statement = try db.makeStatement(
        sql: "INSERT INTO item (name, count, score, createdAt, category) VALUES (?, ?, ?, ?, ?)")
      for index in 0..<dataset.count {
        try statement.execute(arguments: [
          dataset.names[index], dataset.counts[index], dataset.scores[index],
          dataset.dates[index].timeIntervalSinceReferenceDate, Self.category(dataset.counts[index]),
        ])
      }
    }
    try database.close()
    try expectCheckpointed([engineURL, grdbURL])
  }

  /// The groups the generated rows make, by category.
  var expectedGroups: [Group] {
    var groups: [String: Group] = [:]
    for index in 0..<dataset.count {
      let category = Self.category(dataset.counts[index])
      var group = groups[category] ?? Group(category: category, rows: 0, total: 0, mean: 0)
      group.rows += 1
      group.total += dataset.counts[index]
      group.mean += dataset.scores[index]  // the sum of the scores until divided below
      groups[category] = group
    }
    return groups.keys.sorted().compactMap { category in
      groups[category].map { Group(category: category, rows: $0.rows, total: $0.total, mean: $0.mean / Double($0.rows)) }
    }
  }

  /// What reading every row's name and count gives.
  var expectedPairs: PairChecksum {
    var checksum = PairChecksum()
    for index in 0..<dataset.count { checksum.add(name: dataset.names[index], count: dataset.counts[index]) }
    return checksum
  }

  // MARK: - The measurements

  /// The three measurements, best of `repetitions` runs each, ObjectGraph then GRDB in each run.
  /// The table's rows, and the shortest time the read loop alone took on each dictionary type (the casts
  /// of the values an app makes, `as? String` and `as? Int64` of an `NSNumber`): the part of the engine's
  /// time that is not the engine's.
  struct Results {
    var rows: [BenchmarkResult]
    var readingPlain = Double.infinity
    var readingBridged = Double.infinity
  }

  func run(repetitions: Int) throws -> Results {
    var measured = Results(rows: [])
    let groups = expectedGroups
    let pairs = expectedPairs
    var grouped = BenchmarkResult(name: "grouped: count/sum/average, \(groups.count) groups of \(dataset.count) rows")
    var plain = BenchmarkResult(name: "name, count of \(dataset.count) rows as [String: Any]")
    var bridged = BenchmarkResult(name: "name, count of \(dataset.count) rows as NSDictionary")
    for _ in 0..<repetitions {
      let (engineSeconds, engineGroups) = try engineGrouped()
      let (grdbSeconds, grdbGroups) = try grdbGrouped()
      try check("grouped", engineGroups, grdbGroups, expected: groups)
      grouped.record(objectGraph: engineSeconds)
      grouped.record(grdb: grdbSeconds)

      let (plainSeconds, plainReading, plainSum) = try enginePairs(NSFetchRequest<[String: Any]>(entityName: "Item")) { row in
        (row["name"] as? String, row["count"] as? Int64)
      }
      measured.readingPlain = min(measured.readingPlain, plainReading)
      let (grdbPlainSeconds, grdbPlainSum) = try grdbPairs()
      try check("name, count as [String: Any]", plainSum, grdbPlainSum, expected: pairs)
      plain.record(objectGraph: plainSeconds)
      plain.record(grdb: grdbPlainSeconds)

      let (bridgedSeconds, bridgedReading, bridgedSum) = try enginePairs(NSFetchRequest<NSDictionary>(entityName: "Item")) { row in
        (row["name"] as? String, row["count"] as? Int64)
      }
      measured.readingBridged = min(measured.readingBridged, bridgedReading)
      let (grdbBridgedSeconds, grdbBridgedSum) = try grdbPairs()
      try check("name, count as NSDictionary", bridgedSum, grdbBridgedSum, expected: pairs)
      bridged.record(objectGraph: bridgedSeconds)
      bridged.record(grdb: grdbBridgedSeconds)
    }
    measured.rows = [grouped, plain, bridged]
    return measured
  }

  private func expression(_ name: String, _ function: String, _ keyPath: String) -> NSExpressionDescription {
    NSExpressionDescription(
      name: name, expression: NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: keyPath)]))
  }

  /// Times: the grouped dictionary fetch, reading each group's four values.
  private func engineGrouped() throws -> (seconds: Double, groups: [Group]) {
    let coordinator = try ObjectGraphBench.openStore(model: model, at: engineURL)
    let context = ObjectGraphBench.makeContext(coordinator)
    let request = NSFetchRequest<NSDictionary>(entityName: "Item")
    request.resultType = .dictionaryResultType
    request.propertiesToFetch = [
      "category", expression("rows", "count:", "name"), expression("total", "sum:", "count"),
      expression("mean", "average:", "score"),
    ]
    request.propertiesToGroupBy = ["category"]
    request.sortDescriptors = [NSSortDescriptor(key: "category", ascending: true)]
    var rows: [NSDictionary] = []
    var groups: [Group] = []
    let seconds = try Stopwatch.seconds {
      try context.performAndWait {
        rows = try context.fetch(request)
        for row in rows {
          guard let category = row["category"] as? String, let count = row["rows"] as? Int64,
            let total = row["total"] as? Int64, let mean = row["mean"] as? Double
          else {
            throw BenchmarkError("ObjectGraph returned a group with a missing or mistyped value: \(row)")
          }
          groups.append(Group(category: category, rows: count, total: total, mean: mean))
        }
      }
    }
    withExtendedLifetime((context, rows)) {}
    return (seconds, groups)
  }

  /// Times: the same `GROUP BY` through GRDB, reading each group's four columns.
  private func grdbGrouped() throws -> (seconds: Double, groups: [Group]) {
    let database = try grdb.openDatabase(at: grdbURL)
    var groups: [Group] = []
    let seconds = try Stopwatch.seconds {
      try database.read { db in
        let rows = try Row.fetchCursor(
          db, sql: "SELECT category, COUNT(name), SUM(count), AVG(score) FROM item GROUP BY category ORDER BY category")
        while let row = try rows.next() {
          groups.append(Group(category: row[0], rows: row[1], total: row[2], mean: row[3]))
        }
      }
    }
    return (seconds, groups)
  }

  /// Times: a dictionary fetch of every row's `name` and `count`, reading both out of each result; and,
  /// inside that time, the reading alone.
  private func enginePairs<Result: NSFetchRequestResult>(
    _ request: ObjectGraph.NSFetchRequest<Result>, read: (Result) -> (name: String?, count: Int64?)
  ) throws -> (seconds: Double, reading: Double, checksum: PairChecksum) {
    let coordinator = try ObjectGraphBench.openStore(model: model, at: engineURL)
    let context = ObjectGraphBench.makeContext(coordinator)
    request.resultType = .dictionaryResultType
    request.propertiesToFetch = ["name", "count"]
    var rows: [Result] = []
    var checksum = PairChecksum()
    var reading = 0.0
    let seconds = try Stopwatch.seconds {
      try context.performAndWait {
        rows = try context.fetch(request)
        reading = try Stopwatch.seconds {
          for row in rows {
            guard case (let name?, let count?) = read(row) else {
              throw BenchmarkError("ObjectGraph returned a dictionary with a missing or mistyped value: \(row)")
            }
            checksum.add(name: name, count: count)
          }
        }
      }
    }
    withExtendedLifetime((context, rows)) {}
    return (seconds, reading, checksum)
  }

  /// Times: `SELECT name, count` of every row through a GRDB cursor, reading both columns.
  private func grdbPairs() throws -> (seconds: Double, checksum: PairChecksum) {
    let database = try grdb.openDatabase(at: grdbURL)
    var checksum = PairChecksum()
    let seconds = try Stopwatch.seconds {
      try database.read { db in
        let rows = try Row.fetchCursor(db, sql: "SELECT name, count FROM item")
        while let row = try rows.next() {
          checksum.add(name: row[0], count: row[1])
        }
      }
    }
    return (seconds, checksum)
  }

  private func check(_ what: String, _ objectGraph: [Group], _ grdb: [Group], expected: [Group]) throws {
    func same(_ groups: [Group]) -> Bool {
      groups.count == expected.count && zip(groups, expected).allSatisfy { $0.matches($1) }
    }
    guard same(objectGraph) else { throw BenchmarkError("\(what): ObjectGraph read \(objectGraph), expected \(expected)") }
    guard same(grdb) else { throw BenchmarkError("\(what): GRDB read \(grdb), expected \(expected)") }
  }

  private func check(_ what: String, _ objectGraph: PairChecksum, _ grdb: PairChecksum, expected: PairChecksum) throws {
    guard objectGraph == expected else { throw BenchmarkError("\(what): ObjectGraph read \(objectGraph), expected \(expected)") }
    guard grdb == expected else { throw BenchmarkError("\(what): GRDB read \(grdb), expected \(expected)") }
  }
}
