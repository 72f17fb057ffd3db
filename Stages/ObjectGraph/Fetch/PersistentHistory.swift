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

/// What happened to an object in a transaction (Core Data's `NSPersistentHistoryChangeType`).
public enum PersistentHistoryChangeType: Sendable, Hashable {
  case insert
  case update
  case delete
}

/// One object's change in a transaction (Core Data's `NSPersistentHistoryChange`).
public struct PersistentHistoryChange: Sendable, Hashable {
  /// The change's number, increasing through the store's history.
  public let changeID: Int64
  /// The object that changed.
  public let changedObjectID: ManagedObjectID
  /// How it changed.
  public let changeType: PersistentHistoryChangeType
  /// For an update, the names of the properties it changed (Core Data gives their descriptions);
  /// `nil` otherwise.
  public let updatedProperties: Set<String>?
}

/// One save (or batch request) written to a store, with who made it and what it changed (Core Data's
/// `NSPersistentHistoryTransaction`).
public struct PersistentHistoryTransaction: Sendable {
  /// When it was written.
  public let timestamp: Date
  /// The saving context's ``ManagedObjectContext/transactionAuthor``.
  public let author: String?
  /// The saving context's ``ManagedObjectContext/name``.
  public let contextName: String?
  /// The store it was written to.
  public let storeID: String
  /// Its place in the store's history.
  public let token: PersistentHistoryToken
  /// Its number in the store's history.
  public var transactionNumber: Int64 { token.transactionNumber }
  /// What it changed (`nil` when the request asked for transactions only).
  public let changes: [PersistentHistoryChange]?
}

/// What a history request returns (Core Data's `NSPersistentHistoryResultType`).
public enum PersistentHistoryResultType: Sendable, Hashable {
  /// `true` when the request ran.
  case statusOnly
  /// How many transactions it read or deleted.
  case count
  /// The transactions, without their changes.
  case transactionsOnly
  /// The changes, without their transactions.
  case changesOnly
  /// The transactions with their changes (the default).
  case transactionsAndChanges
}

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

  /// The transactions after `token` (all of them for `nil`), oldest first. With a token, only its store's.
  public static func fetchHistory(after token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
    PersistentHistoryChangeRequest(.fetchAfterToken(token))
  }

  /// The transactions written after `date`, oldest first.
  public static func fetchHistory(after date: Date) -> PersistentHistoryChangeRequest {
    PersistentHistoryChangeRequest(.fetchAfterDate(date))
  }

  /// Deletes the transactions up to and including `token` (every one for `nil`), to keep history from
  /// growing once every reader has processed them.
  public static func deleteHistory(before token: PersistentHistoryToken?) -> PersistentHistoryChangeRequest {
    PersistentHistoryChangeRequest(.deleteBeforeToken(token))
  }

  /// Deletes the transactions written before `date`.
  public static func deleteHistory(before date: Date) -> PersistentHistoryChangeRequest {
    PersistentHistoryChangeRequest(.deleteBeforeDate(date))
  }
}

/// The result of a ``PersistentHistoryChangeRequest`` (Core Data's `NSPersistentHistoryResult`).
public final class PersistentHistoryResult: PersistentStoreResult {
  /// The kind of ``result``.
  public let resultType: PersistentHistoryResultType
  /// `Bool`, `Int`, `[PersistentHistoryTransaction]` or `[PersistentHistoryChange]`, by ``resultType``.
  public let result: Any?

  init(resultType: PersistentHistoryResultType, result: Any?) {
    self.resultType = resultType
    self.result = result
  }
}
