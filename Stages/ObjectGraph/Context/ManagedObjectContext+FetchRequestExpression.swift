import Foundation

/// A fetch request whose result type is a managed object class or a dictionary type, run for an
/// ``NSFetchRequestExpression``.
private protocol ExpressionFetchRunning {
  func results(in context: NSManagedObjectContext) throws -> [Any]
}

extension NSFetchRequest: ExpressionFetchRunning where Result: NSFetchRequestResult {
  fileprivate func results(in context: NSManagedObjectContext) throws -> [Any] { try context.fetch(self).map { $0 } }
}

extension NSManagedObjectContext: FetchRequestExpressionEvaluating {
  /// Runs `request` (an `NSFetchRequest` of any result type) for an ``NSFetchRequestExpression``.
  func valueOfFetch(_ request: Any, countOnly: Bool) throws -> Any {
    if countOnly, let counted = request as? any CountableFetchRequest { return NSNumber(value: try counted.count(in: self)) }
    if let erased = request as? NSFetchRequest<any NSFetchRequestResult> { return try fetch(erased) }
    if let typed = request as? any ExpressionFetchRunning { return try typed.results(in: self) }
    throw ObjectGraphError(
      .invalidValue, "its request expression gives \(type(of: request)), not an NSFetchRequest. Give it the request to run.")
  }
}

/// A fetch request of any result type, counted for a count-only ``NSFetchRequestExpression``.
private protocol CountableFetchRequest {
  func count(in context: NSManagedObjectContext) throws -> Int
}

extension NSFetchRequest: CountableFetchRequest {
  fileprivate func count(in context: NSManagedObjectContext) throws -> Int { try context.count(for: self) }
}
