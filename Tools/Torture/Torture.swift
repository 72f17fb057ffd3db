// objectgraph-torture: harnesses that try to make ObjectGraph lose data, and check that it does not.
//
//   swift run objectgraph-torture crash --trials 500          # kill a saving process, check the store
//   swift run objectgraph-torture crash --journal delete      # the same with SQLite's rollback journal
//   swift run objectgraph-torture creation --trials 100       # kill a process while it creates a store
//   swift run objectgraph-torture side-files --trials 20      # -wal files beside the wrong store, pipes at side files
//
// Docs/ObjectGraph.md's "Reliability: trying to lose data" says how CI runs it (short) and how to run the long versions.
import ArgumentParser
import DemoSupport
import Foundation
import NotesModel
import ObjectGraph

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@main
struct Torture: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "objectgraph-torture",
    abstract: "Try to make ObjectGraph lose data or hold too much: crash trials, two processes on one store, memory.",
    subcommands: [
      Crash.self, Creation.self, SideFiles.self, TwoProcesses.self, TwoVersions.self, OldWriter.self, Memory.self, Child.self,
      Create.self, Counter.self, Verify.self, OpenStore.self, RemoteChange.self, HistoryWriter.self,
      QueryGenerations.self,
    ])
}

/// The journal modes a store may use (`journal_mode` in the store option `NSSQLitePragmasOption`).
enum JournalMode: String, ExpressibleByArgument, CaseIterable {
  case wal, delete, both

  var modes: [String] { self == .both ? ["WAL", "DELETE"] : [rawValue.uppercased()] }

  /// Runs `trial` once per journal mode named, each on `Shared.sqlite` in a new temporary folder named after
  /// `name` (removed after); throws `ExitCode.failure` when any trial failed (returned `true`).
  func runTrials(named name: String, _ trial: (_ store: URL, _ journalMode: String) throws -> Bool) throws {
    var failed = false
    for mode in modes {
      let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: folder) }
      failed = try trial(folder.appendingPathComponent("Shared.sqlite"), mode) || failed
    }
    if failed { throw ExitCode.failure }
  }
}

struct Crash: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Kill a process while it saves numbered batches, then check the store it leaves.",
    discussion: """
      Each trial starts a child that saves batches through a context in a loop, each batch one save that \
      inserts, updates, deletes and moves a note. After a random number of saves (and a random few \
      milliseconds more, so that the kill often lands inside a save), the child gets SIGKILL. The store \
      must then hold every batch whose save returned, whole, and no batch in part; it must pass \
      PRAGMA integrity_check and open through ObjectGraph; Z_PRIMARYKEY must be past every key in use, \
      and each row's Z_OPT must count the saves that wrote it. A failed trial keeps its store and prints \
      its seed.
      """)

  @Option(help: "How many trials (spread over the journal modes).")
  var trials = 20

  @Option(help: "The journal mode: wal (Core Data's default), delete, or both.")
  var journal: JournalMode = .both

  @Option(help: "The most saves a child makes before its kill (the kill comes after 0 to this many).")
  var maxBatches = 40

  @Option(help: "The seed of the random kills (default: a new one, printed).")
  var seed: UInt64?

  func run() throws {
    let seed = seed ?? UInt64.random(in: 1..<UInt64(Int32.max))
    var generator = SeededGenerator(seed: seed)
    print("crash trials: \(trials), journal \(journal.modes.joined(separator: " and ")), seed \(seed)")
    var failures = 0
    var acknowledgedTotal = 0
    var committedUnacknowledged = 0
    var killedBeforeFirstSave = 0
    let start = Date()
    for trial in 1...max(1, trials) {
      let mode = journal.modes[(trial - 1) % journal.modes.count]
      // One trial in ten is killed before its first save can return (while the store is being made).
      let saves = Int.random(in: 0..<10, using: &generator) == 0 ? 0 : Int.random(in: 1...max(1, maxBatches), using: &generator)
      let extraMicroseconds = UInt32.random(in: 0...15_000, using: &generator)
      let result = try CrashTrial(journalMode: mode, killAfterSaves: saves, extraMicroseconds: extraMicroseconds).run()
      acknowledgedTotal += result.acknowledged
      if result.outcome.lastBatch == result.acknowledged + 1 { committedUnacknowledged += 1 }
      if result.acknowledged == 0 { killedBeforeFirstSave += 1 }
      if result.outcome.problems.isEmpty {
        try? FileManager.default.removeItem(at: result.folder)
      } else {
        failures += 1
        print("trial \(trial) FAILED (\(mode), killed after \(result.acknowledged) saves): store kept at \(result.folder.path)")
        for problem in result.outcome.problems { print("  - \(problem)") }
      }
    }
    let seconds = Date().timeIntervalSince(start)
    print(
      """
      \(trials) trials in \(String(format: "%.1f", seconds)) s: \(acknowledgedTotal) saves returned before the kills\
      \(failures == 0 ? ", all found whole" : ""); \(committedUnacknowledged) kills landed after a commit and before \
      its "saved" line; \(killedBeforeFirstSave) before the first save returned; \(failures) failed trials.
      """)
    if failures > 0 {
      print("Replay: swift run objectgraph-torture crash --trials \(trials) --journal \(journal.rawValue) --seed \(seed)")
      throw ExitCode.failure
    }
  }
}

/// One trial: a child saving batches, a kill, a check.
struct CrashTrial {
  let journalMode: String
  let killAfterSaves: Int
  let extraMicroseconds: UInt32
  /// Whether to check the store after the kill (opening it folds its -wal in); without, the files are left
  /// as the kill left them and the outcome is empty.
  var verifies = true

  struct Result {
    var folder: URL
    var acknowledged: Int
    var outcome: StoreVerifier.Outcome
  }

  func run() throws -> Result {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-torture-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let store = folder.appendingPathComponent("Torture.sqlite")
    let child = TutorialStore.child(["child", "--store", store.path, "--journal-mode", journalMode])
    let pipe = Pipe()
    child.standardOutput = pipe
    try child.run()

    // Read "saved k" lines until enough saves returned (or the child ended), then kill. A kill after no
    // save at all comes a moment after the start, while the child loads the model or makes the store.
    let reader = pipe.fileHandleForReading
    var pending = Data()
    var acknowledged = 0
    var killed = false
    if killAfterSaves == 0 {
      usleep(extraMicroseconds * 4)
      kill(child.processIdentifier, SIGKILL)
      killed = true
    }
    while true {
      let data = reader.availableData
      if data.isEmpty { break }  // the child closed its output: it ended
      pending.append(data)
      while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
        pending.removeSubrange(pending.startIndex...newline)
        if line.hasPrefix("saved "), let batch = Int(line.dropFirst("saved ".count)) { acknowledged = batch }
      }
      if !killed && acknowledged >= killAfterSaves {
        usleep(extraMicroseconds)
        kill(child.processIdentifier, SIGKILL)
        killed = true
      }
    }
    child.waitUntilExit()
    let outcome =
      verifies ? StoreVerifier(storeURL: store, acknowledged: acknowledged, journalMode: journalMode).verify() : StoreVerifier.Outcome()
    return Result(folder: folder, acknowledged: acknowledged, outcome: outcome)
  }
}

/// The child: saves batches 1, 2, 3… through a private-queue context, printing "saved k" after each save
/// returns, until it is killed (or reaches --limit).
struct Child: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "The process a crash trial kills (not for direct use).", shouldDisplay: false)

  @Option var store: String
  @Option var journalMode = "WAL"
  @Option var limit = 100_000

  func run() throws {
    let context = try TutorialStore.context(store: URL(fileURLWithPath: store), journalMode: journalMode)
    say("ready")
    for batch in 1...limit {
      try context.performAndWait {
        try Workload.apply(batch: batch, in: context)
        try context.save()
        if batch % 50 == 0 { context.reset() }
      }
      say("saved \(batch)")
    }
  }
}

/// Writes a line to standard output at once (one write(2), no buffer a kill could lose).
private func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Checks a store against a number of acknowledged batches: for the tests, and for a store a failed
/// trial kept.
struct Verify: ParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Check a store a crash trial left (exit status 1 on a problem).")

  @Option var store: String
  @Option(help: "The last batch whose save returned.")
  var acknowledged: Int
  @Option var journalMode = "WAL"

  func run() throws {
    let outcome = StoreVerifier(
      storeURL: URL(fileURLWithPath: store), acknowledged: acknowledged, journalMode: journalMode
    ).verify()
    print("last batch in the store: \(outcome.lastBatch)")
    for problem in outcome.problems { print("  - \(problem)") }
    if !outcome.problems.isEmpty { throw ExitCode.failure }
  }
}
