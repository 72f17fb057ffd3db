import Foundation

/// Reads or deletes persistent history (Core Data's `NSPersistentHistoryChangeRequest`); run it with
/// ``ManagedObjectContext/execute(_:)``. The stores must have ``StoreOptions/persistentHistoryTracking``.
///
/// ```swift
/// let request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// let result = try context.execute(request) as? PersistentHistoryResult
/// for transaction in result?.result as? [PersistentHistoryTransaction] ?? [] where transaction.author != "app" {
///   context.mergeChanges(fromContextDidSave: transaction.savedObjectIDs)
///   lastToken = transaction.token
/// }
/// ```
public final class PersistentHistoryChangeRequest: PersistentStoreRequest {
  enum Operation {
    case fetchAfterToken(PersistentHistoryToken?)
    case fetchAfterDate(Date)
    case deleteBeforeToken(PersistentHistoryToken?)
    case deleteBeforeDate(Date)
  }

  let operation: Operation
  /// What the result holds. Default ``PersistentHistoryResultType/transactionsAndChanges``.
  public var resultType: PersistentHistoryResultType = .transactionsAndChanges

  private init(_ operation: Operation) {
    self.operation = operation
  }

  /// The transactions of every store that tracks history after `token` (all of them for `nil`), oldest
  /// first: each store after the token's position in it, a store the token does not cover from its first
  /// transaction.
  public static func fetchHistory(after token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
    PersistentHistoryChangeRequest(.fetchAfterToken(token))
  }

  /// The transactions written after `date`, oldest first.
  public static func fetchHistory(after date: Date) -> PersistentHistoryChangeRequest {
    PersistentHistoryChangeRequest(.fetchAfterDate(date))
  }

  /// Deletes the transactions up to and including `token`'s position in each store it covers (every
  /// one for `nil`), to keep history from growing once every reader has processed them.
  public static func deleteHistory(before token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
    PersistentHistoryChangeRequest(.deleteBeforeToken(token))
  }

  /// Deletes the transactions written before `date`.
  public static func deleteHistory(before date: Date) -> PersistentHistoryChangeRequest {
    PersistentHistoryChangeRequest(.deleteBeforeDate(date))
  }
}
