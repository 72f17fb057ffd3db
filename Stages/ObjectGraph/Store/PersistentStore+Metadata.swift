import Foundation
internal import GRDB

/// The app's metadata keys set on a store and not yet written: its next save writes them in its
/// transaction (see ``NSPersistentStoreCoordinator/setMetadata(_:for:)``).
struct PendingMetadata: Sendable {
  /// Keys to write, with their values.
  var set: [String: any Sendable] = [:]
  /// Keys to remove.
  var removed: Set<String> = []
  /// Counts the changes, so a save clears only what it wrote.
  var generation = 0
}

extension NSPersistentStore {
  /// Replaces the app's keys of the metadata with those of `metadata` (the engine's keys are checked by
  /// the caller and kept): at once in ``metadata``, in the file at the next save.
  func setAppMetadata(_ metadata: [String: any Sendable]) {
    storedMetadata.withLock { current in
      let removed = Set(current.keys.filter { !CoreDataMetadataKey.engineKeys.contains($0) && metadata[$0] == nil })
      let added = metadata.filter { !CoreDataMetadataKey.engineKeys.contains($0.key) }
      for key in removed { current[key] = nil }
      current.merge(added) { _, new in new }
      pendingMetadata.withLock { pending in
        var next = pending ?? PendingMetadata()
        for key in removed { next.set[key] = nil }
        next.set.merge(added) { _, new in new }
        next.removed.subtract(added.keys)
        next.removed.formUnion(removed)
        next.generation += 1
        pending = next
      }
    }
  }

  /// Forgets the pending metadata a save has just written, unless more was set meanwhile.
  func clearPendingMetadata(written: PendingMetadata) {
    pendingMetadata.withLock { pending in
      if pending?.generation == written.generation { pending = nil }
    }
  }
}

extension NSPersistentStore {
  /// Writes the app's metadata keys of the SQLite store file at `url` now, in one transaction: `set` are
  /// added or replaced, `removed` removed; every other key (the engine's, Core Data's) is kept as the file
  /// holds it. The file must not be open in a coordinator that saves meanwhile, as with Core Data.
  static func writeMetadata(
    url: URL, setting set: [String: Any], removing removed: Set<String>, options: StoreOptions
  ) throws {
    let database = try makeDatabase(path: url.path, options: options, readOnly: false, url: url, setsJournalMode: false)
    defer { try? database.close() }
    do {
      try database.write { db in try StoreMetadata.update(in: db, with: set, removing: removed, url: url) }
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreSave, "Writing the metadata of the store at \(url.path) failed", error,
        advice: "The metadata was left as it was.", url: url)
    }
  }
}
