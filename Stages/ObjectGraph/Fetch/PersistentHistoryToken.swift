import Foundation

/// Where a reader of persistent history got to: a transaction of one store (Core Data's
/// `NSPersistentHistoryToken`). Keep the last one you processed (it is `Codable`, to keep across
/// launches) and fetch the history after it next time.
public struct PersistentHistoryToken: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The store the transaction belongs to.
  public let storeIdentifier: String
  /// The transaction's number in that store.
  public let transactionNumber: Int64

  public var description: String { "<PersistentHistoryToken \(storeIdentifier) #\(transactionNumber)>" }
}
