import Foundation

extension NSPersistentStore {
  /// Whether the store refuses writes (Core Data's `isReadOnly`): saves, batch requests and history deletions
  /// to it fail with ``NSPersistentStoreSaveError``.
  ///
  /// `true` for a store added with ``NSReadOnlyPersistentStoreOption`` (or opened read-only by the engine, a
  /// Core Data store with history tables added without history tracking). Setting it to `true` on an added
  /// store makes the store refuse writes from then on; setting it back to `false` lets it write again. A store
  /// opened read-only stays read-only: its SQLite connection cannot write, so setting `false` changes nothing
  /// there; remove the store and add it again without the option to write. Safe to read and set from any
  /// thread; a save already running finishes.
  public var isReadOnly: Bool {
    get { storeOptions.readOnly || markedReadOnly.withLock { $0 } }
    set { markedReadOnly.withLock { $0 = newValue } }
  }
}
