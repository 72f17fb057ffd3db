import Foundation

extension PersistentStoreCoordinator {
  /// The token of the last transaction of the given stores (all of them for `nil`) that track history,
  /// or `nil` when none has any (Core Data's `currentPersistentHistoryToken(fromStores:)`). With several
  /// stores, the first one's that has a transaction.
  public func currentPersistentHistoryToken(fromStores stores: [PersistentStore]? = nil) -> PersistentHistoryToken? {
    let candidates = stores ?? persistentStores
    return try? serialized {
      for store in candidates where store.options.persistentHistoryTracking {
        if let number = try store.lastHistoryTransaction() {
          return PersistentHistoryToken(storeIdentifier: store.identifier, transactionNumber: number)
        }
      }
      return nil
    }
  }

  /// The transactions of every tracking store after a token or date, oldest first.
  func history(after token: PersistentHistoryToken?, date: Date?) throws -> [StoreHistoryTransaction] {
    try serialized {
      var transactions: [StoreHistoryTransaction] = []
      for store in try trackingStores(token) {
        transactions += try store.history(after: Self.bound(token, date))
      }
      return transactions.sorted { ($0.timestamp, $0.number) < ($1.timestamp, $1.number) }
    }
  }

  /// Deletes the transactions of every tracking store up to a token or before a date; returns how many.
  func deleteHistory(through token: PersistentHistoryToken?, date: Date?) throws -> Int {
    try serialized {
      var count = 0
      for store in try trackingStores(token) {
        count += try store.deleteHistory(through: Self.bound(token, date))
      }
      return count
    }
  }

  /// Where a history request starts or stops: a date, else a token's transaction, else everything.
  private static func bound(_ token: PersistentHistoryToken?, _ date: Date?) -> StoreHistoryBound {
    date.map { .date($0) } ?? token.map { .transaction($0.transactionNumber) } ?? .all
  }

  /// The stores a history request reads: the token's, or every one that tracks history.
  private func trackingStores(_ token: PersistentHistoryToken?) throws -> [PersistentStore] {
    let tracking = persistentStores.filter { $0.options.persistentHistoryTracking }
    guard !tracking.isEmpty else {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "No store of this coordinator tracks persistent history. Add the store with StoreOptions(persistentHistoryTracking: true) (or the description's persistentHistoryTracking) to record and read it."
      )
    }
    guard let token else { return tracking }
    guard let store = tracking.first(where: { $0.identifier == token.storeIdentifier }) else {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "History token \(token) names a store this coordinator does not have (or that does not track history).")
    }
    return [store]
  }
}
