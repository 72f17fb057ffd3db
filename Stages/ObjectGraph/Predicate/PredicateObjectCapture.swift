import Foundation

/// Managed objects given as predicate arguments (`"notebook == %@", notebook`).
///
/// Core Data's predicate keeps the object itself, so it names the same row before and after the object
/// is saved. An ``NSManagedObject`` is not `Sendable`, and a `NSPredicate` is (it may be built on one
/// queue and used on another), so the predicate cannot use the object itself. It keeps the object's ID,
/// read at the call. An ID that is still temporary changes when the object is saved, so for those the
/// predicate also keeps an ``ObjectIDReference``, which reads the object's ID under its lock and nothing
/// else of it. When the predicate is used, each temporary ID is replaced by the object's current ID.
final class PredicateObjectCapture {
  private(set) var references: [NSManagedObjectID: ObjectIDReference] = [:]

  func note(_ object: some PredicateArgumentObject, id: NSManagedObjectID) {
    references[id] = object.objectIDReference
  }
}

/// Where a managed object keeps its ID: reading it gives the ID the object has now (permanent once it
/// has been saved), without holding the object or touching anything else of it.
///
/// `Sendable` because its reader reads only the object's stored ID, which every thread may read under the
/// object's ID lock (rule 1: `objectID` may be read on any queue). The object makes the reader
/// (`NSManagedObject.objectIDReference`): this folder sits below the objects.
struct ObjectIDReference: Sendable {
  /// Reads the ID from the object's storage.
  let read: @Sendable () -> NSManagedObjectID?

  /// The object's ID now, or `nil` when it has not been given one that this box can tell without making it.
  var current: NSManagedObjectID? { read() }
}

extension PredicateNode {
  /// The predicate with each temporary ID that `references` knows replaced by its object's current ID.
  func resolvingObjectIDs(_ references: [NSManagedObjectID: ObjectIDReference]) -> PredicateNode {
    guard !references.isEmpty else { return self }
    return mappingObjectIDs { id in references[id]?.current ?? id }
  }
}
