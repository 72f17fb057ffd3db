import Foundation

/// What reset an object's values all at once (Core Data's `NSSnapshotEventType`), handed to
/// ``NSManagedObject/awake(fromSnapshotEvents:)``: an undo or redo, a rollback, a refresh that kept the
/// object's values, or a merge policy. The raw values are Core Data's.
public struct NSSnapshotEventType: OptionSet, Sendable, Hashable {
  public let rawValue: UInt

  /// Makes a set of events from Core Data's raw value.
  public init(rawValue: UInt) { self.rawValue = rawValue }

  /// An insertion was undone (or a redo took the object out again): the object left its context.
  public static let undoInsertion = NSSnapshotEventType(rawValue: 1 << 1)
  /// A deletion was undone (or a redo put the object back): the object is in its context again.
  public static let undoDeletion = NSSnapshotEventType(rawValue: 1 << 2)
  /// A change of the object's values was undone or redone.
  public static let undoUpdate = NSSnapshotEventType(rawValue: 1 << 3)
  /// The context's `rollback()` put back the object's last saved values.
  public static let rollback = NSSnapshotEventType(rawValue: 1 << 4)
  /// `refresh(_:mergeChanges: true)` (or `refreshAllObjects()`) gave the object the store's values under its
  /// unsaved changes.
  public static let refresh = NSSnapshotEventType(rawValue: 1 << 5)
  /// A merge policy settled a conflict on the object. Never passed by the engine: a policy's values reach
  /// the objects after the save, as a refresh does (`NSManagedObject`'s row in "The public API" of
  /// Docs/ObjectGraph.md).
  public static let mergePolicy = NSSnapshotEventType(rawValue: 1 << 6)
}
