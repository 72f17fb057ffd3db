import Foundation

/// What ``NSManagedObjectContext/execute(_:)`` returns (Core Data's `NSPersistentStoreResult`).
public protocol NSPersistentStoreResult: AnyObject {}
