import Foundation
import NotesModel
import ObjectGraph

/// The tutorial's data model and a small stack on it, built the plain way, for checks that need a store.
public enum TutorialStack {
  /// Loads `DataModel` from ``NotesModel/bundle``; its entities are made as `Note`, `Notebook` and `Tag`.
  public static func model() throws -> ManagedObjectModel {
    guard let url = NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld") else {
      throw ObjectGraphError(.modelInvalid, "The checks could not find DataModel.xcdatamodeld in \(NotesModel.bundle.bundleURL.path).")
    }
    return try ManagedObjectModel(contentsOf: url)
  }

  /// A coordinator with a SQLite store at `storeURL` (its folder must exist).
  public static func coordinator(storeURL: URL) throws -> PersistentStoreCoordinator {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try model())
    try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
    return coordinator
  }

  /// A context of `type` on `coordinator`.
  public static func context(_ type: ManagedObjectContext.ConcurrencyType, on coordinator: PersistentStoreCoordinator)
    -> ManagedObjectContext
  {
    let context = ManagedObjectContext(concurrencyType: type)
    context.persistentStoreCoordinator = coordinator
    return context
  }

  /// The number of notes in the store, read through a new private context (so unsaved changes elsewhere do
  /// not count).
  public static func notesInStore(_ coordinator: PersistentStoreCoordinator) throws -> Int {
    let reader = context(.privateQueue, on: coordinator)
    return try reader.performAndWait { try reader.count(for: FetchRequest<Note>(entityName: "Note")) }
  }
}

/// Collects concurrency-debug violations instead of stopping the process (the engine's test hook), from
/// its creation until ``stop()``, or until it is no longer used.
///
/// `@unchecked Sendable`: its one mutable field is only touched under `lock`.
public final class ConcurrencyViolationRecorder: @unchecked Sendable {
  private let lock = NSLock()
  private var recorded: [String] = []

  /// Turns concurrency debugging on and sends every violation to this recorder.
  public init() {
    ConcurrencyDebug.isEnabled = true
    ConcurrencyDebug.violationHandler = { [weak self] violation in self?.record(violation.message) }
  }

  private func record(_ message: String) { lock.withLock { recorded.append(message) } }

  /// Turns concurrency debugging off again, and returns the violations it saw, as the engine worded them.
  public func stop() -> [String] {
    ConcurrencyDebug.violationHandler = nil
    ConcurrencyDebug.isEnabled = false
    return lock.withLock { recorded }
  }

  deinit { _ = stop() }
}
