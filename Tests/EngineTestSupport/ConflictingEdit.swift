import ObjectGraph

/// The setup every merge-policy test starts from: an object saved through one context, then changed and
/// saved again through another context on the same store, so that the first context's copy is stale and
/// its next save of that object conflicts.
public enum ConflictingEdit {
  /// Inserts an object with `insert` in `mine` and saves it; then, in `theirs` (a context that reads the
  /// store, on a second coordinator over the same file, or a fresh context on the same coordinator), finds
  /// it by its ID, applies `change` and saves. Returns the object as `mine` holds it, still the version
  /// before `change`.
  ///
  /// The returned object keeps the copy alive: a context holds unchanged objects weakly, as Core Data does,
  /// so without it `mine` would fetch the object afresh and see no conflict.
  public static func make(
    mine: NSManagedObjectContext, theirs: NSManagedObjectContext, insert: (NSManagedObjectContext) -> NSManagedObject,
    change: (NSManagedObject) -> Void
  ) throws -> NSManagedObject {
    let kept = try mine.performAndWait {
      let object = insert(mine)
      try mine.save()
      return object
    }
    let id = mine.performAndWait { kept.objectID }
    try theirs.performAndWait {
      change(try theirs.existingObject(with: id))
      try theirs.save()
    }
    return kept
  }
}
