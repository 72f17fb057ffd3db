import EngineTestSupport
import Foundation
import Testing

@testable import ObjectGraph

extension StoreStack {
  /// The `key` values of the `entity` objects `predicate` matches, sorted by `key`, as SQLite answers (a reader
  /// context with no pending changes); records an issue unless the in-memory evaluator, run on every object of
  /// the entity, matches the same ones.
  func agreedMatches(
    _ entity: String, _ key: String, _ predicate: NSPredicate, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> [String] {
    let (_, context) = try reader()
    return try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: entity)
      request.predicate = predicate
      request.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
      let sql = try context.fetch(request).compactMap { $0.value(forKey: key) as? String }
      let all = NSFetchRequest<NSManagedObject>(entityName: entity)
      all.sortDescriptors = [NSSortDescriptor(key: key, ascending: true)]
      let memory = try context.fetch(all).filter { try FetchPredicate(predicate).evaluate(with: $0) }.compactMap {
        $0.value(forKey: key) as? String
      }
      #expect(sql == memory, "SQL and memory disagree for \(predicate)", sourceLocation: sourceLocation)
      return sql
    }
  }
}
