import Foundation

/// Deletes every row a fetch request matches, or the rows of given IDs, in SQL, without making objects.
///
/// The relationships' delete rules apply in SQL, as they would to objects: Cascade deletes the related
/// rows too (and theirs, in turn), Nullify clears the related rows' references, Deny refuses the whole
/// request (1600) when a related row exists, No Action leaves references as they are. Validation rules are
/// not checked, and contexts learn of the deletion only by merging the IDs
/// (``NSManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``).
public final class NSBatchDeleteRequest: NSPersistentStoreRequest {
  /// The entity whose rows go.
  public let entityName: String
  /// Which rows go (with the request's `includesSubentities`), when made from a fetch request: its
  /// predicate as read when the request was made, or why it cannot be run.
  let predicateResult: Result<FetchPredicate?, ObjectGraphError>
  /// Whether rows of subentities go too (from the fetch request).
  public let includesSubentities: Bool
  /// The rows that go, when made from IDs.
  public let objectIDs: [NSManagedObjectID]?
  /// What the result holds. Default ``NSBatchDeleteRequestResultType/resultTypeStatusOnly``.
  public var resultType: NSBatchDeleteRequestResultType = .resultTypeStatusOnly

  /// A request deleting what `fetchRequest` would fetch (its predicate and entity; its order and limits
  /// do not apply).
  public init<Result>(fetchRequest: NSFetchRequest<Result>) {
    entityName = fetchRequest.entityName
    do {
      predicateResult = .success(try fetchRequest.fetchPredicate())
    } catch {
      predicateResult = .failure(ObjectGraphError.wrapping(error))
    }
    includesSubentities = fetchRequest.includesSubentities
    objectIDs = nil
  }

  /// A request deleting the rows of `objectIDs`, which must all be of one entity (or its subentities) and
  /// permanent.
  public init(objectIDs: [NSManagedObjectID]) {
    entityName = objectIDs.first?.entityName ?? ""
    predicateResult = .success(nil)
    includesSubentities = true
    self.objectIDs = objectIDs
  }
}
