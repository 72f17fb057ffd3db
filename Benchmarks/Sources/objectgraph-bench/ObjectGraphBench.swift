import Foundation
import ObjectGraph

/// The benchmark's entity as an app declares it: a subclass with typed properties (Core Data's
/// `@NSManaged`), which the fetch rows read, as app code and the stages do.
final class BenchItem: NSManagedObject {
  @ObjectGraphManaged var name: String
  @ObjectGraphManaged var count: Int64
  @ObjectGraphManaged var score: Double
  @ObjectGraphManaged var createdAt: Date
}

/// The ObjectGraph side: the public API only, as an app would use it.
///
/// Store opening (coordinator + `addPersistentStore`) happens before the clock starts, as the GRDB side
/// opens its `DatabaseQueue` before its clock starts. The store uses ObjectGraph's defaults: WAL journal
/// mode and SQLite's default `synchronous` (no pragmas are passed).
///
/// Objects and contexts are kept alive until after the clock stops, so neither side is charged for
/// freeing memory (GRDB's side has nothing comparable to free).
struct ObjectGraphBench {
  let model: NSManagedObjectModel
  let item: NSEntityDescription

  init() throws {
    item = NSEntityDescription(
      name: "Item", managedObjectClass: BenchItem.self,
      properties: [
        NSAttributeDescription(name: "name", type: .string, isOptional: false),
        NSAttributeDescription(name: "count", type: .integer64, isOptional: false),
        NSAttributeDescription(name: "score", type: .double, isOptional: false),
        NSAttributeDescription(name: "createdAt", type: .date, isOptional: false),
      ])
    model = try NSManagedObjectModel(entities: [item])
  }

  /// A new coordinator with the store at `url` (created when missing): nothing is cached from earlier runs.
  func openStore(at url: URL) throws -> NSPersistentStoreCoordinator {
    try Self.openStore(model: model, at: url)
  }

  /// A new coordinator of `model` with the store at `url` (created when missing), with the store's default
  /// options (WAL, no persistent history).
  static func openStore(model: NSManagedObjectModel, at url: URL) throws -> NSPersistentStoreCoordinator {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(type: .sqlite, at: url)
    return coordinator
  }

  /// A private-queue context on `coordinator`.
  func makeContext(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
    Self.makeContext(coordinator)
  }

  static func makeContext(_ coordinator: NSPersistentStoreCoordinator) -> NSManagedObjectContext {
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return context
  }

  /// The setup of a measurement, not timed: creates the store of `model` at `url`, inserts `rows` of
  /// `entityName` with one batch insert request, and closes the store again (SQLite then checkpoints the
  /// WAL into the file and removes it), so the measurement opens a file holding only the rows.
  static func makeStore(model: NSManagedObjectModel, entityName: String, rows: [[String: Any]], at url: URL) throws {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
    let context = makeContext(coordinator)
    let request = NSBatchInsertRequest(entityName: entityName, objects: rows)
    _ = try context.performAndWait { try context.execute(request) }
    try coordinator.remove(store)
  }

  /// The dataset's rows as a batch insert request's dictionaries.
  static func dictionaries(_ dataset: Dataset) -> [[String: Any]] {
    (0..<dataset.count).map { index in
      [
        "name": dataset.names[index], "count": dataset.counts[index], "score": dataset.scores[index],
        "createdAt": dataset.dates[index],
      ]
    }
  }

  /// Times: make a context, insert `dataset.count` objects through `setValue(_:forKey:)`, save.
  func insert(_ dataset: Dataset, at url: URL) throws -> Double {
    let coordinator = try openStore(at: url)
    let item = self.item
    var context: NSManagedObjectContext?
    let seconds = try Stopwatch.seconds {
      let newContext = makeContext(coordinator)
      context = newContext
      try newContext.performAndWait {
        for index in 0..<dataset.count {
          let object = NSManagedObject(entity: item, insertInto: newContext)
          object.setValue(dataset.names[index], forKey: "name")
          object.setValue(dataset.counts[index], forKey: "count")
          object.setValue(dataset.scores[index], forKey: "score")
          object.setValue(dataset.dates[index], forKey: "createdAt")
        }
        try newContext.save()
      }
    }
    withExtendedLifetime(context) {}
    return seconds
  }

  /// Times: a batch insert request of `dataset.count` rows. Returns the request's time alone (its
  /// dictionaries made before the clock starts) and the time including making them.
  func batchInsert(_ dataset: Dataset, at url: URL) throws -> (execute: Double, total: Double) {
    let coordinator = try openStore(at: url)
    let context = makeContext(coordinator)
    var rows: [[String: Any]] = []
    let building = Stopwatch.seconds {
      rows.reserveCapacity(dataset.count)
      for index in 0..<dataset.count {
        rows.append([
          "name": dataset.names[index], "count": dataset.counts[index], "score": dataset.scores[index],
          "createdAt": dataset.dates[index],
        ])
      }
    }
    let request = NSBatchInsertRequest(entityName: "Item", objects: rows)
    let seconds = try Stopwatch.seconds {
      _ = try context.performAndWait { try context.execute(request) }
    }
    withExtendedLifetime(request) {}
    return (seconds, building + seconds)
  }

  /// Times: fetch every `Item` in a fresh context and read its four attributes through its typed
  /// properties.
  func fetchAll(at url: URL) throws -> (seconds: Double, checksum: Checksum) {
    try timedFetch(at: url, read: Self.typed) { NSFetchRequest<BenchItem>(entityName: "Item") }
  }

  /// Times: fetch every `Item` in a fresh context and read its four attributes through
  /// `value(forKey:)`, cast as Core Data code casts them (`as? Int64` from the `NSNumber` it gives).
  func fetchAllThroughKeyValueCoding(at url: URL) throws -> (seconds: Double, checksum: Checksum) {
    try timedFetch(at: url, read: Self.keyValueCoded) { NSFetchRequest<BenchItem>(entityName: "Item") }
  }

  /// Times: fetch `count >= 50000 AND score < 0.5` sorted by name in a fresh context, reading the values
  /// through the typed properties.
  func fetchFiltered(at url: URL) throws -> (seconds: Double, checksum: Checksum) {
    try timedFetch(at: url, read: Self.typed, request: Self.filteredRequest)
  }

  /// `count >= 50000 AND score < 0.5` sorted by name: row 3's request.
  static func filteredRequest() throws -> NSFetchRequest<BenchItem> {
    let request = NSFetchRequest<BenchItem>(entityName: "Item")
    request.predicate = NSPredicate(format: "count >= %d AND score < %f", Dataset.minimumCount, Dataset.maximumScore)
    request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
    return request
  }

  /// Times the same fetch as ``fetchAll(at:)`` (or, `filtered`, as ``fetchFiltered(at:)``) in two parts: the
  /// fetch alone (every object made and registered, nothing read), then the typed reads of its four
  /// attributes, each part with a clock of its own.
  func fetchSplit(at url: URL, filtered: Bool) throws -> (fetch: Double, reads: Double, checksum: Checksum) {
    let coordinator = try openStore(at: url)
    let context = makeContext(coordinator)
    var objects: [BenchItem] = []
    var checksum = Checksum()
    var reads = 0.0
    let request = filtered ? try Self.filteredRequest() : NSFetchRequest<BenchItem>(entityName: "Item")
    let fetch = try Stopwatch.seconds {
      try context.performAndWait { objects = try context.fetch(request) }
    }
    try context.performAndWait {
      reads = try Stopwatch.seconds { for object in objects { try Self.typed(object, into: &checksum) } }
    }
    withExtendedLifetime((context, objects)) {}
    return (fetch, reads, checksum)
  }

  /// Reads the four attributes through the typed properties.
  static func typed(_ item: BenchItem, into checksum: inout Checksum) throws {
    checksum.add(name: item.name, count: item.count, score: item.score, createdAt: item.createdAt)
  }

  /// Reads the four attributes through `value(forKey:)`, cast with `as?` as Core Data code casts them.
  static func keyValueCoded(_ item: BenchItem, into checksum: inout Checksum) throws {
    guard let name = item.value(forKey: "name") as? String,
      let count = item.value(forKey: "count") as? Int64,
      let score = item.value(forKey: "score") as? Double,
      let createdAt = item.value(forKey: "createdAt") as? Date
    else {
      throw BenchmarkError("ObjectGraph returned an Item with a missing or mistyped value: \(item)")
    }
    checksum.add(name: name, count: count, score: score, createdAt: createdAt)
  }

  private func timedFetch(
    at url: URL, read: (BenchItem, inout Checksum) throws -> Void,
    request makeRequest: () throws -> NSFetchRequest<BenchItem>
  ) throws -> (seconds: Double, checksum: Checksum) {
    let coordinator = try openStore(at: url)
    let context = makeContext(coordinator)
    var objects: [BenchItem] = []
    var checksum = Checksum()
    let seconds = try Stopwatch.seconds {
      try context.performAndWait {
        objects = try context.fetch(makeRequest())
        for object in objects { try read(object, &checksum) }
      }
    }
    withExtendedLifetime((context, objects)) {}
    return (seconds, checksum)
  }

  /// Rows in the store's `Item` table, counted through the engine (not timed).
  func rowCount(at url: URL) throws -> Int {
    let coordinator = try openStore(at: url)
    let context = makeContext(coordinator)
    return try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Item")) }
  }
}
