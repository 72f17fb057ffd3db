import Foundation

/// What a fetch returns: an option set, as Core Data declares it, whose
/// four values are used one at a time.
///
/// ```swift
/// let request = NSFetchRequest<NSDictionary>(entityName: "Note")
/// request.resultType = .dictionaryResultType
/// ```
///
/// A value that is not one of the four (a raw value of 3, say) makes a fetch fail with
/// ``ObjectGraphInvalidValueError``.
public struct NSFetchRequestResultType: OptionSet, Sendable, Hashable {
  /// Core Data's number for the result type (0, 1, 2 or 4).
  public let rawValue: UInt

  /// Makes a result type from Core Data's number.
  public init(rawValue: UInt) {
    self.rawValue = rawValue
  }

  /// Managed objects (Core Data's default): raw value 0.
  public static let managedObjectResultType = NSFetchRequestResultType([])
  /// The matching objects' IDs, without making the objects: raw value 1.
  public static let managedObjectIDResultType = NSFetchRequestResultType(rawValue: 1 << 0)
  /// One dictionary per row, holding ``NSFetchRequest/propertiesToFetch`` (every attribute when that is
  /// `nil`), read from the store as it is: unsaved changes are not included, as in Core Data. Raw value 2.
  public static let dictionaryResultType = NSFetchRequestResultType(rawValue: 1 << 1)
  /// A single `NSNumber`: how many objects match. Raw value 4.
  public static let countResultType = NSFetchRequestResultType(rawValue: 1 << 2)

  /// The result type a request for `Result` starts with: objects for a managed object class, IDs for
  /// ``NSManagedObjectID``, dictionaries for `NSDictionary` and `[String: Any]`, a count for `NSNumber`.
  static func natural<Result>(for type: Result.Type) -> NSFetchRequestResultType {
    if type is NSManagedObjectID.Type { return .managedObjectIDResultType }
    if type is NSNumber.Type { return .countResultType }
    if type is NSDictionary.Type || type == [String: Any].self { return .dictionaryResultType }
    return .managedObjectResultType
  }

  /// The value's name (`dictionaryResultType`), or its raw value when it is not one of the four: for the
  /// engine's messages.
  var name: String {
    switch self {
    case .managedObjectResultType: "managedObjectResultType"
    case .managedObjectIDResultType: "managedObjectIDResultType"
    case .dictionaryResultType: "dictionaryResultType"
    case .countResultType: "countResultType"
    default: "NSFetchRequestResultType(rawValue: \(rawValue))"
    }
  }
}
