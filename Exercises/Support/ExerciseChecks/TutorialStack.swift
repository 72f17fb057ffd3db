import Foundation
import NotesModel
import ObjectGraph

/// The tutorial's data model and a small stack on it, built the plain way, for checks that need a store.
public enum TutorialStack {
  /// Loads `DataModel` from ``NotesModel/bundle``; its entities are made as `Note`, `Notebook`, `Tag` and
  /// `Attachment`.
  public static func model() throws -> ManagedObjectModel {
    try ManagedObjectModel(contentsOf: try modelURL())
  }

  /// Where `DataModel.xcdatamodeld` is in ``NotesModel/bundle``.
  public static func modelURL() throws -> URL {
    guard let url = NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld") else {
      throw ObjectGraphError(.modelInvalid, "The checks could not find DataModel.xcdatamodeld in \(NotesModel.bundle.bundleURL.path).")
    }
    return url
  }

  /// Version `name` of the tutorial's model (`"DataModel"` is version 1, `"DataModel 2"` the current one), read
  /// from the `.xcdatamodeld` as an app that shipped that version would read it.
  public static func model(version name: String) throws -> ManagedObjectModel {
    guard let version = try ManagedObjectModel.versions(in: try modelURL()).first(where: { $0.name == name }) else {
      throw ObjectGraphError(.modelInvalid, "DataModel.xcdatamodeld has no version named \(name).")
    }
    return version.model
  }

  /// Writes a store at `storeURL` as version 1 of the app did, with `notes` notes: "Note 0", "Note 1", …, each
  /// made at `date`, the even ones also changed at `date` (`updatedAt`, which version 2 calls `modifiedAt`).
  public static func writeVersionOneStore(at storeURL: URL, notes: Int, date: Date = Date(timeIntervalSinceReferenceDate: 700_000_000))
    throws
  {
    let version1 = try model(version: "DataModel")
    let coordinator = PersistentStoreCoordinator(managedObjectModel: version1)
    let store = try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
    let writer = context(.privateQueue, on: coordinator)
    try writer.performAndWait {
      guard let entity = version1.entitiesByName["Note"] else {
        throw ObjectGraphError(.modelInvalid, "Version 1 of DataModel has no Note entity.")
      }
      for index in 0..<notes {
        let note = ManagedObject(entity: entity, insertInto: writer)
        note.setValue("Note \(index)", forKey: "title")
        note.setValue(date, forKey: "createdAt")
        note.setValue(index.isMultiple(of: 2) ? date : nil, forKey: "updatedAt")
      }
      try writer.save()
    }
    try coordinator.remove(store)
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

  /// Turns concurrency debugging off again, and returns the violations it saw, as the engine worded them:
  /// each different message once, in the order first seen, with how often it came when more than once
  /// (a check that calls the learner's code twice would otherwise show every line twice).
  public func stop() -> [String] {
    ConcurrencyDebug.violationHandler = nil
    ConcurrencyDebug.isEnabled = false
    let messages = lock.withLock { recorded }
    var counts: [String: Int] = [:]
    var order: [String] = []
    for message in messages {
      if counts[message] == nil { order.append(message) }
      counts[message, default: 0] += 1
    }
    return order.map { message in
      let times = counts[message] ?? 1
      return times == 1 ? message : "\(message) (reported \(times) times)"
    }
  }

  deinit { _ = stop() }
}
