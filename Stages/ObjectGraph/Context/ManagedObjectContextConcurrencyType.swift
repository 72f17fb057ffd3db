import Foundation

/// How a context runs its work (with its raw values), as
/// ``NSManagedObjectContext/init(concurrencyType:)`` takes it.
///
/// ```swift
/// let viewContext = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
/// let background = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
/// ```
///
/// Core Data's third case, `confinementConcurrencyType` (raw value 0, deprecated since iOS 9: a context used
/// from whichever thread made it) is left out: every context here has a queue.
public enum NSManagedObjectContextConcurrencyType: UInt, Sendable, Hashable {
  /// On a serial queue the context owns: for background work and for writing to the store.
  case privateQueueConcurrencyType = 0x01
  /// On the main queue (`DispatchQueue.main`): the context for everything the user sees.
  case mainQueueConcurrencyType = 0x02
}
