import Foundation

extension NSManagedObjectContext {
  /// The token of the query generation this context reads (Core Data's `queryGenerationToken`): `nil` when
  /// it is unpinned (the default: every read sees the latest saves), and always `nil` for a child context,
  /// which reads through its parent.
  ///
  /// Right after ``setQueryGenerationFrom(_:)`` with ``NSQueryGenerationToken/current`` it is `current`; the
  /// context takes its generation at its next read (a fetch, a count or a fault), and from then on this is
  /// that generation's token, which another context of the same coordinator can be set from to read the same
  /// generation. See "Query generations" in Docs/ObjectGraph.md.
  public var queryGenerationToken: NSQueryGenerationToken? {
    settings.withLock { $0.parent == nil ? $0.queryGenerationPin?.token : nil }
  }

  /// Pins the context to a query generation, moves it to another, or unpins it (Core Data's
  /// `setQueryGenerationFrom(_:)`).
  ///
  /// ```swift
  /// try viewContext.setQueryGenerationFrom(.current)   // a stable view from its next read on
  /// try viewContext.setQueryGenerationFrom(nil)        // back to reading the latest saves
  /// ```
  ///
  /// - ``NSQueryGenerationToken/current``: the context reads the store as it is at its next read (a fetch, a
  ///   count or a fault), and keeps reading exactly that (other contexts', coordinators' and processes' later
  ///   saves are not seen) until it moves on: ``save()`` moves it to the generation right after its own save;
  ///   ``mergeChanges(fromContextDidSave:)`` (automatic merges and ``mergeChanges(fromRemoteContextSave:into:)``
  ///   included) and ``reset()`` move it to the generation current at its next read; so does setting
  ///   `current` again.
  /// - A token from another context's ``queryGenerationToken``: the same generation as that context.
  /// - `nil`: unpinned.
  ///
  /// Objects the context already holds keep their values: call ``refreshAllObjects()`` (or fetch again) after
  /// moving a context to another generation, as Core Data's documentation advises. Only a SQLite store in WAL
  /// mode (the default) has generations; a context pinned on a coordinator whose stores have none (in-memory,
  /// binary, a rollback journal) reads them as an unpinned one does, without an error, as Core Data's
  /// contexts "gracefully revert to unpinned behavior". A child context reads through its parent's
  /// generation and cannot be pinned itself.
  ///
  /// - Throws: ``NSPersistentStoreOperationError`` for a token whose generation has ended (no context is
  ///   pinned to it any more) or that belongs to another coordinator, ``ObjectGraphNoPersistentStoreError``
  ///   when the context has no coordinator yet. The context stays as it was.
  public func setQueryGenerationFrom(_ generation: NSQueryGenerationToken?) throws {
    try isolated("setQueryGenerationFrom(_:)") { _ in
      let (coordinator, parent) = settings.withLock { ($0.coordinator, $0.parent) }
      if parent != nil {
        // "All nested contexts will defer to their parent context's data. It is a programmer error to try to
        // set the queryGenerationToken on a child context" (Core Data's header). Unpinning one is a no-op.
        requireCorrectUse(
          generation == nil,
          "setQueryGenerationFrom(_:) was called on child context \(displayName) with \(generation?.description ?? "a token"). A child context reads through its parent's query generation and cannot be pinned itself: pin the root context (\(rootContext.displayName)) instead."
        )
        return
      }
      var pin: QueryGenerationPin?
      if let generation {
        guard let coordinator else {
          throw ObjectGraphError(
            .noPersistentStore,
            "Context \(displayName) has no persistent store coordinator to take a query generation from. Set context.persistentStoreCoordinator first."
          )
        }
        pin = try QueryGenerationPin(coordinator: coordinator, token: generation, for: "Context \(displayName)")
      }
      // The pin the context leaves is released after the lock: ending its generation closes connections.
      let previous = settings.withLock { state -> QueryGenerationPin? in
        defer { state.queryGenerationPin = pin }
        return state.queryGenerationPin
      }
      withExtendedLifetime(previous) {}
    }
  }

  /// Moves a pinned root context to the generation current at its next read, as a merge and a reset do in
  /// Core Data ("update a context's generation by calling ... mergeChanges ... reset"); nothing for an
  /// unpinned or child context.
  func moveToCurrentQueryGeneration() {
    let previous = settings.withLock { state -> QueryGenerationPin? in
      guard state.parent == nil, let pin = state.queryGenerationPin else { return nil }
      state.queryGenerationPin = QueryGenerationPin(coordinator: pin.coordinator, generation: nil)
      return pin
    }
    withExtendedLifetime(previous) {}
  }

  /// The context at the top of this one's chain of parents (itself for a root context).
  private var rootContext: NSManagedObjectContext {
    var context = self
    while let parent = context.parent { context = parent }
    return context
  }
}
