import Foundation

/// What ``NSManagedObjectContext/execute(_:)`` returns.
public protocol NSPersistentStoreResult: AnyObject {}
