import Foundation

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
