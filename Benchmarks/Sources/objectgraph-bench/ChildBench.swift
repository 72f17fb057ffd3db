import Foundation
import ObjectGraph

/// The tutorial's stack: a child context whose parent, a private "writer" context, owns the coordinator,
/// so every fetch the UI makes is a child's fetch. Times a count, a `fetchLimit` of 10 and a batched fetch
/// in the child, with one unsaved insert in the writer and one in the child, against the same request in a
/// root context without pending changes (what the child should cost, plus its pending changes).
struct ChildBench {
  let objectGraph: ObjectGraphBench

  /// The three measurements at the file `url` (made by ``ObjectGraphBench/insert(_:at:)``).
  func run(at url: URL, repetitions: Int) throws -> [BenchmarkResult] {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: objectGraph.model)
    try coordinator.addPersistentStore(type: .sqlite, at: url)
    let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    writer.persistentStoreCoordinator = coordinator
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = writer
    let root = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    root.persistentStoreCoordinator = coordinator
    insertPending(in: writer, name: "item-pending-writer")
    insertPending(in: child, name: "item-pending-child")

    func predicate() throws -> NSPredicate {
      NSPredicate(format: "count >= %d AND score < %f", Dataset.minimumCount, Dataset.maximumScore)
    }
    var results: [BenchmarkResult] = []
    results.append(
      try measure("count (predicate)", repetitions: repetitions, child: child, root: root) { context in
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.predicate = try predicate()
        return try context.count(for: request)
      })
    results.append(
      try measure("fetchLimit 10, sorted", repetitions: repetitions, child: child, root: root) { context in
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.predicate = try predicate()
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        request.fetchLimit = 10
        return try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }.count
      })
    results.append(
      try measure("fetchBatchSize 20, sorted, first 20 read", repetitions: repetitions, child: child, root: root) {
        context in
        let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
        request.predicate = try predicate()
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        request.fetchBatchSize = 20
        return try context.fetch(request).prefix(20).compactMap { $0.value(forKey: "name") as? String }.count
      })
    withExtendedLifetime((writer, child, root)) {}
    return results
  }

  private func insertPending(in context: NSManagedObjectContext, name: String) {
    let item = objectGraph.item
    context.performAndWait {
      let object = NSManagedObject(entity: item, insertInto: context)
      object.setValue(name, forKey: "name")
      object.setValue(Int64(60_000), forKey: "count")
      object.setValue(0.25, forKey: "score")
      object.setValue(Date(timeIntervalSinceReferenceDate: 700_000_000), forKey: "createdAt")
    }
  }

  /// Best of `repetitions` runs of `body` in the child and in the root (the "GRDB" side of the table).
  private func measure(
    _ name: String, repetitions: Int, child: NSManagedObjectContext, root: NSManagedObjectContext,
    _ body: (NSManagedObjectContext) throws -> Int
  ) throws -> BenchmarkResult {
    var result = BenchmarkResult(name: name)
    for _ in 0..<repetitions {
      var answers = (child: 0, root: 0)
      result.record(objectGraph: try Stopwatch.seconds { answers.child = try child.performAndWait { try body(child) } })
      result.record(grdb: try Stopwatch.seconds { answers.root = try root.performAndWait { try body(root) } })
      guard answers.child >= answers.root, answers.child > 0 else {
        throw BenchmarkError("\(name): the child answered \(answers.child), the root \(answers.root)")
      }
    }
    return result
  }
}
