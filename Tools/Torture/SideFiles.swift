import ArgumentParser
import DemoSupport
import Foundation
import ObjectGraph

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Side files where they do not belong, around stores that killed children left: another store's `-wal`,
/// a log whose store is gone, named pipes and folders at `-journal`, `-wal` and `-shm`.
struct SideFiles: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "side-files",
    abstract: "Put -wal files beside the wrong store, leave logs without their store, and pipes at side files; check each open.",
    discussion: """
      Each trial kills two children while they save (as the crash trials do) and opens the second store, \
      which must hold every saved batch, whole; then: puts the first store's -wal beside a copy of the \
      second store's file, which must be refused naming the -wal with both files \
      left byte for byte, or open as a whole store (every batch whole, PRAGMA integrity_check); leaves the \
      first store's -wal without its store, which must be refused naming it, creating nothing; puts a named \
      pipe and then a folder at each side file of a copy, which must be refused within 20 s (each open \
      runs in a child, killed if it hangs); last, the first store with its own -wal must open with every \
      saved batch, whole. A failed trial keeps its files and prints its seed.
      """)

  @Option(help: "How many trials.")
  var trials = 5

  @Option(help: "The seed of the random kills (default: a new one, printed).")
  var seed: UInt64?

  func run() throws {
    let seed = seed ?? UInt64.random(in: 1..<UInt64(Int32.max))
    var generator = SeededGenerator(seed: seed)
    print("side-file trials: \(trials), seed \(seed)")
    var counts = (refused: 0, openedWhole: 0, orphans: 0, pipes: 0)
    var failures = 0
    for trial in 1...max(1, trials) {
      let kills = (0..<2).map { _ in
        CrashTrial(
          journalMode: "WAL", killAfterSaves: Int.random(in: 1...30, using: &generator),
          extraMicroseconds: UInt32.random(in: 0...15_000, using: &generator), verifies: false)
      }
      let first = try kills[0].run()
      let second = try kills[1].run()
      let folder = first.folder
      // The second store opens with its own -wal first (every saved batch, whole), which folds the log into
      // its file: a store file that holds its data, the kind a -wal of another store must never reach.
      var problems = StoreVerifier(
        storeURL: second.folder.appendingPathComponent("Torture.sqlite"), acknowledged: second.acknowledged, journalMode: "WAL"
      ).verify().problems.map { "second store with its own -wal: \($0)" }
      let firstStore = folder.appendingPathComponent("Torture.sqlite")
      let secondStore = second.folder.appendingPathComponent("Torture.sqlite")
      if let size = Self.size(firstStore.path + "-wal"), size > 0 {
        // Another store's -wal beside a store.
        let swapped = folder.appendingPathComponent("Swapped.sqlite")
        try FileManager.default.copyItem(at: secondStore, to: swapped)
        try FileManager.default.copyItem(atPath: firstStore.path + "-wal", toPath: swapped.path + "-wal")
        switch try Self.openInChild(swapped) {
        case .refused(let message):
          counts.refused += 1
          if !message.contains(swapped.path + "-wal") { problems.append("swapped -wal: refused without naming the -wal: \(message)") }
          if try Data(contentsOf: swapped) != Data(contentsOf: secondStore) {
            problems.append("swapped -wal: the refused store file changed")
          }
          if try Data(contentsOf: URL(fileURLWithPath: swapped.path + "-wal"))
            != Data(contentsOf: URL(fileURLWithPath: firstStore.path + "-wal"))
          {
            problems.append("swapped -wal: the refused -wal changed")
          }
        case .opened:
          counts.openedWhole += 1
          // Accepted: then it must be a whole store, as some run of batches left it.
          let outcome = StoreVerifier(storeURL: swapped, acknowledged: 0, journalMode: "WAL").verify()
          problems += outcome.problems.filter { !$0.hasPrefix("batch ") }.map { "swapped -wal accepted: \($0)" }
        case .hung:
          problems.append("swapped -wal: the open did not return within 20 s")
        }
        // The same -wal without its store.
        let orphan = folder.appendingPathComponent("Orphan.sqlite")
        try FileManager.default.copyItem(atPath: firstStore.path + "-wal", toPath: orphan.path + "-wal")
        counts.orphans += 1
        switch try Self.openInChild(orphan) {
        case .refused(let message):
          if !message.contains(orphan.path + "-wal") { problems.append("orphaned -wal: refused without naming it: \(message)") }
        case .opened: problems.append("orphaned -wal: a new store was made where its log lay")
        case .hung: problems.append("orphaned -wal: the open did not return within 20 s")
        }
        if FileManager.default.fileExists(atPath: orphan.path) { problems.append("orphaned -wal: a store file was created") }
        if Self.size(orphan.path + "-wal") != size { problems.append("orphaned -wal: the -wal changed or is gone") }
      }
      // Named pipes and folders at each side file.
      for suffix in ["-journal", "-wal", "-shm"] {
        for kind in ["pipe", "folder"] {
          let copy = folder.appendingPathComponent("Pipe\(suffix)-\(kind).sqlite")
          try FileManager.default.copyItem(at: secondStore, to: copy)
          let made =
            kind == "pipe"
            ? mkfifo(copy.path + suffix, 0o644) == 0
            : (try? FileManager.default.createDirectory(atPath: copy.path + suffix, withIntermediateDirectories: false)) != nil
          guard made else { continue }
          counts.pipes += 1
          switch try Self.openInChild(copy) {
          case .refused(let message):
            if !message.contains(copy.path + suffix) { problems.append("\(kind) at \(suffix): refused without naming it: \(message)") }
          case .opened: problems.append("\(kind) at \(suffix): opened")
          case .hung: problems.append("\(kind) at \(suffix): HUNG (no answer within 20 s)")
          }
        }
      }
      // Last, the first store with its own -wal, as the kill left it: it opens with every saved batch, whole.
      problems += StoreVerifier(storeURL: firstStore, acknowledged: first.acknowledged, journalMode: "WAL").verify().problems.map {
        "first store with its own -wal: \($0)"
      }
      if problems.isEmpty {
        try? FileManager.default.removeItem(at: first.folder)
        try? FileManager.default.removeItem(at: second.folder)
      } else {
        failures += 1
        print("trial \(trial) FAILED: files kept at \(first.folder.path) and \(second.folder.path)")
        for problem in problems { print("  - \(problem)") }
      }
    }
    print(
      """
      \(trials) trials: \(counts.refused) swapped -wal files refused naming the -wal, \(counts.openedWhole) accepted as whole \
      stores; \(counts.orphans) logs without their store refused; \(counts.pipes) pipes and folders at side files refused; \
      \(failures) failed trials.
      """)
    if failures > 0 {
      print("Replay: swift run objectgraph-torture side-files --trials \(trials) --seed \(seed)")
      throw ExitCode.failure
    }
  }

  static func size(_ path: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
  }

  enum Outcome {
    case opened
    case refused(String)
    case hung
  }

  /// Opens the store at `url` in a child process (``OpenStore``), killed if it has not answered in 20 s.
  static func openInChild(_ url: URL) throws -> Outcome {
    let child = TutorialStore.child(["open-store", "--store", url.path])
    let pipe = Pipe()
    child.standardOutput = pipe
    try child.run()
    let finished = DispatchSemaphore(value: 0)
    child.terminationHandler = { _ in finished.signal() }
    if finished.wait(timeout: .now() + 20) == .timedOut {
      kill(child.processIdentifier, SIGKILL)
      child.waitUntilExit()
      return .hung
    }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return output.hasPrefix("opened") ? .opened : .refused(output)
  }
}

/// The child of a side-file trial: opens a store read-write, as an app's launch would, and says how it went.
struct OpenStore: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "open-store", abstract: "Open a store and say how it went (not for direct use).", shouldDisplay: false)

  @Option var store: String

  func run() throws {
    do {
      _ = try TutorialStore.context(store: URL(fileURLWithPath: store), journalMode: "WAL")
      print("opened")
    } catch {
      print("refused: \(error)")
    }
  }
}
