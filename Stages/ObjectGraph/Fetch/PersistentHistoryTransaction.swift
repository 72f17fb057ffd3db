import Foundation

/// One save (or batch request) written to a store, with who made it and what it changed (Core Data's
/// `NSPersistentHistoryTransaction`).
public struct NSPersistentHistoryTransaction: Sendable {
  /// The name of the entity ``fetchRequest`` is of.
  static let entityName = "NSPersistentHistoryTransaction"

  /// The entity of a history transaction, for a fetch request that narrows a history request to some
  /// transactions (Core Data's `entityDescription`): its attributes are the keys a predicate may use.
  public static var entityDescription: NSEntityDescription? {
    HistoryEntities.entity(
      named: entityName,
      attributes: [
        ("timestamp", .dateAttributeType), ("author", .stringAttributeType), ("bundleID", .stringAttributeType),
        ("processID", .stringAttributeType), ("contextName", .stringAttributeType), ("storeID", .stringAttributeType),
        ("transactionNumber", .integer64AttributeType), ("changes", .undefinedAttributeType),
      ])
  }

  /// A fetch request of history transactions, to set a predicate on and hand to
  /// ``NSPersistentHistoryChangeRequest/fetchRequest`` (Core Data's `fetchRequest`).
  ///
  /// ```swift
  /// let transactions = NSPersistentHistoryTransaction.fetchRequest!
  /// transactions.predicate = NSPredicate(format: "author != %@", "app")
  /// ```
  public static var fetchRequest: NSFetchRequest<any NSFetchRequestResult>? {
    HistoryEntities.fetchRequest(of: entityDescription)
  }

  /// When it was written.
  public let timestamp: Date
  /// The saving context's ``NSManagedObjectContext/transactionAuthor``.
  public let author: String?
  /// The saving context's ``NSManagedObjectContext/name``.
  public let contextName: String?
  /// The bundle identifier of the program that wrote it (`Bundle.main.bundleIdentifier`), or, as a program on
  /// Linux usually has none, the program's name (`ProcessInfo.processInfo.processName`). Empty for a
  /// transaction an earlier version of the engine recorded.
  public let bundleID: String
  /// The ID of the process that wrote it, in decimal (`ProcessInfo.processInfo.processIdentifier`): which of
  /// an app's processes saved (Core Data does not say what the string holds). Empty for a transaction an
  /// earlier version of the engine recorded.
  public let processID: String
  /// The store it was written to.
  public let storeID: String
  /// Its number in its store's history: increasing, never reused.
  public let transactionNumber: Int64
  /// Where a reader is once it has processed this transaction and the ones before it in the same
  /// result: every store's position, this transaction's store at this transaction. Keep the token of
  /// the last transaction you processed and fetch the history after it: each store is read after its
  /// own position, so no store's later transactions are missed.
  public let token: NSPersistentHistoryToken
  /// What it changed (`nil` when the request asked for transactions only).
  public let changes: [NSPersistentHistoryChange]?
}

extension NSPersistentHistoryTransaction {
  /// The transaction without its list of changes (what ``NSPersistentHistoryResultType/transactionsOnly`` gives).
  var withoutChanges: NSPersistentHistoryTransaction { with(changes: nil) }

  /// The transaction with another list of changes.
  func with(changes: [NSPersistentHistoryChange]?) -> NSPersistentHistoryTransaction {
    NSPersistentHistoryTransaction(
      timestamp: timestamp, author: author, contextName: contextName, bundleID: bundleID, processID: processID,
      storeID: storeID, transactionNumber: transactionNumber, token: token, changes: changes)
  }
}
