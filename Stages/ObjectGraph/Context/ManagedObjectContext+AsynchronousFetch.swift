import Foundation

extension NSManagedObjectContext {
  /// Runs an asynchronous fetch's request (on the context's queue), as `fetch(_:)` does for its result type,
  /// whatever the request's type parameter is (`NSFetchRequest<any NSFetchRequestResult>` included).
  func asynchronousFetch<Result>(_ request: NSFetchRequest<Result>) throws -> [Result] {
    try isolated("execute(_:)") { confined in
      switch try fetchResults(request, confined) {
      case .objects(let objects): return try results(objects, of: request)
      case .objectIDs(let ids): return try results(ids, of: request)
      case .count(let count): return try results([count], of: request)
      case .dictionaries(let rows):
        if let typed = rows.bridgedDictionaries() as? [Result] { return typed }
        return try results(rows.dictionaries(), of: request)
      }
    }
  }
}
