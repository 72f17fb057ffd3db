import ArgumentParser
import Foundation
import NotesModel
import ObjectGraph

/// Two processes saving to one store at once, as an app and its extension do.
///
/// Each child adds 1 to the same note's `wordCount`, `--increments` times: it reads the note afresh,
/// adds one and saves. When the other process saved in between, the save is a stale write, which the
/// merge policy (`.error`, the default) refuses with 133020; the child then reads again and retries. So
/// no update may be lost: the count must end at twice `--increments`. SQLite's write lock is waited for
/// (the engine's busy timeout); an `SQLITE_BUSY` that escapes is a failure. Each child counts the times
/// a fresh read showed the other process's saves, and at the end refetches until it reads the total.
struct TwoProcesses: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "two-processes",
    abstract: "Two processes add to the same counter in one store: no lost update, no SQLITE_BUSY escaping.")

  @Option(help: "How many times each process adds 1.")
  var increments = 500

  @Option(help: "The journal mode: wal (Core Data's default) or delete.")
  var journal = "wal"

  func run() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-two-processes-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let store = folder.appendingPathComponent("Shared.sqlite")
    let mode = journal.uppercased()
    let context = try TutorialStore.context(store: store, journalMode: mode)
    try context.performAndWait {
      let note = Note(context: context)
      note.title = Counter.title
      note.createdAt = Date()
      try context.save()
    }

    let start = Date()
    let children = try (0..<2).map { _ in
      let child = TutorialStore.child(["counter", "--store", store.path, "--journal-mode", mode, "--increments", "\(increments)"])
      let pipe = Pipe()
      child.standardOutput = pipe
      child.standardError = pipe
      try child.run()
      return (child, pipe)
    }
    // Both children open the store, say so with a file, and wait for the word to go, so that their
    // saves overlap from the first one.
    let deadline = Date().addingTimeInterval(60)
    while Counter.readyFiles(store: store).count < 2 && Date() < deadline { usleep(1_000) }
    _ = FileManager.default.createFile(atPath: store.path + ".go", contents: nil)
    var reports: [String] = []
    var failed = false
    for (child, pipe) in children {
      let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      child.waitUntilExit()
      reports.append(output.trimmingCharacters(in: .whitespacesAndNewlines))
      if child.terminationStatus != 0 { failed = true }
    }
    let seconds = Date().timeIntervalSince(start)

    let final = try context.performAndWait {
      context.reset()
      return try Counter.note(in: context).wordCount
    }
    let expected = Int32(2 * increments)
    let conflicts = reports.compactMap { Counter.figure(#"(\d+) conflicts"#, in: $0) }.reduce(0, +)
    let sawOther = reports.compactMap { Counter.figure(#"saw the other process's saves (\d+) times"#, in: $0) }
    for (index, report) in reports.enumerated() { print("process \(index + 1): \(report)") }
    let finalReads = reports.compactMap { Counter.figure(#"a refetch at the end read (\d+)"#, in: $0).map(Int32.init) }
    print(
      """
      two processes, \(increments) increments each, journal \(mode), in \(String(format: "%.1f", seconds)) s: the counter \
      reads \(final) (expected \(expected)); \(expected - final) lost updates; \(conflicts) stale writes refused (133020) \
      and retried; each saw the other's saves \(sawOther.map(String.init).joined(separator: " and ")) times while it \
      counted, and read \(expected) in a refetch at the end: \(finalReads == [expected, expected] ? "yes" : "NO").
      """)
    if failed || final != expected || finalReads != [expected, expected] {
      print("FAILED: store kept at \(store.path)")
      throw ExitCode.failure
    }
    try? FileManager.default.removeItem(at: folder)
  }
}

/// One of the two processes: `--increments` times, read the counter afresh, add 1, save; retry a stale write.
struct Counter: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "counter", abstract: "One of the two processes (not for direct use).", shouldDisplay: false)

  static let title = "the shared counter"

  @Option var store: String
  @Option var journalMode = "WAL"
  @Option var increments = 500

  func run() throws {
    let storeURL = URL(fileURLWithPath: store)
    let context = try TutorialStore.context(store: storeURL, journalMode: journalMode)
    _ = FileManager.default.createFile(atPath: store + ".ready-\(ProcessInfo.processInfo.processIdentifier)", contents: nil)
    let deadline = Date().addingTimeInterval(60)
    while !FileManager.default.fileExists(atPath: store + ".go") && Date() < deadline { usleep(500) }
    var conflicts = 0
    var sawOther = 0
    var lastWritten: Int32?
    try context.performAndWait {
      for _ in 0..<increments {
        while true {
          context.reset()  // read afresh: the row as the store has it now
          let note = try Self.note(in: context)
          if let lastWritten, note.wordCount > lastWritten { sawOther += 1 }
          note.wordCount += 1
          do {
            try context.save()
            lastWritten = note.wordCount
            break
          } catch let error as NSError where error.code == NSManagedObjectMergeError {
            conflicts += 1  // the other process saved first: read again and retry
          }
        }
      }
    }
    // Both processes are done once the counter reads twice our increments: a refetch must show the
    // other's saves too.
    var final: Int32 = 0
    let until = Date().addingTimeInterval(60)
    while final < 2 * Int32(increments) && Date() < until {
      final = try context.performAndWait {
        context.reset()
        return try Self.note(in: context).wordCount
      }
      if final < 2 * Int32(increments) { usleep(2_000) }
    }
    print(
      "\(increments) saved, \(conflicts) conflicts, saw the other process's saves \(sawOther) times; "
        + "a refetch at the end read \(final)")
  }

  static func note(in context: NSManagedObjectContext) throws -> Note {
    let request = NSFetchRequest<Note>(entityName: "Note")
    request.predicate = NSPredicate(format: "title == %@", title)
    guard let note = try context.fetch(request).first else {
      throw CocoaError(.coreData, userInfo: [NSLocalizedDescriptionKey: "The shared counter note is missing from the store."])
    }
    return note
  }

  /// The files the children make once their store is open.
  static func readyFiles(store: URL) -> [String] {
    let folder = store.deletingLastPathComponent()
    let prefix = store.lastPathComponent + ".ready-"
    return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasPrefix(prefix) }
  }

  /// The number `pattern`'s one group captures in a child's report (`(\d+) conflicts` → 12).
  static func figure(_ pattern: String, in report: String) -> Int? {
    guard let regex = try? Regex<(Substring, Substring)>(pattern), let match = report.firstMatch(of: regex) else { return nil }
    return Int(match.output.1)
  }
}
