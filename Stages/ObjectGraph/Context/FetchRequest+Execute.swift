import Foundation

extension NSFetchRequest where Result: NSFetchRequestResult {
  /// Runs the request against the context whose block is running on the current queue (Core Data's
  /// `execute()`: "the managed object context that is associated with the queue on which `execute` is
  /// called"), as `context.fetch(self)` would.
  ///
  /// ```swift
  /// try context.performAndWait {
  ///   let notes = try Note.fetchRequest().execute()
  /// }
  /// ```
  ///
  /// The context is the one whose `perform` or `performAndWait` block runs innermost here: inside a child's
  /// block nested in its parent's, the child. Outside any context's block there is no context to run
  /// against (a main-queue context is not picked for code that merely runs on the main queue: several may
  /// share it), and the call throws.
  ///
  /// - Throws: `ObjectGraphError` 900006 (`ObjectGraphNoPersistentStoreError`) when no context's block is
  ///   running on this thread; otherwise what `fetch(_:)` throws.
  public func execute() throws -> [Result] {
    guard let context = InnermostContext.current else {
      throw ObjectGraphError(
        .noPersistentStore,
        "NSFetchRequest.execute() runs against the context whose perform or performAndWait block is running, and none is running here. Call it inside context.performAndWait { … } (or perform), or call context.fetch(request)."
      )
    }
    return try context.fetch(self)
  }
}
