import ArgumentParser
import DemoSupport
import Foundation
import NotesModel
import ObjectGraph

/// Memory under big jobs, measured as the process's resident size, sampled as the job goes. Each job must
/// stay under a limit the command prints:
/// - a fetch of every row with a `fetchBatchSize`, each object read and turned back into a fault
///   (`refresh(_:mergeChanges: false)`). `fetch` returns a Swift array, so every row gets its object (a
///   fault) at once, and the limit is per row (`--bytes-per-row`); only a batch's values are in memory at
///   a time (Docs/ObjectGraph.md, "Choices where Core Data is silent or different");
/// - a walk of every row in pages of 1,000 (`fetchLimit`, continuing after the last `createdAt`), the
///   context reset between pages: what a job that must not grow does; the limit is `--limit`;
/// - an import in worker batches: a private context per batch, a child of the writer, saved and let go;
///   the limit is `--limit`.
struct Memory: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Peak resident memory of a batched fetch of every row and of an import in worker batches, against a limit.")

  @Option(help: "How many notes the store holds for the fetch.")
  var rows = 1_000_000

  @Option(help: "How many notes the import saves, 1,000 per worker.")
  var importCount = 100_000

  @Option(help: "The most the resident size may grow during the paged walk and the import, in MB.")
  var limit = 64

  @Option(help: "The most the batched fetch may grow per row it returns, in bytes.")
  var bytesPerRow = 600

  func run() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-memory-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = folder.appendingPathComponent("Memory.sqlite")

    // The store for the fetch, written in saves of 20,000 by a context reset between them.
    let writer = try TutorialStore.context(store: store, journalMode: "WAL")
    let start = Date()
    try writer.performAndWait {
      var made = 0
      while made < rows {
        for _ in 0..<min(20_000, rows - made) {
          let note = Note(context: writer)
          note.title = "note \(made)"
          note.body = String(repeating: "b", count: 100)
          note.createdAt = Date(timeIntervalSinceReferenceDate: Double(made))
          made += 1
        }
        try writer.save()
        writer.reset()
      }
    }
    print("wrote \(rows) notes in \(String(format: "%.1f", Date().timeIntervalSince(start))) s")
    var failed = false

    // 1. Every row, in pages of 1,000, the context reset between them.
    let reader = try TutorialStore.context(store: store, journalMode: "WAL")
    var pagePeak = PeakMemory()
    let pageBase = pagePeak.bytes
    let walked = try reader.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.fetchLimit = 1_000
      request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
      var after = Date.distantPast
      var walked = 0
      while true {
        request.predicate = NSPredicate(format: "createdAt > %@", after)
        let page = try reader.fetch(request)
        guard let last = page.last?.createdAt else { break }
        walked += page.count
        after = last
        reader.reset()
        if walked % 10_000 == 0 { pagePeak.sample() }
      }
      pagePeak.sample()
      return walked
    }
    failed =
      report(
        "paged walk of \(walked) rows, reset between pages", base: pageBase, peak: pagePeak.bytes, limit: limit * 1_048_576,
        limitText: "\(limit) MB") || failed

    // 2. An import in worker batches of 1,000.
    let importStore = folder.appendingPathComponent("Import.sqlite")
    let importWriter = try TutorialStore.context(store: importStore, journalMode: "WAL")
    var importPeak = PeakMemory()
    let importBase = importPeak.bytes
    var imported = 0
    while imported < importCount {
      let worker = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      worker.parent = importWriter
      let batch = min(1_000, importCount - imported)
      let first = imported
      try worker.performAndWait {
        for index in first..<(first + batch) {
          let note = Note(context: worker)
          note.title = "imported \(index)"
          note.createdAt = Date()
        }
        try worker.save()
      }
      try importWriter.performAndWait { try importWriter.save() }
      imported += batch
      if imported % 10_000 == 0 { importPeak.sample() }
    }
    let saved = try importWriter.performAndWait { try importWriter.count(for: NSFetchRequest<Note>(entityName: "Note")) }
    failed =
      report(
        "import of \(importCount) notes in worker batches (\(saved) in the store)", base: importBase, peak: importPeak.bytes,
        limit: limit * 1_048_576, limitText: "\(limit) MB") || failed
    if saved != importCount {
      print("FAILED: the import saved \(saved) notes, not \(importCount)")
      failed = true
    }
    // 3. Every row, in batches of 1,000, each object read and turned back into a fault (last: the
    //    objects it makes leave the process's heap larger for whatever runs after).
    var fetchPeak = PeakMemory()
    let fetchBase = fetchPeak.bytes
    let characters = try reader.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.fetchBatchSize = 1_000
      request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: true)]
      let notes = try reader.fetch(request)
      var characters = 0
      for (index, note) in notes.enumerated() {
        characters += note.title.count + (note.body?.count ?? 0)
        reader.refresh(note, mergeChanges: false)
        if index % 10_000 == 0 { fetchPeak.sample() }
      }
      fetchPeak.sample()
      return characters
    }
    reader.performAndWait { reader.reset() }
    failed =
      report(
        "batched fetch of \(rows) rows (\(characters) characters read)", base: fetchBase, peak: fetchPeak.bytes,
        limit: rows * bytesPerRow, limitText: "\(bytesPerRow) bytes a row") || failed

    if failed { throw ExitCode.failure }
  }

  /// Prints a job's growth against the limit; true when it went over.
  private func report(_ job: String, base: Int, peak: Int, limit: Int, limitText: String) -> Bool {
    let grown = max(0, peak - base)
    let over = grown > limit
    print(
      "\(job): resident \(ResidentMemory.megabytes(base)) before, peak \(ResidentMemory.megabytes(peak)), "
        + "grew \(ResidentMemory.megabytes(grown)) (limit \(ResidentMemory.megabytes(limit)), \(limitText))"
        + (over ? ": OVER THE LIMIT" : ""))
    return over
  }
}
