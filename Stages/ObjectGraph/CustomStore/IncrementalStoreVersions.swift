import Foundation

/// The optimistic-locking check of a save to an incremental store, before the subclass sees it: each updated
/// or deleted object's version in the store, asked as Core Data asks it (``NSIncrementalStore/newValuesForObject(with:with:)``,
/// the node's ``NSIncrementalStoreNode/version``), against the version the context read. What a conflict
/// leads to follows what a SQLite store's save does (`SaveTransaction`), by the request's merge policy:
///
/// - `error` (a save's first try, whatever the context's policy): every conflict is reported in one
///   133020 error (``ObjectGraphError/optimisticLockingFailure(_:)``), and nothing reaches the subclass. The
///   context's policy then merges the objects in memory (`NSMergePolicy.resolve(optimisticLockingConflicts:)`)
///   and the save is tried again under it.
/// - The try after that: an update still in conflict (the store changed again meanwhile) is written as it is
///   under the two object-trump policies, and reported under the store-trump ones; a deleted object whose row
///   changed is deleted all the same under the object-trump policies and kept under the store-trump ones (it
///   takes the stored values, as a SQLite store keeps the row).
///
/// An object never read from the store (version 0) is not checked. An update whose object the store no longer
/// holds is a conflict under every policy, as in a SQLite store; a delete of one is passed on.
enum IncrementalStoreVersions {
  struct Outcome {
    /// The version each updated object has once the store saves it: the stored one plus one.
    var versions: [NSManagedObjectID: Int64] = [:]
    /// Deleted objects a merge policy keeps, with their stored values.
    var refreshed: [NSManagedObjectID: RowSnapshot] = [:]
  }

  static func check(_ request: StoreSaveRequest, in store: NSIncrementalStore, context: NSManagedObjectContext?) throws
    -> Outcome
  {
    var outcome = Outcome()
    guard let context, !request.updates.isEmpty || !request.deletes.isEmpty else { return outcome }
    let policy = request.mergePolicy
    let objectWins = policy == .mergeByPropertyObjectTrumpMergePolicyType || policy == .overwriteMergePolicyType
    var conflicts: [StoreMergeConflict] = []
    for update in request.updates where update.expectedVersion > 0 {
      let node = try storedNode(of: update.id, in: store, context)
      let current = node.map { Int64(truncatingIfNeeded: $0.version) }
      if let current { outcome.versions[update.id] = current < Int64.max ? current + 1 : 1 }
      guard current != update.expectedVersion, current == nil || !objectWins || policy == .errorMergePolicyType else {
        continue
      }
      let keys = update.changed.keys.sorted().map { update.entity.layout.slots[$0].name }
      conflicts.append(
        StoreMergeConflict(objectID: update.id, conflictingKeys: keys, oldVersion: update.expectedVersion, newVersion: current ?? 0))
    }
    for delete in request.deletes where delete.expectedVersion > 0 {
      guard let node = try storedNode(of: delete.id, in: store, context) else { continue }
      let current = Int64(truncatingIfNeeded: node.version)
      guard current != delete.expectedVersion, !objectWins else { continue }
      if policy == .errorMergePolicyType {
        conflicts.append(
          StoreMergeConflict(objectID: delete.id, conflictingKeys: [], oldVersion: delete.expectedVersion, newVersion: current))
      } else {
        outcome.refreshed[delete.id] = IncrementalStoreRows.snapshot(of: node, for: delete.id)
      }
    }
    guard conflicts.isEmpty else { throw ObjectGraphError.optimisticLockingFailure(conflicts) }
    return outcome
  }

  /// The node of the object `id` names, as the store holds it now; `nil` when the store no longer holds it
  /// (it threw Core Data's or the engine's "not found" error).
  private static func storedNode(of id: NSManagedObjectID, in store: NSIncrementalStore, _ context: NSManagedObjectContext) throws
    -> NSIncrementalStoreNode?
  {
    do {
      return try store.newValuesForObject(with: id, with: context)
    } catch let error as NSError
      where error.domain == NSCocoaErrorDomain
      && (error.code == NSManagedObjectReferentialIntegrityError || error.code == ObjectGraphObjectNotFoundError)
    {
      return nil
    }
  }
}
