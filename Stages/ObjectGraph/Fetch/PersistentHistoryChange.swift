import Foundation

/// One object's change in a transaction.
public struct NSPersistentHistoryChange: Sendable, Hashable {
  /// The name of the entity ``fetchRequest`` is of.
  static let entityName = "NSPersistentHistoryChange"

  /// The entity of a history change, for a fetch request that narrows a history request to some changes
  /// (Core Data's `entityDescription`): its attributes are the keys a predicate may use.
  public static var entityDescription: NSEntityDescription? {
    HistoryEntities.entity(
      named: entityName,
      attributes: [
        ("changeID", .integer64AttributeType), ("changeType", .integer16AttributeType),
        ("changedObjectID", .objectIDAttributeType), ("changedEntity", .undefinedAttributeType),
        ("updatedProperties", .undefinedAttributeType), ("transaction", .undefinedAttributeType),
        ("tombstone", .undefinedAttributeType),
      ])
  }

  /// A fetch request of history changes, to set a predicate on and hand to
  /// ``NSPersistentHistoryChangeRequest/fetchRequest`` (Core Data's `fetchRequest`).
  ///
  /// ```swift
  /// let changes = NSPersistentHistoryChange.fetchRequest!
  /// changes.predicate = NSPredicate(format: "changedEntity == %@", Note.entity())
  /// ```
  public static var fetchRequest: NSFetchRequest<any NSFetchRequestResult>? {
    HistoryEntities.fetchRequest(of: entityDescription)
  }

  /// The change's number, increasing through the store's history.
  public let changeID: Int64
  /// The object that changed.
  public let changedObjectID: NSManagedObjectID
  /// How it changed.
  public let changeType: NSPersistentHistoryChangeType
  /// For an update, the names of the properties it changed (Core Data gives their descriptions);
  /// `nil` otherwise.
  public let updatedProperties: Set<String>?
  /// The transaction the change belongs to, without its list of changes (the change is one of them; keep
  /// the transaction you read it from for the others). `nil` for a change made by hand.
  public let transaction: NSPersistentHistoryTransaction?
  /// What a delete left behind: the values the object had in its attributes marked
  /// `preservesValueInHistoryOnDeletion` ("Preserve After Deletion" in Xcode), by name, read from its row just
  /// before the row was deleted; numbers as `NSNumber`s. `nil` for an insert or an update, or a delete whose
  /// entity preserves nothing (Core Data's `tombstone`). A batch delete records none.
  ///
  /// ```swift
  /// if change.changeType == .delete, let title = change.tombstone?["title"] as? String { forget(title) }
  /// ```
  public var tombstone: [AnyHashable: Any]? {
    preservedValues.map { values in Dictionary(uniqueKeysWithValues: values.map { (AnyHashable($0.key), $0.value as Any) }) }
  }
  /// ``tombstone`` as the engine keeps it, by attribute name.
  let preservedValues: [String: any Sendable]?

  init(
    changeID: Int64, changedObjectID: NSManagedObjectID, changeType: NSPersistentHistoryChangeType,
    updatedProperties: Set<String>?, transaction: NSPersistentHistoryTransaction? = nil,
    tombstone: [String: any Sendable]? = nil
  ) {
    self.preservedValues = tombstone
    self.changeID = changeID
    self.changedObjectID = changedObjectID
    self.changeType = changeType
    self.updatedProperties = updatedProperties
    self.transaction = transaction
  }

  /// Two changes are equal when they are the same change of the same object: their transaction is not compared.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.changeID == rhs.changeID && lhs.changedObjectID == rhs.changedObjectID && lhs.changeType == rhs.changeType
      && lhs.updatedProperties == rhs.updatedProperties
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(changeID)
    hasher.combine(changedObjectID)
  }
}
