import Foundation

extension ManagedObjectContext {
  /// Runs a persistent history request against the coordinator's stores.
  func executeHistory(_ request: PersistentHistoryChangeRequest, _ coordinator: PersistentStoreCoordinator) throws
    -> PersistentHistoryResult
  {
    let transactions: [(transaction: StoreHistoryTransaction, token: PersistentHistoryToken)]
    switch request.operation {
    case .fetchAfterToken(let token): transactions = try coordinator.history(after: token, date: nil)
    case .fetchAfterDate(let date): transactions = try coordinator.history(after: nil, date: date)
    case .deleteBeforeToken(let token):
      return Self.deletionResult(try coordinator.deleteHistory(through: token, date: nil), request.resultType)
    case .deleteBeforeDate(let date):
      return Self.deletionResult(try coordinator.deleteHistory(through: nil, date: date), request.resultType)
    }
    switch request.resultType {
    case .statusOnly: return PersistentHistoryResult(resultType: .statusOnly, result: true)
    case .count: return PersistentHistoryResult(resultType: .count, result: transactions.count)
    case .transactionsOnly:
      return PersistentHistoryResult(
        resultType: .transactionsOnly, result: transactions.map { Self.transaction($0.transaction, $0.token, withChanges: false) })
    case .changesOnly:
      return PersistentHistoryResult(
        resultType: .changesOnly,
        result: transactions.flatMap { Self.transaction($0.transaction, $0.token, withChanges: true).changes ?? [] })
    case .transactionsAndChanges:
      return PersistentHistoryResult(
        resultType: .transactionsAndChanges, result: transactions.map { Self.transaction($0.transaction, $0.token, withChanges: true) })
    }
  }

  private static func deletionResult(_ count: Int, _ type: PersistentHistoryResultType) -> PersistentHistoryResult {
    PersistentHistoryResult(resultType: type == .count ? .count : .statusOnly, result: type == .count ? count : true)
  }

  private static func transaction(_ stored: StoreHistoryTransaction, _ token: PersistentHistoryToken, withChanges: Bool)
    -> PersistentHistoryTransaction
  {
    PersistentHistoryTransaction(
      timestamp: stored.timestamp, author: stored.author, contextName: stored.contextName, storeID: stored.storeIdentifier,
      transactionNumber: stored.number, token: token,
      changes: withChanges
        ? stored.changes.map { change in
          let type: PersistentHistoryChangeType =
            switch change.kind {
            case .insert: .insert
            case .update: .update
            case .delete: .delete
            }
          return PersistentHistoryChange(
            changeID: change.number, changedObjectID: change.objectID, changeType: type, updatedProperties: change.updatedProperties)
        } : nil)
  }
}

extension PersistentHistoryTransaction {
  /// The transaction's changes as the IDs a merge takes (`mergeChanges(fromContextDidSave:)`).
  public var savedObjectIDs: SavedObjectIDs {
    var inserted: Set<ManagedObjectID> = []
    var updated: Set<ManagedObjectID> = []
    var deleted: Set<ManagedObjectID> = []
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
      name: ManagedObjectContext.didSaveObjectIDsNotification, object: nil,
      userInfo: [
        ManagedObjectContext.NotificationKey.insertedObjectIDs.rawValue: ids.inserted,
        ManagedObjectContext.NotificationKey.updatedObjectIDs.rawValue: ids.updated,
        ManagedObjectContext.NotificationKey.deletedObjectIDs.rawValue: ids.deleted,
      ])
  }
}
