import Foundation

/// How a save settles conflicts: one of the five built-in behaviours, or a
/// subclass of your own that overrides ``resolve(optimisticLockingConflicts:)`` or
/// ``resolve(constraintConflicts:)`` to merge field by field, starting from a built-in type.
///
/// ```swift
/// context.mergePolicy = NSMergeByPropertyObjectTrumpMergePolicy        // a built-in policy
/// context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump       // the same policy
///
/// final class KeepLargerCount: NSMergePolicy, @unchecked Sendable {   // no stored state: see below
///   override func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
///     try super.resolve(optimisticLockingConflicts: list)
///     for conflict in list {
///       let stored = conflict.persistedSnapshot?["count"] as? Int64 ?? 0
///       let mine = conflict.sourceObject.value(forKey: "count") as? Int64 ?? 0
///       conflict.sourceObject.setValue(max(stored, mine), forKey: "count")
///     }
///   }
/// }
/// context.mergePolicy = KeepLargerCount(merge: .mergeByPropertyObjectTrumpMergePolicyType)
/// ```
///
/// The five built-in policies are settled in the store's transaction, as before: their instances are
/// not asked to resolve, except by a save to a coordinator with an ``NSIncrementalStore`` (which has no
/// transaction to merge rows in), where a built-in policy other than `error` is asked as a subclass is. An
/// instance of a subclass changes the save: it is first tried with conflicts
/// reported rather than settled; the conflicts found are handed to the subclass's `resolve` methods on the
/// saving context's queue (where the objects may be read and changed), and the save is tried again, with
/// the store applying ``mergeType`` to whatever the override left (an `errorMergePolicyType` subclass whose
/// `resolve` returns has declared the conflicts settled: the objects' values are written, as
/// `mergeByPropertyObjectTrumpMergePolicyType` writes them). At most four tries; conflicts that keep coming
/// back after that are thrown.
///
/// Sendable: a policy is set on a context from any thread and used on the context's queue, so the class is
/// `@unchecked Sendable`. This class holds one `let`; a subclass must keep the promise, with no stored
/// `var` (or with state behind a lock), because one policy may serve several contexts' saves at once.
open class NSMergePolicy: @unchecked Sendable, Hashable, CustomStringConvertible {
  /// The built-in behaviour this policy starts from.
  public let mergeType: NSMergePolicyType

  /// A policy with the built-in behaviour `type` (`NSMergePolicy(merge: .rollbackMergePolicyType)`).
  public init(merge type: NSMergePolicyType) {
    mergeType = type
  }

  /// A policy with the built-in behaviour `ty`: Core Data's Objective-C initializer
  /// (`initWithMergeType:`), the same as ``init(merge:)``.
  public convenience init(mergeType ty: NSMergePolicyType) {
    self.init(merge: ty)
  }

  /// Fail the save with error 133020 (or 133021) listing every conflict; nothing is written. The default.
  public static let error = NSMergePolicy(merge: .errorMergePolicyType)
  /// Per property: the store's changes win; this context's changes to other properties are kept.
  public static let mergeByPropertyStoreTrump = NSMergePolicy(merge: .mergeByPropertyStoreTrumpMergePolicyType)
  /// Per property: this context's changes win; the store's changes to other properties are kept.
  public static let mergeByPropertyObjectTrump = NSMergePolicy(merge: .mergeByPropertyObjectTrumpMergePolicyType)
  /// This context's whole object replaces the row.
  public static let overwrite = NSMergePolicy(merge: .overwriteMergePolicyType)
  /// This context's changes to conflicting objects are dropped; they take the store's values.
  public static let rollback = NSMergePolicy(merge: .rollbackMergePolicyType)

  /// Settles optimistic-locking conflicts: objects this context changed whose rows changed (or were
  /// deleted) in the store since it read them. Called on the saving context's queue, only for a subclass.
  ///
  /// This implementation does what ``mergeType`` does: for `errorMergePolicyType` it throws error 133020
  /// naming the conflicts; for the other four it merges each object with its row as the store holds it now,
  /// in memory, so that when it returns the objects hold the merged values:
  /// - `mergeByPropertyObjectTrump`: properties the store changed and the object did not take the store's
  ///   values; the object's own changes stay.
  /// - `mergeByPropertyStoreTrump`: every property the store changed takes the store's value, the object's
  ///   change to it dropped; the object's other changes stay.
  /// - `overwrite`: the object keeps every value it holds, and the save writes them all over the store's.
  /// - `rollback`: the object takes the store's values; its changes are dropped.
  ///
  /// The object then counts as having read the row as it is now, so the save, tried again, writes what the
  /// object holds. A row deleted in the store is left to the save, which applies the type. An override
  /// changes the objects (`setValue(_:forKey:)`) and usually calls `super` first (to start from the type's
  /// merge) or last (to let the type decide over what it changed).
  open func resolve(optimisticLockingConflicts list: [NSMergeConflict]) throws {
    guard mergeType == .errorMergePolicyType else {
      for conflict in list { conflict.mergeInMemory(mergeType) }
      return
    }
    guard !list.isEmpty else { return }
    throw ObjectGraphError(
      .managedObjectMerge,
      "Could not save: \(list.count) object(s) changed in the store since this context read them (merge policy: error). Nothing was written. Refresh the objects and try again, or choose another merge policy.\n"
        + list.map { "  - \($0)" }.joined(separator: "\n"),
      userInfo: [NSPersistentStoreSaveConflictsErrorKey: list])
  }

  /// Settles uniqueness-constraint conflicts: objects being saved that share a constraint's values with
  /// each other or with a stored row. Called on the saving context's queue, only for a subclass.
  ///
  /// This implementation does what ``mergeType`` does: for `errorMergePolicyType` it throws error 133021
  /// naming the conflicts; for the other four it leaves the objects as they are and the save, tried again,
  /// applies the type in the store (the trump-by-object types update the stored row with the new values).
  /// An override typically deletes the duplicates it does not want or moves their values onto one object.
  open func resolve(constraintConflicts list: [NSConstraintConflict]) throws {
    guard mergeType == .errorMergePolicyType, !list.isEmpty else { return }
    throw ObjectGraphError(
      .managedObjectConstraintMerge,
      "Could not save: \(list.count) uniqueness constraint conflict(s) (merge policy: error) the policy did not settle. Nothing was written. Give the objects different values, or settle them in resolve(constraintConflicts:).\n"
        + list.map { "  - \($0)" }.joined(separator: "\n"),
      userInfo: [NSPersistentStoreSaveConflictsErrorKey: list])
  }

  /// Settles a mixed list of conflicts (Core Data's older entry point, from before the two typed ones): the
  /// ``NSMergeConflict``s go to ``resolve(optimisticLockingConflicts:)``, then the ``NSConstraintConflict``s
  /// to ``resolve(constraintConflicts:)``, so an override of those two is honoured either way.
  ///
  /// A save calls the two typed methods itself, not this one: override those to change what a save does.
  /// - Throws: what those two throw; ``ObjectGraphError`` `.invalidValue` (nothing resolved) when an element
  ///   is neither kind of conflict.
  open func resolve(mergeConflicts list: [Any]) throws {
    var optimistic: [NSMergeConflict] = []
    var constraint: [NSConstraintConflict] = []
    for element in list {
      if let conflict = element as? NSMergeConflict {
        optimistic.append(conflict)
      } else if let conflict = element as? NSConstraintConflict {
        constraint.append(conflict)
      } else {
        throw ObjectGraphError(
          .invalidValue,
          "resolve(mergeConflicts:) was handed a \(type(of: element)), which is not an NSMergeConflict or NSConstraintConflict. Nothing was resolved; pass the conflicts of a save error's \"conflictList\"."
        )
      }
    }
    if !optimistic.isEmpty { try resolve(optimisticLockingConflicts: optimistic) }
    if !constraint.isEmpty { try resolve(constraintConflicts: constraint) }
  }

  /// Whether this is one of the five built-in policies (settled in the store), not a subclass.
  final var isBuiltIn: Bool { type(of: self) == NSMergePolicy.self }

  /// Policies are equal when they are the same instance, or both plain (not subclassed) policies of the same
  /// type, so `context.mergePolicy as? NSMergePolicy == .rollback` holds for
  /// `NSMergePolicy(merge: .rollbackMergePolicyType)`.
  public static func == (lhs: NSMergePolicy, rhs: NSMergePolicy) -> Bool {
    lhs === rhs || (lhs.isBuiltIn && rhs.isBuiltIn && lhs.mergeType == rhs.mergeType)
  }

  /// Hashes the policy's type (equal policies have equal types).
  public func hash(into hasher: inout Hasher) {
    hasher.combine(mergeType)
  }

  /// The type's short name (`mergeByPropertyObjectTrump`), or the subclass's name with it.
  public var description: String {
    isBuiltIn ? mergeType.description : "\(type(of: self))(\(mergeType))"
  }
}

/// The default merge policy for all contexts: a save with conflicts fails (Core Data's `NSErrorMergePolicy`, the
/// same object as ``NSMergePolicy/error``).
public var NSErrorMergePolicy: AnyObject { NSMergePolicy.error }
/// Per property, the store's changes win (Core Data's `NSMergeByPropertyStoreTrumpMergePolicy`, the same object as
/// ``NSMergePolicy/mergeByPropertyStoreTrump``).
public var NSMergeByPropertyStoreTrumpMergePolicy: AnyObject { NSMergePolicy.mergeByPropertyStoreTrump }
/// Per property, this context's changes win (Core Data's `NSMergeByPropertyObjectTrumpMergePolicy`, the same object
/// as ``NSMergePolicy/mergeByPropertyObjectTrump``).
public var NSMergeByPropertyObjectTrumpMergePolicy: AnyObject { NSMergePolicy.mergeByPropertyObjectTrump }
/// This context's whole object replaces the row (Core Data's `NSOverwriteMergePolicy`, the same object as
/// ``NSMergePolicy/overwrite``).
public var NSOverwriteMergePolicy: AnyObject { NSMergePolicy.overwrite }
/// This context's changes to conflicting objects are dropped (Core Data's `NSRollbackMergePolicy`, the same object
/// as ``NSMergePolicy/rollback``).
public var NSRollbackMergePolicy: AnyObject { NSMergePolicy.rollback }
