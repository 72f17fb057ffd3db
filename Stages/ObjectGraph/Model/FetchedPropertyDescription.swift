import Foundation

/// A fetched property of an entity: a named fetch request that an object of the entity runs, lazily, when
/// the property is read (Core Data's `NSFetchedPropertyDescription`).
///
/// ```swift
/// // In Xcode: Author has a fetched property "recentNotes" of Note, predicate
/// // "author == $FETCH_SOURCE AND createdAt > $FETCH_SOURCE.lastVisit".
/// let notes = author.value(forKey: "recentNotes") as? [NSManagedObject]
/// ```
///
/// Reading it (``NSManagedObject/value(forKey:)``) runs ``fetchRequest`` in the object's context with
/// `$FETCH_SOURCE` standing for the object and `$FETCHED_PROPERTY` for this description; the result, an array
/// in the request's sort order, is kept on the object until `refresh(_:mergeChanges:)` (Core Data: "the results
/// are then cached until the object is turned into a fault"). It is not stored, not a relationship, and has no
/// inverse.
///
/// Core Data's is a class, a kind of `NSPropertyDescription`; here it is a value (`Sendable` like the rest of a
/// model) in the entity's ``NSEntityDescription/fetchedProperties``, not in its `properties`: change a copy and
/// assign the list back to the entity.
public struct NSFetchedPropertyDescription: Sendable {
  /// The fetched property's name: the key of `value(forKey:)`.
  public var name: String
  /// The model file's user info for the fetched property (`$FETCHED_PROPERTY.userInfo.key` reads it in its
  /// predicate).
  public var userInfo: [String: String] = [:]
  /// What the description keeps of its fetch request (`Fetch/` makes the `NSFetchRequest`); `nil`: none.
  var request: FetchRequestTemplate?

  /// A fetched property without a name or a fetch request (Core Data's `init()`).
  public init() {
    name = ""
  }

  /// A fetched property named `name` whose request fetches `destinationEntityName` with the predicate
  /// `predicateFormat` (`nil`: every object), as an Xcode model declares one.
  public init(name: String, destinationEntityName: String, predicateFormat: String?) {
    self.name = name
    request = FetchRequestTemplate(name: name, entityName: destinationEntityName, predicateFormat: predicateFormat)
  }

  /// The entity its fetch request targets (empty without a request).
  public var destinationEntityName: String { request?.entityName ?? "" }
  /// Its predicate, in format-string form, as written in the model file (`nil` without one).
  public var predicateFormat: String? { request?.predicateFormat }
}
