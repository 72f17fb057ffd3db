import Foundation
import GRDB
import TestSupport
import Testing

// A chapter that quotes what a command printed marks the block `<!-- transcript: KIND -->`, and these
// tests run the command and compare. What cannot be the same from run to run (a store's UUID, the time a
// note was made) is compared by shape only: the block is marked `KIND, varies`.
//
// - `sqlite`: `sqlite> QUERY;` lines, each followed by the rows the sqlite3 shell prints (`|` between
//   columns; `.headers on` adds the column names from then on). The queries run, through SQLite, on the
//   store of a real `stage1-demo` run (the chapter's own command, with its default number of notes).
//   Dot commands other than `.headers` are not checked.
// - `sql-log`: the lines of `OBJECTGRAPH_SQL_DEBUG=1 stage1-demo --count 3`'s log that the chapter shows,
//   in the same order, with `…` standing for lines left out. Durations are not compared.
// - `concurrency-rules CASE [on]`: lines that `swift run concurrency-rules CASE` printed (standard output and
//   error together), with the debug switch on when the annotation says `on`; in the same order, `…` for
//   lines left out. What differs from run to run is masked on both sides: the UUID of a temporary ID or of
//   a store, a context's queue label, and the engine's source line a stop names.
// - `run PRODUCT ARGUMENTS`: lines that the built product printed (standard output and error together),
//   run from the repository's root folder as `swift run` is (so a chapter can name the repository's files
//   by relative paths), in the same order, `…` for lines left out, blank lines not compared; UUIDs are
//   masked on both sides (a chapter may shorten one to `…`). With `varies`, every number is masked too, so
//   only the shape of each line is compared; the run then imports at most 20,000 notes (a lower
//   `--count`), since its figures are not compared.
//
// The tests run at once, and the demos of `run` transcripts too: each demo makes its store in a folder of
// its own, and the children are awaited, not waited for, so that their seconds of waiting (a 60 Hz "UI",
// workers) leave the run's threads to other tests.

@Suite("Docs: quoted transcripts match real runs", .timeLimit(.minutes(3)), .temporaryFolders)
struct TranscriptTests {
  /// A marked block of a chapter.
  struct Transcript {
    let document: String
    let block: MarkdownDocument.CodeBlock
    let kind: String
    let varies: Bool
  }

  static func transcripts(_ kind: String) -> [Transcript] {
    Repository.documents.flatMap { path -> [Transcript] in
      guard let document = Repository.document(path) else { return [] }
      return document.codeBlocks.compactMap { block in
        guard case .transcript(let annotation)? = block.annotation else { return nil }
        let (found, varies) = parse(annotation)
        guard found == kind else { return nil }
        return Transcript(document: path, block: block, kind: kind, varies: varies)
      }
    }
  }

  /// `sqlite, varies` → ("sqlite", true); `concurrency-rules rule2 on` → ("concurrency-rules", false).
  static func parse(_ annotation: String) -> (kind: String, varies: Bool) {
    let parts = annotation.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    let kind = parts.first?.split(separator: " ").first.map(String.init) ?? ""
    return (kind, parts.dropFirst().contains("varies"))
  }

  /// The words after the kind: `concurrency-rules rule2 on` → ["rule2", "on"].
  static func arguments(_ annotation: String) -> [String] {
    let first = annotation.split(separator: ",").first ?? ""
    return first.split(separator: " ").dropFirst().map(String.init)
  }

  @Test("Every transcript names a kind these tests know")
  func kindsAreKnown() {
    for path in Repository.documents {
      guard let document = Repository.document(path) else { continue }
      for block in document.codeBlocks {
        guard case .transcript(let annotation)? = block.annotation else { continue }
        let kind = Self.parse(annotation).kind
        #expect(
          ["sqlite", "sql-log", "concurrency-rules", "run", "swiftc"].contains(kind),
          "\(path):\(block.fenceLine): unknown transcript kind '\(kind)'")
      }
    }
  }

  // MARK: - sqlite3 sessions

  @Test("Queries chapter 0 runs in sqlite3 print what it shows, on a store the demo just made")
  func sqliteSessions() async throws {
    let transcripts = Self.transcripts("sqlite")
    #expect(!transcripts.isEmpty)
    let folder = try TemporaryFolder()
    let run = try await ProcessOutput.runSuspending(
      try BuildProducts.requireExecutable("stage1-demo"), ["--store-folder", folder.url.path])
    #expect(run.status == 0, "stage1-demo failed: \(run.stderr)")
    let database = try DatabaseQueue(path: folder.appending("DataModel.sqlite").path)
    var headers = false
    for transcript in transcripts {
      for query in Self.queries(in: transcript.block.lines, headers: &headers) {
        let where_ = "\(transcript.document):\(transcript.block.fenceLine + 1 + query.line)"
        let printed = try await database.read { db in try Self.shellOutput(of: query.sql, headers: query.headers, in: db) }
        if transcript.varies {
          #expect(printed.count == query.expected.count, "\(where_): \(query.sql) printed \(printed)")
          for (real, quoted) in zip(printed, query.expected) {
            let realColumns: Int = real.split(separator: "|").count
            let quotedColumns: Int = quoted.split(separator: "|").count
            #expect(realColumns == quotedColumns, "\(where_): \(real) vs \(quoted)")
          }
        } else {
          #expect(printed == query.expected, "\(where_): \(query.sql)")
        }
      }
    }
  }

  /// A query of a transcript, the rows the chapter shows for it, and its line in the block (0-based).
  struct Query {
    let sql: String
    let headers: Bool
    let expected: [String]
    let line: Int
  }

  /// The `sqlite>` queries of a block, in order; `.headers on` and `.headers off` carry over to later blocks.
  static func queries(in lines: [String], headers: inout Bool) -> [Query] {
    var queries: [Query] = []
    var current: (sql: String, headers: Bool, line: Int)?
    var expected: [String] = []
    func finish() {
      if let current { queries.append(Query(sql: current.sql, headers: current.headers, expected: expected, line: current.line)) }
      current = nil
      expected = []
    }
    for (index, line) in lines.enumerated() {
      if line.hasPrefix("sqlite> ") {
        finish()
        let command = line.dropFirst("sqlite> ".count).trimmingCharacters(in: .whitespaces)
        if command == ".headers on" { headers = true }
        if command == ".headers off" { headers = false }
        if !command.hasPrefix(".") { current = (command, headers, index) }
        // `.schema TABLE`: the statements that made the table and its indexes, in the order they were made.
        if command.hasPrefix(".schema ") {
          let table = command.dropFirst(".schema ".count).trimmingCharacters(in: .whitespaces)
          current = (
            "SELECT sql || ';' FROM sqlite_master WHERE tbl_name = '\(table)' AND sql IS NOT NULL ORDER BY rowid", false, index
          )
        }
      } else if current != nil {
        expected.append(line)
      }
    }
    finish()
    return queries
  }

  /// What the sqlite3 shell prints for `sql` in its default (list) mode: one line per row, `|` between
  /// columns, NULL as nothing; with headers, the column names first.
  static func shellOutput(of sql: String, headers: Bool, in db: Database) throws -> [String] {
    let statement = try db.makeStatement(sql: sql)
    var lines: [String] = headers ? [statement.columnNames.joined(separator: "|")] : []
    let rows = try Row.fetchCursor(statement)
    while let row = try rows.next() {
      lines.append(
        row.databaseValues.map { value -> String in
          switch value.storage {
          case .null: return ""
          case .int64(let int): return String(int)
          case .double(let double): return String(double)
          case .string(let string): return string
          case .blob(let data): return String(decoding: data, as: UTF8.self)
          }
        }.joined(separator: "|"))
    }
    return lines
  }

  // MARK: - The SQL log

  @Test("The SQL log chapter 0 quotes is what the demo logs, in that order")
  func sqlLog() async throws {
    let transcripts = Self.transcripts("sql-log")
    #expect(!transcripts.isEmpty)
    let folder = try TemporaryFolder()
    let run = try await ProcessOutput.runSuspending(
      try BuildProducts.requireExecutable("stage1-demo"), ["--count", "3", "--store-folder", folder.url.path],
      environment: ["OBJECTGRAPH_SQL_DEBUG": "1"])
    #expect(run.status == 0, "stage1-demo failed: \(run.stderr)")
    let logged = run.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("ObjectGraph SQL:") }.map(Self.withoutDuration)
    for transcript in transcripts {
      let quoted = transcript.block.lines.filter { $0.trimmingCharacters(in: .whitespaces) != "…" }.map(Self.withoutDuration)
      #expect(
        Self.missing(quoted, from: logged) == nil,
        "\(transcript.document):\(transcript.block.fenceLine): \(Self.missing(quoted, from: logged) ?? "")")
    }
  }

  /// A log line without its duration: `… VALUES (?, ?) (<1 ms)` → `… VALUES (?, ?)`.
  static func withoutDuration(_ line: String) -> String {
    line.replacingOccurrences(of: #" \((<1|\d+) ms\)$"#, with: "", options: .regularExpression)
  }

  /// The first quoted line that does not come, in order, in `logged`; `nil` when all do.
  static func missing(_ quoted: [String], from logged: [String]) -> String? {
    var rest = logged[...]
    for line in quoted {
      guard let found = rest.firstIndex(of: line) else { return line }
      rest = rest[(found + 1)...]
    }
    return nil
  }

  // MARK: - The concurrency rules' programs

  @Test("What the concurrency rules page quotes is what `concurrency-rules` prints, the switch off or on")
  func concurrencyRules() async throws {
    let transcripts = Self.transcripts("concurrency-rules")
    #expect(transcripts.count >= 4)
    let program = try BuildProducts.requireExecutable("concurrency-rules")
    for transcript in transcripts {
      guard case .transcript(let annotation)? = transcript.block.annotation else { continue }
      let words = Self.arguments(annotation)
      let place = "\(transcript.document):\(transcript.block.fenceLine)"
      guard let name = words.first else {
        Issue.record("\(place): the annotation names no case of concurrency-rules")
        continue
      }
      let switchOn = words.dropFirst().contains("on")
      let run = try await ProcessOutput.runSuspending(
        program, switchOn ? [name, "-com.apple.CoreData.ConcurrencyDebug", "1"] : [name], environment: ["SWIFT_BACKTRACE": "enable=no"])
      let printed = (run.stdout + run.stderr).split(separator: "\n").map { Self.masked(String($0)) }
      let quoted = transcript.block.lines.filter { $0.trimmingCharacters(in: .whitespaces) != "…" }.map(Self.masked)
      #expect(
        Self.missing(quoted, from: printed) == nil,
        "\(place): not printed by `concurrency-rules \(words.joined(separator: " "))`: \(Self.missing(quoted, from: printed) ?? "")")
      if printed.contains(where: { $0.contains("Fatal error") }) {
        #expect(run.status != 0, "\(place): the program went on after the stop")
      }
    }
  }

  /// A line with what differs between runs masked: `t3F2…-2` temporary IDs, a store's UUID in a
  /// permanent ID, queue labels, source lines.
  static func masked(_ line: String) -> String {
    // The UUIDs (of a temporary ID, of a store) as a demo's run masks them.
    maskedRun(line, varies: false)
      .replacingOccurrences(of: #"org\.objectgraph\.context\.[0-9A-F]+"#, with: "org.objectgraph.context.…", options: .regularExpression)
      .replacingOccurrences(of: #"ConcurrencyDebug\.swift:\d+"#, with: "ConcurrencyDebug.swift:…", options: .regularExpression)
  }

  // MARK: - The demos

  @Test("What the chapters quote of a demo's run is what the demo prints (its shape, where figures vary)")
  func demoRuns() async throws {
    let transcripts = Self.transcripts("run")
    #expect(transcripts.count >= 5)
    // Each transcript's place and command (product and arguments), `nil` when its annotation names no product.
    let commands: [(place: String, key: [String]?)] = transcripts.map { transcript in
      let place = "\(transcript.document):\(transcript.block.fenceLine)"
      guard case .transcript(let annotation)? = transcript.block.annotation, let product = Self.arguments(annotation).first else {
        return (place, nil)
      }
      return (place, [product] + Self.runArguments(Array(Self.arguments(annotation).dropFirst()), varies: transcript.varies))
    }
    // Each command runs once. A command that names a repository file (a store `objectgraph` inspects) must
    // leave no SQLite side file beside it: those run one at a time, after the others, so that the check sees
    // no other run's. The others (the demos, each with its own store) run all at once.
    var distinct: [[String]] = []
    for case let (_, key?) in commands where !distinct.contains(key) { distinct.append(key) }
    let repositoryFiles = { (key: [String]) in
      key.dropFirst().filter { FileManager.default.fileExists(atPath: Repository.root.appendingPathComponent($0).path) }
    }
    let run = { @Sendable (key: [String]) async throws -> String in
      let output = try await ProcessOutput.runSuspending(
        try BuildProducts.requireExecutable(key[0]), Array(key.dropFirst()), currentDirectory: Repository.root)
      return output.stdout + output.stderr
    }
    let together = distinct.filter { repositoryFiles($0).isEmpty }
    var runs = Dictionary(uniqueKeysWithValues: zip(together, try await Lanes.map(together, lanes: max(together.count, 1), run)))
    for key in distinct where !repositoryFiles(key).isEmpty {
      runs[key] = try await run(key)
      for file in repositoryFiles(key) {
        for suffix in ["-wal", "-shm"] {
          let side = Repository.root.appendingPathComponent(file + suffix).path
          let place = commands.first { $0.key == key }?.place ?? ""
          #expect(!FileManager.default.fileExists(atPath: side), "\(place): `\(key.joined(separator: " "))` left \(side)")
        }
      }
    }
    for (transcript, (place, key)) in zip(transcripts, commands) {
      guard let key else {
        Issue.record("\(place): the annotation names no product to run")
        continue
      }
      let printed = (runs[key] ?? "").split(separator: "\n").map { Self.maskedRun(String($0), varies: transcript.varies) }
      // Blank lines are not compared: `printed` has none.
      let quoted = transcript.block.lines.filter { !["…", ""].contains($0.trimmingCharacters(in: .whitespaces)) }.map {
        Self.maskedRun($0, varies: transcript.varies)
      }
      #expect(
        Self.missing(quoted, from: printed) == nil,
        "\(place): not printed by `\(key.joined(separator: " "))`: \(Self.missing(quoted, from: printed) ?? "")")
    }
  }

  /// The arguments a `run` transcript runs with: its own, with `--count` at most 20,000 when it `varies`.
  static func runArguments(_ arguments: [String], varies: Bool) -> [String] {
    guard varies, let index = arguments.firstIndex(of: "--count"), index + 1 < arguments.count,
      let count = Int(arguments[index + 1]), count > 20_000
    else { return arguments }
    var lowered = arguments
    lowered[index + 1] = "20000"
    return lowered
  }

  /// A line of a demo's output with its UUIDs as `…` and, when it `varies`, its numbers as `#` (and the
  /// plural of a counted word as its singular).
  static func maskedRun(_ line: String, varies: Bool) -> String {
    let uuids = line.replacingOccurrences(
      of: #"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}"#, with: "…", options: .regularExpression)
    guard varies else { return uuids }
    // A count of 1 reads "1 frame", of any other number "N frames": the same shape.
    return uuids.replacingOccurrences(of: #"[0-9]+(\.[0-9]+)?"#, with: "#", options: .regularExpression)
      .replacingOccurrences(of: #"\b(frame|save|note|time|batch)e?s\b"#, with: "$1", options: .regularExpression)
  }

  @Test("The comparisons themselves: a shell line per row, headers, and lines in order")
  func comparisons() throws {
    var headers = false
    let queries = Self.queries(
      in: ["sqlite> .headers on", "sqlite> SELECT 1 AS one, 'a' AS two;", "one|two", "1|a", "sqlite> .tables", "X  Y"], headers: &headers)
    #expect(queries.count == 1 && queries[0].headers && queries[0].expected == ["one|two", "1|a"])
    let printed = try DatabaseQueue().read { db in try Self.shellOutput(of: queries[0].sql, headers: true, in: db) }
    #expect(printed == ["one|two", "1|a"])
    #expect(Self.missing(["a", "c"], from: ["a", "b", "c"]) == nil)
    #expect(Self.missing(["c", "a"], from: ["a", "b", "c"]) == "a")
    #expect(Self.withoutDuration("ObjectGraph SQL: COMMIT TRANSACTION (12 ms)") == "ObjectGraph SQL: COMMIT TRANSACTION")
    #expect(
      Self.masked(
        "x.swift: ConcurrencyDebug.swift:214: <x-coredata:///Note/tED346921-4D3B-4DAD-A572-E429218EB5E4-2> 'org.objectgraph.context.5C40EDD9'"
      )
        == "x.swift: ConcurrencyDebug.swift:…: <x-coredata:///Note/t…-2> 'org.objectgraph.context.…'")
    #expect(Self.arguments("concurrency-rules rule2 on") == ["rule2", "on"])
    #expect(Self.runArguments(["--count", "1000000"], varies: true) == ["--count", "20000"])
    #expect(Self.runArguments(["--count", "1000000"], varies: false) == ["--count", "1000000"])
    #expect(
      Self.maskedRun("took 3.91 ms at /tmp/d-90850957-A03F-4125-A72D-FD98C4A785F9/a (1000000 notes)", varies: true)
        == "took # ms at /tmp/d-…/a (# note)")
    #expect(Self.maskedRun("1 frame missed, 13 frames missed, 2 batches", varies: true) == "# frame missed, # frame missed, # batch")
    #expect(Self.parse("concurrency-rules rule2 on").kind == "concurrency-rules")
  }
}
