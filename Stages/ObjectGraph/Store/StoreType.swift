import Foundation
import GRDB

/// The kinds of store ObjectGraph offers.
public enum StoreType: String, Sendable {
  /// A SQLite file laid out as Core Data lays out its SQLite stores.
  case sqlite = "SQLite"
  /// A store that lives in memory and is gone when it is removed: for tests and previews. (It is an
  /// in-memory SQLite database, so it behaves exactly like the file store, minus the file.)
  case inMemory = "InMemory"
}
