import Foundation

/// A request a context hands straight to the persistent store with
/// ``NSManagedObjectContext/execute(_:)``: the batch requests, which
/// change rows in SQL without making objects.
public protocol NSPersistentStoreRequest: AnyObject {}
