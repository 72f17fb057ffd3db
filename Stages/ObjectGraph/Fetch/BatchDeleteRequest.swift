import Foundation

/// Deletes every row a fetch request matches, or the rows of given IDs, in SQL, without making objects.
///
/// The relationships' delete rules apply in SQL, as they would to objects: Cascade deletes the related
/// rows too (and theirs, in turn), Nullify clears the related rows' references, Deny refuses the whole
/// request (1600) when a related row exists, No Action leaves references as they are. Validation rules are
/// not checked, and contexts learn of the deletion only by merging the IDs
/// (``NSManagedObjectContext/mergeChanges(fromRemoteContextSave:into:)``).
public final class NSBatchDeleteRequest: NSPersistentStoreRequest, StoreSelecting {
  /// The kind of request: `.batchDeleteRequestType`.
  public var requestType: NSPersistentStoreRequestType { .batchDeleteRequestType }

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
  /// The stores named by `affectedStores` (declared with the coordinator), `nil` for all.
  var storeSelection: [AnyObject]?
  /// The predicate of the fetch request the request was made from (predicates do not change).
  private let predicate: NSPredicate?

  /// The fetch request choosing the rows that go (Core Data's read-only, copied `fetchRequest`): a new request
  /// with the entity, predicate and `includesSubentities` of the one this request was made from, or, for a
  /// request made from IDs, one fetching `SELF IN` those IDs. Each read makes a new one, so changing it leaves
  /// this request as it is, as with Core Data's copy.
  public var fetchRequest: NSFetchRequest<any NSFetchRequestResult> {
    let request = NSFetchRequest<any NSFetchRequestResult>(entityName: entityName)
    request.predicate = objectIDs.map { NSPredicate(format: "SELF IN %@", $0) } ?? predicate
    request.includesSubentities = includesSubentities
    return request
  }

  /// A request deleting what `fetchRequest` would fetch (its predicate and entity; its order and limits
  /// do not apply).
  public convenience init<Result>(fetchRequest: NSFetchRequest<Result>) {
    self.init(deleting: fetchRequest)
  }

  /// A request deleting what `fetchRequest` would fetch: Core Data's own signature, so that
  /// `NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Note"))` compiles as it does there.
  public convenience init(fetchRequest: NSFetchRequest<any NSFetchRequestResult>) {
    self.init(deleting: fetchRequest)
  }

  private init<Result>(deleting fetchRequest: NSFetchRequest<Result>) {
    entityName = fetchRequest.entityName
    predicate = fetchRequest.predicate
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
    predicate = nil
    includesSubentities = true
    self.objectIDs = objectIDs
  }
}
