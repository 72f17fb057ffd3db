import DemoSupport
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ObjectGraph

/// A migration either completes or leaves the old store as it was, openable by the old model, even when
/// the process is killed at any moment of it.
///
/// Each trial copies a version 1 store of ``noteCount`` notes and runs, in a child process (an exit test),
/// the migration to version 2 that opening it with the version 2 model starts; another thread of the child
/// sends it SIGKILL after a random delay. The delays are spread over the time one migration takes (the
/// median of three children first left to finish) and a half beyond it, so that most kills land during the
/// migration (its exclusive transaction, its commit included) and some after it has finished. Back in the test, the file must either open with the version
/// 1 model and hold exactly what it held before (its metadata still version 1's hashes), or open with the
/// version 2 model fully migrated: every note there with the same key and values, the renamed attribute
/// keeping its values, the new required attribute at its default in every row, the model the store keeps
/// (`Z_MODELCACHE`) the new one. Anything else (a file
/// neither model opens, or one whose metadata and rows disagree) fails the test.
///
/// The test also requires that both outcomes happen, and that at least one old store comes from a kill after
/// the migration had reported progress above 0 (inside its transaction), so it cannot pass without having
/// killed a migration halfway. The delays come from a seed printed with each run; set `MIGRATION_CRASH_SEED`
/// to replay them (the moments a delay lands on still depend on the machine's speed).
///
/// The delays are measured from migrations run at the start, and a machine that is busier then than during
/// the trials (a test run's other suites) can leave the whole migration before the shortest delay. So one
/// trial in five instead kills itself once the migration has reported a random thousandth of progress (1 to
/// 500): a kill inside the migration's transaction on any machine.
///
/// The trials are independent (each its own copy, its own child), so they run ``lanes`` at a time, the
/// three measuring migrations too, so that the delays are measured as the trials run: one chain of 53
/// children was the longest wait of the whole test run.
@Suite("Migration: a kill at any moment leaves the old store or the migrated one", .temporaryFolders)
struct MigrationCrashTests {
  /// Notes in the store: enough that a migration lasts long enough for kills to land inside it.
  static let noteCount = 20_000
  static let trials = 50
  /// How many children run at once.
  static let lanes = 2

  enum Outcome: String {
    case old = "old store, unchanged"
    case migrated = "fully migrated"
  }

  @Test("Killed with SIGKILL at 50 random moments, the store is always either the old one or fully migrated")
  func killedAtRandomMoments() async throws {
    let seed = ProcessInfo.processInfo.environment["MIGRATION_CRASH_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
    print("MigrationCrashTests: seed \(seed) (replay with MIGRATION_CRASH_SEED=\(seed))")
    var generator = SeededGenerator(seed: seed)

    let folder = try TemporaryFolder()
    let template = folder.appending("version1.sqlite")
    try ProofStores.makeVersion1(at: template, notes: Self.noteCount)
    let expected = try Expectations(template)

    // Three migrations without a kill, in children as the trials run them (``lanes`` at once), to learn how
    // long one takes: the median, since the first children start cold. Each must leave the store fully migrated.
    let durations = try await Lanes.map(Array(0..<3), lanes: Self.lanes) { run in
      let measuredURL = try Self.copy(template, to: folder.appending("measured-\(run).sqlite"))
      await #expect(processExitsWith: .success) { [path = measuredURL.path as String] in
        MigrationChild.migrate(path)
      }
      let report = MigrationChild.Report(storePath: measuredURL.path)
      let seconds = try #require(report.seconds, "a migration left alone did not finish: \(report.failure ?? "it logged no error")")
      #expect(try expected.classify(measuredURL) == .migrated, "a migration left to finish must migrate the store")
      return seconds
    }
    let duration = durations.sorted()[1]
    print(
      "MigrationCrashTests: migrations of \(Self.noteCount) notes without a kill took \(durations.map { String(format: "%.3f", $0) }.joined(separator: ", ")) s in a child; median \(String(format: "%.3f", duration)) s"
    )

    // The trials: one delay in each of `trials` equal slices of [0, 1.5 × duration], in a shuffled order,
    // all drawn before the first trial runs (the same delays, in the same order, as one trial after another).
    let window = duration * 1.5
    let slices = Array(0..<Self.trials).shuffled(using: &generator)
    let delays = slices.map { slice in window * (Double(slice) + Double.random(in: 0..<1, using: &generator)) / Double(Self.trials) }
    let thresholds: [Int?] = (0..<Self.trials).map { $0 % 5 == 4 ? Int.random(in: 1...500, using: &generator) : nil }
    // Each trial's child, the report it logged and what its store is, ``lanes`` trials at once.
    let results = try await Lanes.map(Array(delays.enumerated()), lanes: Self.lanes) { trial, delay in
      let url = try Self.copy(template, to: folder.appending("trial-\(trial).sqlite"))
      if let threshold = thresholds[trial] {
        await #expect(processExitsWith: .signal(SIGKILL), "trial \(trial)") {
          [path = url.path as String, threshold = threshold as Int] in
          MigrationChild.migrate(path, killAtPermille: threshold)
        }
      } else {
        await #expect(processExitsWith: .signal(SIGKILL), "trial \(trial)") {
          [path = url.path as String, delay = delay as Double] in
          MigrationChild.migrate(path, killAfter: delay)
        }
      }
      let report = MigrationChild.Report(storePath: url.path)
      return (report, Result { try expected.classify(url) })
    }
    var outcomes: [Outcome: Int] = [:]
    var killedWhileProgressing = 0
    for (trial, (delay, (report, classified))) in zip(delays, results).enumerated() {
      let when = thresholds[trial].map { "at progress \($0)‰ or later" } ?? "after \(String(format: "%.4f", delay)) s"
      let outcome: Outcome
      do {
        outcome = try classified.get()
      } catch {
        Issue.record(
          """
          trial \(trial) (seed \(seed), killed \(when), last progress \(report.progressText)): \
          the store is neither the old one nor fully migrated: \(error)\
          \(report.failure.map { " The migration threw: \($0)" } ?? "")
          """)
        continue
      }
      outcomes[outcome, default: 0] += 1
      if outcome == .old, let permille = report.lastProgress, permille > 0 { killedWhileProgressing += 1 }
      print(
        "MigrationCrashTests: trial \(trial): killed \(when), last progress \(report.progressText), \(report.finished ? "migration had returned" : "migration had not returned"): \(outcome.rawValue)"
      )
    }
    let old = outcomes[.old, default: 0]
    let migrated = outcomes[.migrated, default: 0]
    print(
      "MigrationCrashTests: seed \(seed): \(old) trials left the old store (\(killedWhileProgressing) of them killed after progress was reported), \(migrated) fully migrated, of \(Self.trials)"
    )
    #expect(old + migrated == Self.trials)
    #expect(old >= 1, "no kill landed before the migration committed: the trials proved nothing about a half-done migration")
    #expect(
      killedWhileProgressing >= 1,
      "no kill landed after the migration had done a step (progress above 0) and before it committed")
    #expect(migrated >= 1, "no trial let the migration finish: the delays are too short to prove a completed one survives")
  }

  private static func copy(_ source: URL, to destination: URL) throws -> URL {
    try FileManager.default.copyItem(at: source, to: destination)
    return destination
  }
}

// MARK: - What a trial's store may be

extension MigrationCrashTests {
  /// What the version 1 store held before any trial, and what a migrated one must hold.
  struct Expectations {
    let oldHashes: [String: Data]
    let newHashes: [String: Data]
    let contents: ProofStores.NoteContents
    let oldModel: NSManagedObjectModel
    let newModel: NSManagedObjectModel

    init(_ template: URL) throws {
      oldModel = try ProofModels.version1()
      newModel = try ProofModels.version2()
      oldHashes = try ProofStores.versionHashes(template)
      newHashes = newModel.entityVersionHashesByName
      contents = try ProofStores.NoteContents(template, version: 1)
      guard oldHashes == oldModel.entityVersionHashesByName, contents.count == noteCount else {
        throw ProofFailure("the template store is not the version 1 store of \(noteCount) notes the test made")
      }
    }

    /// Which of the two things the store at `url` is; throws, saying what is wrong, when it is neither.
    func classify(_ url: URL) throws -> Outcome {
      let oldError: any Error
      do {
        let count = try ProofStores.engineNoteCount(url, model: oldModel)
        try check(count == noteCount, "it opens with the version 1 model but holds \(count) notes, not \(noteCount)")
        try check(try ProofStores.versionHashes(url) == oldHashes, "it opens with the version 1 model but its hashes changed")
        try check(
          try ProofStores.NoteContents(url, version: 1) == contents, "it opens with the version 1 model but its rows changed")
        try check(
          StoreModelCache.read(url: url)?.entityVersionHashesByName == oldHashes,
          "it opens with the version 1 model but the model it keeps is not version 1")
        return .old
      } catch let error as ObjectGraphError where error.code == .persistentStoreIncompatibleVersionHash {
        oldError = error
      }
      do {
        let count = try ProofStores.engineNoteCount(url, model: newModel)
        try check(count == noteCount, "it opens with the version 2 model but holds \(count) notes, not \(noteCount)")
        try check(try ProofStores.versionHashes(url) == newHashes, "it opens with the version 2 model but its hashes are not version 2's")
        try check(
          try ProofStores.NoteContents(url, version: 2) == contents,
          "it opens with the version 2 model but its notes (keys, values, modifiedAt from updatedAt, tags) differ from the old store's")
        let notDefault = try rawRows(url, "SELECT COUNT(*) AS c FROM ZNOTE WHERE ZWORDCOUNT IS NOT 0")[0]["c"] as Int
        try check(notDefault == 0, "\(notDefault) migrated notes lack wordCount's default 0")
        let noteNumber = try rawRows(url, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Note'")[0]["Z_ENT"] as Int64
        let wrongEntity = try rawRows(url, "SELECT COUNT(*) AS c FROM ZNOTE WHERE Z_ENT IS NOT \(noteNumber)")[0]["c"] as Int
        try check(wrongEntity == 0, "\(wrongEntity) notes keep an entity number other than Note's (\(noteNumber))")
        try check(
          StoreModelCache.read(url: url)?.entityVersionHashesByName == newHashes, "it is migrated but the model it keeps is not version 2")
        return .migrated
      } catch let error as ObjectGraphError {
        throw ProofFailure("the version 1 model refuses it (\(oldError)) and so does the version 2 model (\(error))")
      }
    }

    private func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
      if !condition { throw ProofFailure(message()) }
    }
  }
}

// MARK: - The child process

/// What an exit test's child does: migrate a store by opening it with the version 2 model, logging how far
/// the migration got to a file beside the store (`<store>.log`, written unbuffered, so a kill loses none of
/// it; the log is a file rather than standard output because a failed exit-test expectation gives back no
/// output, and the log is what tells what happened).
///
/// The child never throws: Swift Testing 6.3.1 ends a child whose exit-test body throws with SIGILL, which a
/// trial could not tell from a crash. An error is logged and ends the child with status 3.
enum MigrationChild {
  /// Migrates the store at `path`, logging `progress <permille>` lines, then `finished` and `seconds
  /// <duration>`. With `killAfter`, another thread sends this process SIGKILL after that many seconds; with
  /// `killAtPermille`, the process sends it to itself once it has logged that much progress or more (below
  /// 1000, which is reported after the commit). Either way the process kills itself at once if the
  /// migration returns first, so a trial always ends by SIGKILL.
  static func migrate(_ path: String, killAfter delay: Double? = nil, killAtPermille: Int? = nil) {
    guard FileManager.default.createFile(atPath: logPath(path), contents: nil),
      let log = FileHandle(forWritingAtPath: logPath(path))
    else { exit(4) }
    do {
      let model = try ProofModels.version2()
      let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
      let progress = ProgressLog(log, killAtPermille: killAtPermille)
      let options: [AnyHashable: Any] = [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        ObjectGraphMigrationSourceModelsOption: [try ProofModels.version1()],
        ObjectGraphMigrationProgressOption: { progress.report($0) } as @Sendable (MigrationProgress) -> Void,
      ]
      if let delay {
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { kill(getpid(), SIGKILL) }
      }
      let clock = ContinuousClock()
      let start = clock.now
      try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: path), options: options)
      let elapsed = (clock.now - start).components
      log.write(Data("finished\nseconds \(Double(elapsed.seconds) + Double(elapsed.attoseconds) * 1e-18)\n".utf8))
    } catch {
      log.write(Data("failed \(error)\n".utf8))
      exit(3)
    }
    if delay != nil || killAtPermille != nil { kill(getpid(), SIGKILL) }
  }

  static func logPath(_ storePath: String) -> String { storePath + ".log" }

  /// Logs `progress <permille>` each time the migration's progress reaches another thousandth, and sends
  /// the process SIGKILL, once that line is written, when it reaches `killAtPermille` (below 1000).
  final class ProgressLog: Sendable {
    private let last = Mutex(-1)
    /// Written one whole line per `write(2)` call, from the migrating thread.
    private let handle: FileHandle
    private let killAtPermille: Int?

    init(_ handle: FileHandle, killAtPermille: Int? = nil) {
      self.handle = handle
      self.killAtPermille = killAtPermille
    }

    func report(_ progress: MigrationProgress) {
      let permille = Int((progress.fractionCompleted * 1000).rounded(.down))
      let isNew = last.withLock { last in
        defer { last = permille }
        return last != permille
      }
      if isNew { handle.write(Data("progress \(permille)\n".utf8)) }
      if let killAtPermille, permille >= killAtPermille, permille < 1000 { kill(getpid(), SIGKILL) }
    }
  }

  /// What a child logged.
  struct Report {
    /// The last progress reported, in thousandths, or `nil` when none was.
    var lastProgress: Int?
    /// Whether `addPersistentStore` had returned.
    var finished = false
    /// How long the migration took, when it returned.
    var seconds: Double?
    /// The error the migration threw, if it did.
    var failure: String?

    /// Reads the log beside the store at `storePath` (an empty report when there is none).
    init(storePath: String) {
      let text = (try? String(contentsOfFile: MigrationChild.logPath(storePath), encoding: .utf8)) ?? ""
      for line in text.split(separator: "\n") {
        let parts = line.split(separator: " ", maxSplits: 1)
        let value = parts.count > 1 ? String(parts[1]) : ""
        switch parts.first {
        case "progress": lastProgress = Int(value)
        case "finished": finished = true
        case "seconds": seconds = Double(value)
        case "failed": failure = value
        default: continue
        }
      }
    }

    var progressText: String { lastProgress.map { "\(Double($0) / 10)%" } ?? "none" }
  }
}
