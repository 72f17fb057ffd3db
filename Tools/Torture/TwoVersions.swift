import ArgumentParser
import DemoSupport
import Foundation
import GRDB
import NotesModel
import ObjectGraph

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An app updated while its old version still runs (an extension, a second window): the old process keeps
/// saving with model version 1 while the new one migrates the store to version 2, which renumbers the
/// entities (version 2 adds Attachment, which sorts first). The old process must be refused with a clear
/// error and write nothing more; the store's keys and entity numbers must stay right for the new model.
struct TwoVersions: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "two-versions",
    abstract: "An old-model process keeps saving while a new-model process migrates the store: the old one is refused, nothing breaks.",
    discussion: """
      Each trial makes a store with the tutorial model's version 1 and starts a child that saves a tag \
      and a note in a loop, with version 1, printing "saved k". After a random number of its saves, this \
      process opens the store with version 2 (a migration) and saves notes with attachments, while the \
      child goes on. The child's next save must fail with 134100 saying that the store was migrated, and \
      the child then stops. Checked: every save the child saw return is in the store and none after; every \
      row's Z_ENT is version 2's number for its entity; Z_PRIMARYKEY is version 2's table, past every key \
      in use; integrity_check; and the new model saves again.
      """)

  @Option(help: "How many trials (spread over the journal modes).")
  var trials = 10

  @Option(help: "The journal mode: wal (Core Data's default), delete, or both.")
  var journal: JournalMode = .both

  @Option(help: "The seed of the random migration moments (default: a new one, printed).")
  var seed: UInt64?

  func run() throws {
    let seed = seed ?? UInt64.random(in: 1..<UInt64(Int32.max))
    var generator = SeededGenerator(seed: seed)
    print("two-versions trials: \(trials), journal \(journal.modes.joined(separator: " and ")), seed \(seed)")
    var failures = 0
    var refusals: Set<String> = []
    let start = Date()
    for trial in 1...max(1, trials) {
      let mode = journal.modes[(trial - 1) % journal.modes.count]
      let result = try TwoVersionsTrial(journalMode: mode, migrateAfterSaves: Int.random(in: 1...30, using: &generator)).run()
      if let refusal = result.refusal { refusals.insert(refusal) }
      if result.problems.isEmpty {
        try? FileManager.default.removeItem(at: result.folder)
      } else {
        failures += 1
        print("trial \(trial) FAILED (\(mode)): store kept at \(result.folder.path)")
        for problem in result.problems { print("  - \(problem)") }
      }
    }
    for refusal in refusals.sorted() { print("the old process was told: \(refusal)") }
    print("\(trials) trials in \(String(format: "%.1f", Date().timeIntervalSince(start))) s; \(failures) failed trials.")
    if failures > 0 {
      print("Replay: swift run objectgraph-torture two-versions --trials \(trials) --journal \(journal.rawValue) --seed \(seed)")
      throw ExitCode.failure
    }
  }
}

/// One trial of ``TwoVersions``.
struct TwoVersionsTrial {
  let journalMode: String
  let migrateAfterSaves: Int

  struct Result {
    var folder: URL
    /// What the old process was told, its store path left out.
    var refusal: String?
    var problems: [String] = []
  }

  static func versions() throws -> (old: NSManagedObjectModel, new: NSManagedObjectModel) {
    guard let url = NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld") else {
      throw CocoaError(.coreData, userInfo: [NSLocalizedDescriptionKey: "The tutorial's model is missing from its bundle."])
    }
    let versions = try NSManagedObjectModel.versions(in: url)
    guard let old = versions.first(where: { $0.name == "DataModel" })?.model,
      let new = versions.first(where: { $0.name == "DataModel 2" })?.model
    else {
      throw CocoaError(.coreData, userInfo: [NSLocalizedDescriptionKey: "The tutorial's model has no versions DataModel and DataModel 2."])
    }
    return (old, new)
  }

  static func context(_ model: NSManagedObjectModel, store: URL, journalMode: String) throws -> NSManagedObjectContext {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(
      type: .sqlite, at: store,
      options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        NSSQLitePragmasOption: ["journal_mode": journalMode],
      ])
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return context
  }

  func run() throws -> Result {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-two-versions-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let store = folder.appendingPathComponent("Notes.sqlite")
    var result = Result(folder: folder)
    let models = try Self.versions()
    _ = try Self.context(models.old, store: store, journalMode: journalMode)  // made with version 1

    let child = TutorialStore.child(["old-writer", "--store", store.path, "--journal-mode", journalMode])
    let pipe = Pipe()
    child.standardOutput = pipe
    try child.run()
    let reader = pipe.fileHandleForReading
    var output = ""
    var acknowledged = 0
    var newContext: NSManagedObjectContext?
    var newSaves = 0
    while true {
      let data = reader.availableData
      if data.isEmpty { break }
      output += String(decoding: data, as: UTF8.self)
      acknowledged = output.split(separator: "\n").compactMap { $0.hasPrefix("saved ") ? Int($0.dropFirst(6)) : nil }.max() ?? 0
      if newContext == nil && acknowledged >= migrateAfterSaves {
        newContext = try Self.context(models.new, store: store, journalMode: journalMode)  // the migration
      }
      if let context = newContext, newSaves < 20 {
        try context.performAndWait {
          let note = Note(context: context)
          note.title = "new \(newSaves)"
          note.createdAt = Date()
          let attachment = Attachment(context: context)
          attachment.fileName = "new \(newSaves).png"
          attachment.note = note
          try context.save()
        }
        newSaves += 1
      }
    }
    child.waitUntilExit()
    let lines = output.split(separator: "\n").map(String.init)
    guard let refusal = lines.first(where: { $0.hasPrefix("refused ") }) else {
      result.problems.append("the old process was never refused (exit \(child.terminationStatus)); it said: \(lines.suffix(3))")
      return result
    }
    result.refusal = refusal.replacingOccurrences(of: store.path, with: "<store>")
    if !refusal.hasPrefix("refused 134100:") || !refusal.contains("migrated") {
      result.problems.append("the old process was refused, but not as a store migrated under it: \(refusal)")
    }
    if child.terminationStatus != 0 { result.problems.append("the old process ended with status \(child.terminationStatus)") }
    try check(store: store, models: models, acknowledged: acknowledged, newSaves: newSaves, into: &result)
    return result
  }

  private func check(
    store: URL, models: (old: NSManagedObjectModel, new: NSManagedObjectModel), acknowledged: Int, newSaves: Int,
    into result: inout Result
  ) throws {
    let database = try DatabaseQueue(path: store.path)
    defer { try? database.close() }
    try database.read { db in
      let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
      if integrity != ["ok"] { result.problems.append("integrity_check: \(integrity)") }
      let numbers = Dictionary(
        try Row.fetchAll(db, sql: "SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY").map { ($0["Z_NAME"] as String, $0["Z_ENT"] as Int) },
        uniquingKeysWith: { first, _ in first })
      if numbers != ["Attachment": 1, "Note": 2, "Notebook": 3, "Tag": 4] {
        result.problems.append("Z_PRIMARYKEY is not version 2's numbering: \(numbers)")
      }
      for (entity, table) in [("Attachment", "ZATTACHMENT"), ("Note", "ZNOTE"), ("Notebook", "ZNOTEBOOK"), ("Tag", "ZTAG")] {
        let wrong = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE Z_ENT != ?", arguments: [numbers[entity] ?? -1]) ?? 0
        if wrong > 0 { result.problems.append("\(wrong) rows of \(table) carry another entity's number") }
        let highest = try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM \(table)") ?? 0
        let counter = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = ?", arguments: [entity]) ?? -1
        if counter < highest { result.problems.append("Z_MAX for \(entity) is \(counter), but Z_PK \(highest) is in use") }
      }
      let tags = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZTAG") ?? -1
      if tags != acknowledged {
        result.problems.append("the old process saw \(acknowledged) saves return, the store has \(tags) of its tags")
      }
      let attachments = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM ZATTACHMENT") ?? -1
      if attachments != newSaves { result.problems.append("the new process saved \(newSaves) attachments, the store has \(attachments)") }
    }
    // The new model still saves, with keys past every one in use.
    let context = try Self.context(models.new, store: store, journalMode: journalMode)
    try context.performAndWait {
      let tag = Tag(context: context)
      tag.name = "after"
      try context.save()
    }
  }
}

/// The old version's process: saves a tag and a note with model version 1 until a save is refused.
struct OldWriter: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "old-writer", abstract: "The old process of a two-versions trial (not for direct use).", shouldDisplay: false)

  @Option var store: String
  @Option var journalMode = "WAL"
  @Option var limit = 5_000

  func run() throws {
    let context = try TwoVersionsTrial.context(
      try TwoVersionsTrial.versions().old, store: URL(fileURLWithPath: store), journalMode: journalMode)
    for batch in 1...limit {
      do {
        try context.performAndWait {
          let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
          tag.setValue("old \(batch)", forKey: "name")
          let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
          note.setValue("old \(batch)", forKey: "title")
          note.setValue(Date(), forKey: "createdAt")
          try context.save()
        }
      } catch let error as NSError {
        FileHandle.standardOutput.write(Data("refused \(error.code): \(error.localizedDescription)\n".utf8))
        return
      }
      FileHandle.standardOutput.write(Data("saved \(batch)\n".utf8))
      usleep(2_000)
    }
  }
}
