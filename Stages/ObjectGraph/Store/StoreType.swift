import Foundation

/// The type string of a SQLite store (Core Data's `NSSQLiteStoreType`): a SQLite file laid out as Core Data
/// lays out its SQLite stores.
public let NSSQLiteStoreType = "SQLite"
/// The type string of an in-memory store (Core Data's `NSInMemoryStoreType`).
public let NSInMemoryStoreType = "InMemory"
/// The type string of Core Data's binary store (Core Data's `NSBinaryStoreType`).
public let NSBinaryStoreType = "Binary"

extension NSPersistentStore {
  /// The kinds of store, as Core Data names them (`NSPersistentStore.StoreType`): a string wrapped, so that
  /// `NSPersistentStore.StoreType(rawValue: NSSQLiteStoreType) == .sqlite`.
  public struct StoreType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The store type string (`"SQLite"`, `"InMemory"`, `"Binary"`).
    public let rawValue: String

    /// Wraps a store type string. A string the engine has no store for is refused when a store of that
    /// type is added (``NSPersistentStoreCoordinator/addPersistentStore(type:configuration:at:options:)``).
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A SQLite file laid out as Core Data lays out its SQLite stores.
    public static let sqlite = StoreType(rawValue: NSSQLiteStoreType)
    /// A store that lives in memory and is gone when it is removed: for tests and previews. (It is an
    /// in-memory SQLite database, so it behaves exactly like the file store, minus the file.)
    public static let inMemory = StoreType(rawValue: NSInMemoryStoreType)
    /// Core Data's binary store (`NSBinaryStoreType`), an atomic store: the whole object graph is read from
    /// the file into memory when the store is added, and each save writes the whole file again (a new file
    /// renamed over the old one). Fetches, saves and merges behave as for a SQLite store; batch requests and
    /// persistent history are refused, and a store of another model version is not migrated. The file is an
    /// `NSKeyedArchiver` archive of ObjectGraph's own layout, not Apple's (see "Binary stores" in
    /// Docs/ObjectGraph.md).
    public static let binary = StoreType(rawValue: NSBinaryStoreType)

    /// The type string.
    public var description: String { rawValue }
  }
}
