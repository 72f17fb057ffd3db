import Foundation

/// The kinds of request a persistent store is sent (Core Data's `NSPersistentStoreRequestType`), with Core
/// Data's raw values: a request's ``NSPersistentStoreRequest/requestType``.
public enum NSPersistentStoreRequestType: UInt, Sendable {
  /// A fetch request (`NSFetchRequest`, and an asynchronous fetch's or a history request's reading).
  case fetchRequestType = 1
  /// A save request (`NSSaveChangesRequest`).
  case saveRequestType = 2
  /// A batch insert (`NSBatchInsertRequest`).
  case batchInsertRequestType = 5
  /// A batch update (`NSBatchUpdateRequest`).
  case batchUpdateRequestType = 6
  /// A batch delete (`NSBatchDeleteRequest`).
  case batchDeleteRequestType = 7
}
