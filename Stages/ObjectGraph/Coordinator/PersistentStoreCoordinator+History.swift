import Foundation

extension NSPersistentStoreCoordinator {
  /// One token for the given stores (all of them for `nil` or an empty array) that track history, at each
  /// one's last transaction (0 for a store with none yet), or `nil` when none of them has a transaction
  /// (Core Data's `currentPersistentHistoryToken(fromStores:)`, "a single persistent history token
  /// representing all of the specified stores").
  public func currentPersistentHistoryToken(fromStores stores: [NSPersistentStore]? = nil) -> NSPersistentHistoryToken? {
    let candidates = stores.flatMap { $0.isEmpty ? nil : $0 } ?? persistentStores
    return try? serialized {
      var positions: [String: Int64] = [:]
      var anyTransaction = false
      for store in candidates where store.storeOptions.persistentHistoryTracking {
        let last = try store.lastHistoryTransaction()
        anyTransaction = anyTransaction || last != nil
        positions[store.identifier] = last ?? 0
      }
      return anyTransaction ? NSPersistentHistoryToken(transactionNumbers: positions) : nil
    }
  }

  /// The transactions of every tracking store (of `stores`, when given) after a token (each store after its own position; a store
  /// the token does not cover from its first transaction) or a date, oldest first, each with the token
  /// of a reader that has read it and every one before it in the list.
  ///
  /// Each store's transactions keep their order; the stores' lists are merged by timestamp.
  func history(after token: NSPersistentHistoryToken?, date: Date?, in stores: [ObjectIdentifier]? = nil) throws -> [(
    transaction: StoreHistoryTransaction, token: NSPersistentHistoryToken
  )] {
    try serialized {
      var positions: [String: Int64] = [:]
      var pending: [ArraySlice<StoreHistoryTransaction>] = []
      for store in try affected(try trackingStores(token), by: stores) {
        let bound: StoreHistoryBound =
          if let date { .date(date) } else { token?.transactionNumber(forStore: store.identifier).map { .transaction($0) } ?? .all }
        let read = try store.history(after: bound)
        positions[store.identifier] = read.start
        pending.append(read.transactions[...])
      }
      var merged: [(transaction: StoreHistoryTransaction, token: NSPersistentHistoryToken)] = []
      while let next = Self.earliest(pending), let transaction = pending[next].popFirst() {
        positions[transaction.storeIdentifier] = transaction.number
        merged.append((transaction, NSPersistentHistoryToken(transactionNumbers: positions)))
      }
      return merged
    }
  }

  /// Which list's first transaction is the earliest (by timestamp, then by the list's place), or `nil`
  /// when every list is empty.
  private static func earliest(_ lists: [ArraySlice<StoreHistoryTransaction>]) -> Int? {
    var best: (index: Int, timestamp: Date)?
    for (index, list) in lists.enumerated() {
      guard let first = list.first else { continue }
      if best.map({ first.timestamp < $0.timestamp }) ?? true { best = (index, first.timestamp) }
    }
    return best?.index
  }

  /// Deletes the transactions of every tracking store (of `stores`, when given) before a date, or those up to a token's position
  /// in each store it covers (none of a store it does not cover); returns how many.
  func deleteHistory(through token: NSPersistentHistoryToken?, date: Date?, in stores: [ObjectIdentifier]? = nil) throws -> Int {
    try serialized {
      var count = 0
      for store in try affected(try trackingStores(token), by: stores) {
        let bound: StoreHistoryBound
        if let date {
          bound = .date(date)
        } else if let token {
          guard let number = token.transactionNumber(forStore: store.identifier) else { continue }
          bound = .transaction(number)
        } else {
          bound = .all
        }
        count += try store.deleteHistory(through: bound)
      }
      return count
    }
  }

  /// The stores a history request reads: every one that tracks history. A token must cover at least
  /// one of them.
  private func trackingStores(_ token: NSPersistentHistoryToken?) throws -> [NSPersistentStore] {
    let tracking = persistentStores.filter { $0.storeOptions.persistentHistoryTracking }
    guard !tracking.isEmpty else {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "No store of this coordinator tracks persistent history. Add the store with the option NSPersistentHistoryTrackingKey: true (a description: setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)) to record and read it."
      )
    }
    guard let token, !token.transactionNumbers.isEmpty else { return tracking }
    guard tracking.contains(where: { token.transactionNumber(forStore: $0.identifier) != nil }) else {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "History token \(token) names no store of this coordinator that tracks history (its stores: \(tracking.map(\.identifier))). Use a token this coordinator's stores gave (currentPersistentHistoryToken(fromStores:), or a transaction's token), or fetch the history after nil to read it all."
      )
    }
    return tracking
  }
}
