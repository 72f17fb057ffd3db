import DemoSupport
import Foundation
import GRDB
import NotesModel
import ObjectGraph
import Stage2

#if canImport(Glibc)
  import Glibc
#endif

/// Reading a large store page by page, with the resident memory as it goes: does a context that fetches
/// and lets go keep memory flat, or does memory grow with the rows read?
///
/// The store: `count` notes of the tutorial's model (current version), made before any clock starts (the
/// engine creates the file, plain SQL fills it, as the migration benchmark does).
///
/// Two contexts read it, each opened on the file afresh: a root context (private queue, on the coordinator)
/// and the main context of stage 2's stack (main queue, under a private writer), the tutorial's shape. Each
/// fetches the notes in store order, `pageSize` at a time (`fetchOffset` / `fetchLimit`), reads every note's
/// title and keeps nothing: each page's array goes before the next fetch. The clock covers the whole read.
/// The resident memory (`VmRSS`) is read before the first page, after every page (its highest value is the
/// peak) and kept at each tenth of the rows. Every read is checked: the number of notes and the bytes of
/// their titles.
///
/// Memory freed by one measurement is handed back to the system (`malloc_trim`) before the next, so each
/// starts from what is really in use.
struct PagedFetchBench {
  static let pageSize = 1_000

  /// One context's read.
  struct Run: Sendable {
    let name: String
    let seconds: Double
    /// The resident size before the first page, in bytes.
    let before: Int
    /// The resident size when each tenth of the rows had been read, in bytes.
    let byTenth: [Int]
    /// The highest resident size seen, in bytes.
    let peak: Int
  }

  let count: Int
  let folder: URL

  /// The store file, named as stage 2's manager names it in `folder`.
  var storeURL: URL { folder.appendingPathComponent("\(NotesModel.name).sqlite") }

  /// The bytes of the titles `makeStore` writes: "Note 1" to "Note \(count)".
  var expectedTitleBytes: Int { (1...count).reduce(0) { $0 + 5 + String($1).utf8.count } }

  // MARK: - The store (not timed)

  /// Makes the store of `count` notes.
  func makeStore() throws {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.model())
    try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: storeURL))

    let database = try DatabaseQueue(path: storeURL.path)
    try database.write { db in
      guard let note = try Int64.fetchOne(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Note'") else {
        throw BenchmarkError("the store has no entity Note")
      }
      try db.execute(
        sql: """
          WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
          INSERT INTO ZNOTE (Z_PK, Z_ENT, Z_OPT, ZBODY, ZCREATEDAT, ZISPINNED, ZTITLE, ZMODIFIEDAT, ZWORDCOUNT)
          SELECT i, \(note), 1, 'Text of note ' || i, 800000000 + i, 0, 'Note ' || i, 800000000 + i, 4 FROM n;
          UPDATE Z_PRIMARYKEY SET Z_MAX = \(count) WHERE Z_NAME = 'Note';
          """)
    }
    try database.close()
  }

  private static func model() throws -> NSManagedObjectModel {
    guard let url = NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld") else {
      throw BenchmarkError("the tutorial model \(NotesModel.name).xcdatamodeld is not in the NotesModel bundle")
    }
    guard let model = NSManagedObjectModel(contentsOf: url) else {
      throw BenchmarkError("the tutorial model at \(url.path) cannot be read")
    }
    return model
  }

  // MARK: - The reads (timed)

  /// A root context: private queue, on a coordinator of its own, the whole read in one `performAndWait`.
  func readInRootContext() throws -> Run {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.model())
    try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
    defer { for store in coordinator.persistentStores { try? coordinator.remove(store) } }
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    Self.returnFreedMemory()
    return try context.performAndWait {
      try read(in: context, name: "root context (private queue)")
    }
  }

  /// Stage 2's main context, under its private writer, on the main queue.
  func readInMainContext() throws -> Run {
    try MainQueue.run { [self] in
      let manager = Stage2.CoreDataManager(modelName: NotesModel.name, storeFolder: folder)
      let context = try manager.mainContext
      Self.returnFreedMemory()
      return try read(in: context, name: "main context under a writer (stage 2)")
    }
  }

  /// Reads every note page by page in `context` (call it on the context's queue).
  private func read(in context: NSManagedObjectContext, name: String) throws -> Run {
    let before = ResidentMemory.current() ?? 0
    var peak = PeakMemory()
    var byTenth: [Int] = []
    var rows = 0
    var titleBytes = 0
    let seconds = try Stopwatch.seconds {
      while true {
        let request = NSFetchRequest<Note>(entityName: "Note")
        request.fetchOffset = rows
        request.fetchLimit = Self.pageSize
        let page = try context.fetch(request)
        for note in page { titleBytes += note.title.utf8.count }
        rows += page.count
        peak.sample()
        while byTenth.count < rows * 10 / count { byTenth.append(ResidentMemory.current() ?? 0) }
        if page.count < Self.pageSize { break }
      }
    }
    guard rows == count, titleBytes == expectedTitleBytes else {
      throw BenchmarkError(
        "\(name): read \(rows) notes with \(titleBytes) bytes of titles, expected \(count) with \(expectedTitleBytes)")
    }
    return Run(name: name, seconds: seconds, before: before, byTenth: byTenth, peak: peak.bytes)
  }

  /// Hands memory freed so far back to the system, so that the next measurement's resident size starts
  /// from what is in use.
  static func returnFreedMemory() {
    #if canImport(Glibc)
      // glibc's `malloc_trim` (Glibc's module does not export `malloc.h`), looked up by name.
      guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "malloc_trim") else { return }
      typealias Trim = @convention(c) (Int) -> Int32
      _ = unsafeBitCast(symbol, to: Trim.self)(0)
    #endif
  }
}
