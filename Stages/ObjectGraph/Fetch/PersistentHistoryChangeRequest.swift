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
public final class NSPersistentHistoryChangeRequest: NSPersistentStoreRequest, StoreSelecting {
  /// The kind of request: `.fetchRequestType` (Core Data keeps its own value for history requests private; the engine reports a fetch, which it is).
  public var requestType: NSPersistentStoreRequestType { .fetchRequestType }

  enum Operation {
    case fetchAfterToken(NSPersistentHistoryToken?)
    case fetchAfterDate(Date)
    case deleteBeforeToken(NSPersistentHistoryToken?)
    case deleteBeforeDate(Date)
  }

  let operation: Operation
  /// What the result holds. Default ``NSPersistentHistoryResultType/transactionsAndChanges``.
  public var resultType: NSPersistentHistoryResultType = .transactionsAndChanges
  /// The stores named by `affectedStores` (declared with the coordinator), `nil` for all.
  var storeSelection: [AnyObject]?
  /// Narrows a fetch of history to the transactions or changes that match a predicate (Core Data's
  /// `fetchRequest`): ``NSPersistentHistoryTransaction/fetchRequest`` keeps whole transactions,
  /// ``NSPersistentHistoryChange/fetchRequest`` keeps the changes that match and the transactions that
  /// still have one. Its `fetchLimit` caps the transactions, or the changes. Ignored by a deletion.
  ///
  /// ```swift
  /// let request = NSPersistentHistoryChangeRequest.fetchHistory(after: lastToken)
  /// if let transactions = NSPersistentHistoryTransaction.fetchRequest {
  ///   transactions.predicate = NSPredicate(format: "author != %@", "app")  // not our own saves
  ///   request.fetchRequest = transactions
  /// }
  /// ```
  ///
  /// The predicate is evaluated in memory on each transaction (keys `timestamp`, `author`, `bundleID`,
  /// `processID`, `contextName`, `storeID`, `transactionNumber`, `changes`) or change (`changeID`,
  /// `changeType` as its raw value, `changedObjectID`, `changedEntity`, an entity to compare with an
  /// ``NSEntityDescription``, `updatedProperties`, `transaction` with the transaction's keys).
  public var fetchRequest: NSFetchRequest<any NSFetchRequestResult>?

  /// The token the request reads after or deletes up to (`nil` for a request by date, or one made with `nil`).
  public var token: NSPersistentHistoryToken? {
    switch operation {
    case .fetchAfterToken(let token), .deleteBeforeToken(let token): token
    case .fetchAfterDate, .deleteBeforeDate: nil
    }
  }

  private init(_ operation: Operation) {
    self.operation = operation
  }

  /// The transactions of every store that tracks history after `token` (all of them for `nil`), oldest
  /// first: each store after the token's position in it, a store the token does not cover from its first
  /// transaction.
  public static func fetchHistory(after token: NSPersistentHistoryToken?) -> NSPersistentHistoryChangeRequest {
    NSPersistentHistoryChangeRequest(.fetchAfterToken(token))
  }

  /// The transactions after `transaction` (all of them for `nil`): the ones after its token.
  public static func fetchHistory(after transaction: NSPersistentHistoryTransaction?) -> NSPersistentHistoryChangeRequest {
    NSPersistentHistoryChangeRequest(.fetchAfterToken(transaction?.token))
  }

  /// All the history that matches `fetchRequest` (made from ``NSPersistentHistoryTransaction/fetchRequest``
  /// or ``NSPersistentHistoryChange/fetchRequest``; see ``fetchRequest``), oldest first.
  public static func fetchHistory(withFetch fetchRequest: NSFetchRequest<any NSFetchRequestResult>)
    -> NSPersistentHistoryChangeRequest
  {
    let request = NSPersistentHistoryChangeRequest(.fetchAfterToken(nil))
    request.fetchRequest = fetchRequest
    return request
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

  /// Deletes `transaction` and the transactions before it (all the history for `nil`): up to its token, as
  /// ``deleteHistory(before:)-(NSPersistentHistoryToken?)`` does.
  public static func deleteHistory(before transaction: NSPersistentHistoryTransaction?) -> NSPersistentHistoryChangeRequest {
    NSPersistentHistoryChangeRequest(.deleteBeforeToken(transaction?.token))
  }

  /// Deletes the transactions written before `date`.
  public static func deleteHistory(before date: Date) -> NSPersistentHistoryChangeRequest {
    NSPersistentHistoryChangeRequest(.deleteBeforeDate(date))
  }
}
