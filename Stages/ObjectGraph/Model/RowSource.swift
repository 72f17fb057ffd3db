import Foundation
internal import Synchronization

/// Where a fetched row comes from: an entity's table in one store. A fetch hands each new object this and
/// the row's primary key instead of an ``NSManagedObjectID``; the object makes its ID on the first read of
/// ``NSManagedObject/objectID`` (once: later reads return the same instance). A fetch of 100,000 rows thus
/// allocates no ID objects that nobody reads. Equality and hashing do not change: they depend only on the
/// store, the table and the primary key.
final class RowSource: Sendable {
  let entity: NSEntityDescription
  let storeNumber: Int
  let storeIdentifier: String
  let table: Int64

  init(entity: NSEntityDescription, storeNumber: Int, storeIdentifier: String, table: Int64) {
    self.entity = entity
    self.storeNumber = storeNumber
    self.storeIdentifier = storeIdentifier
    self.table = table
  }

  func makeID(primaryKey: Int64) -> NSManagedObjectID {
    NSManagedObjectID(
      entity: entity, key: .permanent(store: storeNumber, table: table, primaryKey: primaryKey), storeIdentifier: storeIdentifier)
  }
}
