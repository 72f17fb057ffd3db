import Foundation

/// The objects a root context saves, for a store that builds its own records from them (an `NSAtomicStore`
/// subclass's cache nodes): `inserted` in the order of the save request's inserts, `updated` in the order
/// of its updates. Typed `AnyObject` because this layer sits below the objects'.
///
/// A context attaches them only when its coordinator has such a store (``ObjectStore/savesNeedObjects``).
// @unchecked Sendable: the objects belong to the saving context and are read only inside its save, which
// runs the coordinator's save synchronously on that context's queue; nothing keeps this box after the save
// returns, so no other queue ever touches the objects through it.
final class SavedObjects: @unchecked Sendable {
  let inserted: [AnyObject]
  let updated: [AnyObject]
  /// The objects the save deletes, and the saving context (for an `NSIncrementalStore`'s save request).
  let deleted: [AnyObject]
  let context: AnyObject?

  init(inserted: [AnyObject], updated: [AnyObject], deleted: [AnyObject] = [], context: AnyObject? = nil) {
    self.inserted = inserted
    self.updated = updated
    self.deleted = deleted
    self.context = context
  }
}
