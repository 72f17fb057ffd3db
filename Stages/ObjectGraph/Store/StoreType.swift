import Foundation
import GRDB

/// The kinds of store ObjectGraph offers.
public enum StoreType: String, Sendable {
  /// A SQLite file laid out as Core Data lays out its SQLite stores.
  case sqlite = "SQLite"
  /// A store that lives in memory and is gone when it is removed: for tests and previews. (It is an
  /// in-memory SQLite database, so it behaves exactly like the file store, minus the file.)
  case inMemory = "InMemory"
  /// Core Data's binary store (`NSBinaryStoreType`), an atomic store: the whole object graph is read from
  /// the file into memory when the store is added, and each save writes the whole file again (a new file
  /// renamed over the old one). Fetches, saves and merges behave as for a SQLite store; batch requests and
  /// persistent history are refused, and a store of another model version is not migrated. The file is an
  /// `NSKeyedArchiver` archive of ObjectGraph's own layout, not Apple's (see "Binary stores" in
  /// Docs/ObjectGraph.md).
  case binary = "Binary"
}
