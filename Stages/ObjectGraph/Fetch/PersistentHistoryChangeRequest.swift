import Foundation

/// Reads or deletes persistent history; run it with
/// ``NSManagedObjectContext/execute(_:)``. The stores must be added with ``NSPersistentHistoryTrackingKey`` set to `true`.
///
/// ```swift
/// let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// let result = try context.execute(request) as? NSPersistentHistoryResult
/// for transaction in result?.result as? [NSPersistentHistoryTransaction] ?? [] where transaction.author != "app" {
///   context.mergeChanges(fromContextDidSave: transaction.savedObjectIDs)
///   lastToken = transaction.token
/// }
/// ```
public final class NSPersistentHistoryChangeRequest: NSPersistentStoreRequest {
  enum Operation {
    case fetchAfterToken(NSPersistentHistoryToken?)
    case fetchAfterDate(Date)
    case deleteBeforeToken(NSPersistentHistoryToken?)
    case deleteBeforeDate(Date)
  }

  let operation: Operation
  /// What the result holds. Default ``NSPersistentHistoryResultType/transactionsAndChanges``.
  public var resultType: NSPersistentHistoryResultType = .transactionsAndChanges

  private init(_ operation: Operation) {
    self.operation = operation
  }

  /// The transactions of every store that tracks history after `token` (all of them for `nil`), oldest
  /// first: each store after the token's position in it, a store the token does not cover from its first
  /// transaction.
  public static func fetchHistory(after token: NSPersistentHistoryToken?) -> NSPersistentHistoryChangeRequest {
    NSPersistentHistoryChangeRequest(.fetchAfterToken(token))
  }

  /// The transactions written after `date`, oldest first.
  public static func fetchHistory(after date: Date) -> NSPersistentHistoryChangeRequest {
    NSPersistentHistoryChangeRequest(.fetchAfterDate(date))
  }

  /// Deletes the transactions up to and including `token`'s position in each store it covers (every
  /// one for `nil`), to keep history from growing once every reader has processed them.
  public static func deleteHistory(before token: NSPersistentHistoryToken?) -> NSPersistentHistoryChangeRequest {
    NSPersistentHistoryChangeRequest(.deleteBeforeToken(token))
  }

  /// Deletes the transactions written before `date`.
  public static func deleteHistory(before date: Date) -> NSPersistentHistoryChangeRequest {
    NSPersistentHistoryChangeRequest(.deleteBeforeDate(date))
  }
}
