import ArgumentParser
import DemoSupport
import Foundation
import ObjectGraph

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Kills a process while it makes a new store (the first launch), then opens what it left as the next
/// launch would: every such file must open (the creation finished or started again), never be refused.
struct Creation: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Kill a process while it creates a store, then check that the engine opens what it left.",
    discussion: """
      A child loads the model, prints "creating", adds a store at a new path and prints how long that \
      took. A few unkilled runs measure that time; each trial then kills its child at a random moment \
      within it (from the "creating" line to 1.2 times the time measured), so that the kills are spread \
      over the store's creation: before the file exists, with an empty file, with tables but no metadata \
      yet, while turning WAL on. The engine then opens the store first, as the app's next launch does, and \
      the crash checker's other checks run on it (integrity_check, the key counters). A failed trial keeps \
      its store and prints its seed.
      """)

  @Option(help: "How many trials (spread over the journal modes).")
  var trials = 100

  @Option(help: "The journal mode: wal (Core Data's default), delete, or both.")
  var journal: JournalMode = .both

  @Option(help: "The seed of the random kills (default: a new one, printed).")
  var seed: UInt64?

  @Option(
    help:
      "Fail unless at least this fraction of the kills land while the file is being made (0 to 1; default 0). On a busy machine the timing is noisy, so only a run on a quiet one should ask for it."
  )
  var requireInside = 0.0

  func run() throws {
    let seed = seed ?? UInt64.random(in: 1..<UInt64(Int32.max))
    var generator = SeededGenerator(seed: seed)
    var window: [String: UInt32] = [:]
    for mode in journal.modes {
      let runs = try (0..<3).map { _ in try CreationTrial(journalMode: mode, killAfterMicroseconds: nil).run().microseconds }
      window[mode] = max(1, runs.min() ?? 1)  // the quickest: a slow first run would put most kills after the end
    }
    print(
      "creation trials: \(trials), journal \(journal.modes.joined(separator: " and ")), seed \(seed); creating a store takes "
        + journal.modes.map { "\($0) \(window[$0] ?? 0) µs" }.joined(separator: ", "))
    var failures = 0
    var states: [CreationTrial.FileState: Int] = [:]
    let start = Date()
    for trial in 1...max(1, trials) {
      let mode = journal.modes[(trial - 1) % journal.modes.count]
      let delay = UInt32.random(in: 0...((window[mode] ?? 1) * 6 / 5), using: &generator)
      let result = try CreationTrial(journalMode: mode, killAfterMicroseconds: delay).run()
      states[result.state, default: 0] += 1
      if result.outcome.problems.isEmpty {
        try? FileManager.default.removeItem(at: result.folder)
      } else {
        failures += 1
        print("trial \(trial) FAILED (\(mode), killed \(delay) µs into the creation): store kept at \(result.folder.path)")
        for problem in result.outcome.problems { print("  - \(problem)") }
      }
    }
    let seconds = Date().timeIntervalSince(start)
    let described = CreationTrial.FileState.allCases.map { "\(states[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", ")
    print(
      "\(trials) trials in \(String(format: "%.1f", seconds)) s; at the kill: \(described); \(failures) refused or damaged stores.")
    // A run whose kills all landed before the file existed or after the open returned tested nothing.
    let inside = (states[.emptyFile] ?? 0) + (states[.partial] ?? 0)
    if Double(inside) < requireInside * Double(trials) {
      print("Only \(inside) of \(trials) kills landed while the file was being made: too few to count as a test.")
      failures += 1
    }
    if failures > 0 {
      print("Replay: swift run objectgraph-torture creation --trials \(trials) --journal \(journal.rawValue) --seed \(seed)")
      throw ExitCode.failure
    }
  }
}

/// One creation trial: a child making a store, killed `killAfterMicroseconds` after it says "creating"
/// (or left to finish, to measure the time it takes), then the check.
struct CreationTrial {
  let journalMode: String
  let killAfterMicroseconds: UInt32?

  /// What the kill left, looked at before anything opens it.
  enum FileState: String, CaseIterable {
    case noFile = "before the file existed"
    case emptyFile = "with an empty file"
    case partial = "with a non-empty file, before the open returned"
    case finished = "after the open returned"
  }

  struct Result {
    var folder: URL
    var microseconds: UInt32
    var state: FileState
    var outcome: StoreVerifier.Outcome
  }

  func run() throws -> Result {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-creation-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let store = folder.appendingPathComponent("Torture.sqlite")
    let child = TutorialStore.child(["create", "--store", store.path, "--journal-mode", journalMode])
    let pipe = Pipe()
    child.standardOutput = pipe
    try child.run()
    let reader = pipe.fileHandleForReading
    var output = ""
    var killed = false
    while true {
      let data = reader.availableData
      if data.isEmpty { break }
      output += String(decoding: data, as: UTF8.self)
      if let delay = killAfterMicroseconds, !killed, output.contains("creating\n") {
        usleep(delay)
        kill(child.processIdentifier, SIGKILL)
        killed = true
      }
    }
    child.waitUntilExit()
    let finished = output.contains("created ")
    let microseconds = output.split(separator: "\n").first { $0.hasPrefix("created ") }.flatMap { UInt32($0.dropFirst("created ".count)) }
    let size = (try? FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int) ?? nil
    let state: FileState =
      finished ? .finished : size == nil ? .noFile : size == 0 ? .emptyFile : .partial
    if killAfterMicroseconds == nil && !finished {
      throw CocoaError(.persistentStoreOpen, userInfo: [NSLocalizedDescriptionKey: "The unkilled creation child failed: \(output)"])
    }
    let outcome = StoreVerifier(storeURL: store, acknowledged: 0, journalMode: journalMode).verify()
    return Result(folder: folder, microseconds: microseconds ?? 0, state: state, outcome: outcome)
  }
}

/// The child of a creation trial: loads the model, says "creating", adds the store, says how long it took.
struct Create: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "The process a creation trial kills (not for direct use).", shouldDisplay: false)

  @Option var store: String
  @Option var journalMode = "WAL"

  func run() throws {
    let model = try TutorialStore.model()
    FileHandle.standardOutput.write(Data("creating\n".utf8))
    let start = DispatchTime.now().uptimeNanoseconds
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(
      type: .sqlite, at: URL(fileURLWithPath: store),
      options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        NSSQLitePragmasOption: ["journal_mode": journalMode],
      ])
    let microseconds = (DispatchTime.now().uptimeNanoseconds - start) / 1_000
    FileHandle.standardOutput.write(Data("created \(microseconds)\n".utf8))
  }
}
