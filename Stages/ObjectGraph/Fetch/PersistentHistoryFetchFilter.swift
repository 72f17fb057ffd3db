import Foundation

/// What an ``NSPersistentHistoryChangeRequest/fetchRequest`` keeps of the history a request read: whole
/// transactions that match its predicate (a request of ``NSPersistentHistoryTransaction/fetchRequest``), or
/// the changes that match and the transactions left with one (``NSPersistentHistoryChange/fetchRequest``);
/// its `fetchLimit` caps what it keeps. The predicate is evaluated in memory, on each transaction or change
/// as a dictionary of the keys its entity describes.
struct HistoryFetchFilter {
  private let predicate: FetchPredicate?
  private let limit: Int
  private let onChanges: Bool

  /// - Throws: ``ObjectGraphError`` (``NSPersistentStoreOperationError``) for a fetch request of another
  ///   entity, and the predicate's own errors.
  init(_ request: NSFetchRequest<any NSFetchRequestResult>) throws {
    switch request.entityName {
    case NSPersistentHistoryTransaction.entityName: onChanges = false
    case NSPersistentHistoryChange.entityName: onChanges = true
    default:
      throw ObjectGraphError(
        .persistentStoreOperation,
        "A history request's fetchRequest is of the entity \(request.entityName); it must be NSPersistentHistoryTransaction.fetchRequest (to keep some transactions) or NSPersistentHistoryChange.fetchRequest (to keep some changes), with the predicate set on it."
      )
    }
    predicate = try request.predicate.map { try FetchPredicate($0) }
    limit = request.fetchLimit
  }

  /// The transactions, or their changes, that match, oldest first, up to the limit.
  func apply(to transactions: [NSPersistentHistoryTransaction]) throws -> [NSPersistentHistoryTransaction] {
    var kept: [NSPersistentHistoryTransaction] = []
    var changesKept = 0
    for transaction in transactions {
      if limit > 0 && (onChanges ? changesKept : kept.count) >= limit { break }
      guard onChanges else {
        if try matches(Self.keys(of: transaction)) { kept.append(transaction) }
        continue
      }
      var changes: [NSPersistentHistoryChange] = []
      for change in transaction.changes ?? [] where limit == 0 || changesKept < limit {
        if try matches(Self.keys(of: change)) {
          changes.append(change)
          changesKept += 1
        }
      }
      if !changes.isEmpty { kept.append(transaction.with(changes: changes)) }
    }
    return kept
  }

  private func matches(_ keys: [String: Any?]) throws -> Bool {
    try predicate?.evaluate(
      with: HistoryRecord(keys: keys, entity: onChanges ? NSPersistentHistoryChange.entityName : NSPersistentHistoryTransaction.entityName))
      ?? true
  }

  /// A transaction as a predicate reads it.
  static func keys(of transaction: NSPersistentHistoryTransaction) -> [String: Any?] {
    [
      "timestamp": transaction.timestamp, "author": transaction.author, "bundleID": transaction.bundleID,
      "processID": transaction.processID, "contextName": transaction.contextName, "storeID": transaction.storeID,
      "transactionNumber": transaction.transactionNumber, "changes": (transaction.changes ?? []).map { keys(of: $0) },
    ]
  }

  /// A change as a predicate reads it: its type as the raw value, its object's entity as the entity.
  static func keys(of change: NSPersistentHistoryChange) -> [String: Any?] {
    [
      "changeID": change.changeID, "changeType": change.changeType.rawValue, "changedObjectID": change.changedObjectID,
      "changedEntity": change.changedObjectID.entity, "updatedProperties": change.updatedProperties.map { Array($0) },
      "transaction": change.transaction.map { keys(of: $0) },
      "tombstone": change.preservedValues,
    ]
  }
}

/// A transaction or change as a predicate reads it: its keys, and an error for any other key (a dictionary
/// would answer `nil`, and the predicate would silently match nothing).
private struct HistoryRecord: PredicateEvaluable {
  let keys: [String: Any?]
  let entity: String

  func predicateValue(atKeyPath path: [String]) throws -> PredicateKeyPathValue {
    try check(path)
    // Through a key with no value (an insert's tombstone): nil, as a to-one with no object reads.
    let steps = path.filter { $0 != "SELF" }
    if steps.count > 1, let first = steps.first, case .some(.none) = keys[first] { return .single(.null) }
    return try PredicateValueSubject(keys).predicateValue(atKeyPath: path)
  }

  func predicateObjects(atKeyPath path: [String]) throws -> [any PredicateEvaluable] {
    try check(path)
    return try PredicateValueSubject(keys).predicateObjects(atKeyPath: path)
  }

  private func check(_ path: [String]) throws {
    guard let key = path.first(where: { $0 != "SELF" }), keys[key] == nil else { return }
    throw ObjectGraphError(
      .unknownKey,
      "'\(key)' is not a key of \(entity) in a history fetch request's predicate; its keys are \(keys.keys.sorted().joined(separator: ", "))."
    )
  }
}
