import Foundation

extension NSManagedObjectContext {
  /// Runs a persistent history request against the coordinator's stores.
  func executeHistory(_ request: NSPersistentHistoryChangeRequest, _ coordinator: NSPersistentStoreCoordinator) throws
    -> NSPersistentHistoryResult
  {
    let stored: [(transaction: StoreHistoryTransaction, token: NSPersistentHistoryToken)]
    switch request.operation {
    case .fetchAfterToken(let token): stored = try coordinator.history(after: token, date: nil, in: request.storeIdentities)
    case .fetchAfterDate(let date): stored = try coordinator.history(after: nil, date: date, in: request.storeIdentities)
    case .deleteBeforeToken(let token):
      return Self.deletionResult(
        try coordinator.deleteHistory(through: token, date: nil, in: request.storeIdentities), request.resultType)
    case .deleteBeforeDate(let date):
      return Self.deletionResult(
        try coordinator.deleteHistory(through: nil, date: date, in: request.storeIdentities), request.resultType)
    }
    let filter = try request.fetchRequest.map { try HistoryFetchFilter($0) }
    let withChanges = filter != nil || ![.transactionsOnly, .count, .statusOnly].contains(request.resultType)
    var transactions = stored.map { Self.transaction($0.transaction, $0.token, withChanges: withChanges) }
    if let filter { transactions = try filter.apply(to: transactions) }
    switch request.resultType {
    case .statusOnly: return NSPersistentHistoryResult(resultType: .statusOnly, result: true)
    case .count: return NSPersistentHistoryResult(resultType: .count, result: transactions.count)
    case .objectIDs:
      var seen: Set<NSManagedObjectID> = []
      let ids = transactions.flatMap { ($0.changes ?? []).map(\.changedObjectID) }.filter { seen.insert($0).inserted }
      return NSPersistentHistoryResult(resultType: .objectIDs, result: ids)
    case .transactionsOnly:
      return NSPersistentHistoryResult(resultType: .transactionsOnly, result: transactions.map { $0.withoutChanges })
    case .changesOnly:
      return NSPersistentHistoryResult(resultType: .changesOnly, result: transactions.flatMap { $0.changes ?? [] })
    case .transactionsAndChanges:
      return NSPersistentHistoryResult(resultType: .transactionsAndChanges, result: transactions)
    }
  }

  private static func deletionResult(_ count: Int, _ type: NSPersistentHistoryResultType) -> NSPersistentHistoryResult {
    NSPersistentHistoryResult(resultType: type == .count ? .count : .statusOnly, result: type == .count ? count : true)
  }

  /// The public form of a stored transaction; each of its changes holds the transaction without its list of changes.
  private static func transaction(_ stored: StoreHistoryTransaction, _ token: NSPersistentHistoryToken, withChanges: Bool)
    -> NSPersistentHistoryTransaction
  {
    let bare = NSPersistentHistoryTransaction(
      timestamp: stored.timestamp, author: stored.author, contextName: stored.contextName, bundleID: stored.bundleID,
      processID: stored.processID, storeID: stored.storeIdentifier, transactionNumber: stored.number, token: token,
      changes: nil)
    guard withChanges else { return bare }
    return bare.with(
      changes: stored.changes.map { change in
        let type: NSPersistentHistoryChangeType =
          switch change.kind {
          case .insert: .insert
          case .update: .update
          case .delete: .delete
          }
        return NSPersistentHistoryChange(
          changeID: change.number, changedObjectID: change.objectID, changeType: type,
          updatedProperties: change.updatedProperties, transaction: bare, tombstone: change.tombstone)
      })
  }
}

extension NSPersistentHistoryTransaction {
  /// The transaction's changes as the IDs a merge takes (`mergeChanges(fromContextDidSave:)`).
  public var savedObjectIDs: SavedObjectIDs {
    var inserted: Set<NSManagedObjectID> = []
    var updated: Set<NSManagedObjectID> = []
    var deleted: Set<NSManagedObjectID> = []
    for change in changes ?? [] {
      switch change.changeType {
      case .insert: inserted.insert(change.changedObjectID)
      case .update: updated.insert(change.changedObjectID)
      case .delete: deleted.insert(change.changedObjectID)
      }
    }
    return SavedObjectIDs(inserted: inserted, updated: updated, deleted: deleted)
  }

  /// The transaction as a did-save notification holding its object IDs (Core Data's
  /// `objectIDNotification()`), for `mergeChanges(fromContextDidSave:)`.
  public func objectIDNotification() -> Notification {
    let ids = savedObjectIDs
    return Notification(
      name: NSManagedObjectContext.didSaveObjectIDsNotification, object: nil,
      userInfo: [
        NSManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue: ids.inserted,
        NSManagedObjectContext.NotificationKey.updatedObjectIDs.rawValue: ids.updated,
        NSManagedObjectContext.NotificationKey.deletedObjectIDs.rawValue: ids.deleted,
      ])
  }
}

extension NSPersistentHistoryTransaction {
  /// ``entityDescription``; the context is not needed (Core Data's `entityDescription(with:)`).
  public static func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? { entityDescription }
}

extension NSPersistentHistoryChange {
  /// ``entityDescription``; the context is not needed (Core Data's `entityDescription(with:)`).
  public static func entityDescription(with context: NSManagedObjectContext) -> NSEntityDescription? { entityDescription }
}
