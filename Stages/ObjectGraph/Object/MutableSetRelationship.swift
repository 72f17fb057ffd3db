import Foundation

extension NSManagedObject {
  /// A live, mutable view of an unordered to-many relationship, as Core Data's `mutableSetValue(forKey:)`
  /// returns: each change is made through the object, so the inverse relationships follow, the context
  /// records the change (and the undo manager, when there is one), and a save writes it.
  ///
  /// ```swift
  /// let tags = note.mutableSetValue(forKey: "tags")
  /// tags.add(urgent)
  /// tags.remove(someday)
  /// ```
  ///
  /// Asking for a key that is not an unordered to-many stops the program with a message, as Core Data's
  /// exception does (an ordered one has ``mutableOrderedSetValue(forKey:)``).
  public func mutableSetValue(forKey key: String) -> MutableSetRelationship {
    let slot = slot(forKey: key)
    guard case .toMany = slot.kind, !slot.isOrdered else {
      programmerError(
        "ObjectGraph: \(entity.entityName).\(key) is not an unordered to-many relationship, so it has no mutable set\(slot.isOrdered ? ": it is ordered, use mutableOrderedSetValue(forKey:)" : ""). Read it with value(forKey:)."
      )
    }
    return MutableSetRelationship(object: self, key: key)
  }
}

/// An unordered to-many relationship of one object, read and changed in place: ObjectGraph's stand-in for
/// the `NSMutableSet` proxy Core Data hands out, with its method names.
///
/// Every read reflects the relationship as it is now, and every change is made member by member through
/// the object, as if the object had been given the new set with ``NSManagedObject/setValue(_:forKey:)``
/// (without comparing the whole set: adding one member to a large relationship costs one member's work).
/// An object of another context, or of an entity the relationship does not lead to, stops the program with
/// a message.
///
/// Like the object it changes, it belongs to the object's context queue.
public final class MutableSetRelationship: Sequence {
  /// The object whose relationship this is.
  public let object: NSManagedObject
  /// The relationship's name.
  public let key: String

  init(object: NSManagedObject, key: String) {
    self.object = object
    self.key = key
  }

  // MARK: Reading

  private var memberIDs: Set<NSManagedObjectID> { object.relatedIDs(object.slot(forKey: key)) }

  /// The members, in no particular order.
  public var allObjects: [NSManagedObject] {
    guard let context = object.managedObjectContext else { return [] }
    return memberIDs.map { context.object(with: $0) }
  }

  /// How many members there are.
  public var count: Int { memberIDs.count }

  /// Whether `member` is in the relationship.
  public func contains(_ member: NSManagedObject) -> Bool { memberIDs.contains(member.objectID) }

  /// `member` when it is in the relationship, else `nil` (`NSSet`'s `member(_:)`).
  public func member(_ member: NSManagedObject) -> NSManagedObject? { contains(member) ? member : nil }

  /// The members as a `Set`, what `value(forKey:)` returns.
  public var set: Set<NSManagedObject> { Set(allObjects) }

  /// Iterates over the members.
  public func makeIterator() -> IndexingIterator<[NSManagedObject]> { allObjects.makeIterator() }

  // MARK: Changing

  /// Adds `member`, unless it is a member already.
  public func add(_ member: NSManagedObject) { addObjects(from: [member]) }

  /// Adds the objects that are not members yet.
  public func addObjects(from members: [NSManagedObject]) { object.addMembers(members, toManyKey: key) }

  /// Removes `member`, if it is one.
  public func remove(_ member: NSManagedObject) { object.removeMembers([member], toManyKey: key) }

  /// Removes every member.
  public func removeAllObjects() { object.removeMembers(allObjects, toManyKey: key) }

  /// Adds every member of `other` (`NSMutableSet`'s `union(_:)`).
  public func union(_ other: Set<NSManagedObject>) { addObjects(from: Array(other)) }

  /// Removes every member that is also in `other` (`NSMutableSet`'s `minus(_:)`).
  public func minus(_ other: Set<NSManagedObject>) { object.removeMembers(Array(other), toManyKey: key) }

  /// Keeps only the members that are also in `other` (`NSMutableSet`'s `intersect(_:)`).
  public func intersect(_ other: Set<NSManagedObject>) {
    let keep = Set(other.map(\.objectID))
    object.removeMembers(allObjects.filter { !keep.contains($0.objectID) }, toManyKey: key)
  }

  /// Makes the members exactly `other`'s (`NSMutableSet`'s `setSet(_:)`).
  public func setSet(_ other: Set<NSManagedObject>) { object.setValue(other, forKey: key) }
}
