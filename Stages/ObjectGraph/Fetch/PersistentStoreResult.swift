import Foundation

/// What ``ManagedObjectContext/execute(_:)`` returns (Core Data's `NSPersistentStoreResult`).
public protocol PersistentStoreResult: AnyObject {}
