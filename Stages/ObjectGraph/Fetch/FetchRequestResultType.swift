import Foundation

/// What a fetch returns (Core Data's `NSFetchRequestResultType`).
public enum NSFetchRequestResultType: Sendable, Hashable {
  /// Managed objects (Core Data's default).
  case managedObjectResultType
  /// The matching objects' IDs, without making the objects.
  case managedObjectIDResultType
  /// One dictionary per row, holding ``NSFetchRequest/propertiesToFetch`` (every attribute when that is
  /// `nil`), read from the store as it is: unsaved changes are not included, as in Core Data.
  case dictionaryResultType
  /// A single `NSNumber`: how many objects match.
  case countResultType

  /// The result type a request for `Result` starts with: objects for a managed object class, IDs for
  /// ``NSManagedObjectID``, dictionaries for `NSDictionary` and `[String: Any]`, a count for `NSNumber`.
  static func natural<Result>(for type: Result.Type) -> NSFetchRequestResultType {
    if type is NSManagedObjectID.Type { return .managedObjectIDResultType }
    if type is NSNumber.Type { return .countResultType }
    if type is NSDictionary.Type || type == [String: Any].self { return .dictionaryResultType }
    return .managedObjectResultType
  }
}
