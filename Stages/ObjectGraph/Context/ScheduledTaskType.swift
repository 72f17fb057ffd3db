extension NSManagedObjectContext {
  /// When the asynchronous `perform(schedule:_:)` runs its block (Core Data's
  /// `NSManagedObjectContext.ScheduledTaskType`).
  ///
  /// In Core Data an `.immediate` task runs at once when the caller is already on the context's queue, and
  /// is queued otherwise; an `.enqueued` task is always queued, after the work already waiting there. The
  /// engine queues both: an awaiting task runs on Swift's cooperative threads, never inside a block of the
  /// context, so the only difference is on a main-queue context awaited from the main actor, where Core Data
  /// may run an `.immediate` block before blocks queued earlier and the engine keeps them in order.
  public enum ScheduledTaskType: Hashable, Sendable {
    /// Run at once when already on the context's queue, else queue it (the default). The engine queues it.
    case immediate
    /// Queue it after the work already waiting on the context's queue, as ``NSManagedObjectContext/perform(_:)`` does.
    case enqueued
  }
}
