import Foundation

extension NSManagedObject {
  /// A live, mutable view of an ordered to-many relationship, as Core Data's
  /// `mutableOrderedSetValue(forKey:)` returns: each change goes through ``setValue(_:forKey:)``, so the
  /// inverse relationships follow, the context records the change, and a save writes the new order.
  ///
  /// ```swift
  /// let steps = recipe.mutableOrderedSetValue(forKey: "steps")
  /// steps.add(boil)
  /// steps.insert(chop, at: 0)
  /// steps.moveObjects(at: IndexSet(integer: 1), to: 0)
  /// ```
  ///
  /// Asking for a key that is not an ordered to-many stops the program with a message, as Core Data's
  /// exception does.
  public func mutableOrderedSetValue(forKey key: String) -> MutableOrderedRelationship {
    let slot = slot(forKey: key)
    guard slot.isOrdered else {
      programmerError(
        "ObjectGraph: \(entity.entityName).\(key) is not an ordered to-many relationship, so it has no mutable ordered set. Mark the relationship Ordered in the model, or read it with value(forKey:)."
      )
    }
    return MutableOrderedRelationship(object: self, key: key)
  }
}

/// An ordered to-many relationship of one object, read and changed in place: ObjectGraph's stand-in for
/// the `NSMutableOrderedSet` proxy Core Data hands out, with its method names.
///
/// Every read reflects the relationship as it is now (another change to the object shows through), and
/// every change is made through the object, as if the whole list had been set with
/// ``NSManagedObject/setValue(_:forKey:)``. An index out of range, or an object of another context, stops
/// the program with a message, as `NSMutableOrderedSet` raises.
///
/// Like the object it changes, it belongs to the object's context queue.
public final class MutableOrderedRelationship: RandomAccessCollection {
  /// The object whose relationship this is.
  public let object: NSManagedObject
  /// The relationship's name.
  public let key: String

  init(object: NSManagedObject, key: String) {
    self.object = object
    self.key = key
  }

  // MARK: Reading

  /// The members in order.
  public var array: [NSManagedObject] { object.relatedObjectList(object.slot(forKey: key)) }

  /// The position of the first member.
  public var startIndex: Int { 0 }
  /// One past the position of the last member.
  public var endIndex: Int { object.relatedIDList(object.slot(forKey: key)).count }

  /// The member at `position`.
  public subscript(position: Int) -> NSManagedObject { self.object(at: position) }

  /// The member at `index` (only its ID is looked up: walking the relationship by index stays linear).
  public func object(at index: Int) -> NSManagedObject {
    let members = object.relatedIDList(object.slot(forKey: key))
    checkIndex(index, count: members.count, allowingEnd: false)
    guard let context = object.managedObjectContext else {
      programmerError("ObjectGraph: \(object.entity.entityName).\(key) cannot hand out its members: the object is in no context.")
    }
    return context.object(with: members[index])
  }

  /// The position of `member`, or `NSNotFound`, as `NSOrderedSet` answers.
  public func index(of member: NSManagedObject) -> Int {
    object.relatedIDList(object.slot(forKey: key)).firstIndex(of: member.objectID) ?? NSNotFound
  }

  /// Whether `member` is in the relationship.
  public func contains(_ member: NSManagedObject) -> Bool {
    object.relatedIDs(object.slot(forKey: key)).contains(member.objectID)
  }

  /// The members as an `NSOrderedSet`, what `value(forKey:)` returns.
  public var orderedSet: NSOrderedSet { NSOrderedSet(array: array) }

  // MARK: Changing

  /// Adds `member` at the end, unless it is a member already.
  public func add(_ member: NSManagedObject) { addObjects(from: [member]) }

  /// Adds the objects not yet members at the end, in order.
  public func addObjects(from members: [NSManagedObject]) { change { $0 += members } }

  /// Inserts `member` at `index` (moving it there when it is a member already, as the ordered set keeps
  /// each member once).
  public func insert(_ member: NSManagedObject, at index: Int) { insert([member], at: IndexSet(integer: index)) }

  /// Inserts `members` so that they end up at `indexes`, in order.
  public func insert(_ members: [NSManagedObject], at indexes: IndexSet) {
    requireCorrectUse(
      members.count == indexes.count,
      "ObjectGraph: insert(_:at:) on \(object.entity.entityName).\(key) was given \(members.count) object(s) for \(indexes.count) index(es)."
    )
    change { list in
      let moving = Set(members.map(\.objectID))
      list.removeAll { moving.contains($0.objectID) }
      for (member, index) in zip(members, indexes) {
        checkIndex(index, count: list.count, allowingEnd: true)
        list.insert(member, at: index)
      }
    }
  }

  /// Removes `member`, if it is one.
  public func remove(_ member: NSManagedObject) { change { $0.removeAll { $0.objectID == member.objectID } } }

  /// Removes the member at `index`.
  public func removeObject(at index: Int) { removeObjects(at: IndexSet(integer: index)) }

  /// Removes the members at `indexes`.
  public func removeObjects(at indexes: IndexSet) {
    change { list in
      for index in indexes { checkIndex(index, count: list.count, allowingEnd: false) }
      for index in indexes.reversed() { list.remove(at: index) }
    }
  }

  /// Removes every member.
  public func removeAllObjects() { change { $0.removeAll() } }

  /// Puts `member` in place of the member at `index`.
  public func replaceObject(at index: Int, with member: NSManagedObject) {
    change { list in
      checkIndex(index, count: list.count, allowingEnd: false)
      list[index] = member
      // A member already elsewhere in the list moves here.
      if let other = list.indices.first(where: { $0 != index && list[$0].objectID == member.objectID }) { list.remove(at: other) }
    }
  }

  /// Moves the members at `indexes` so that the first of them lands at `index` of the list without them,
  /// keeping their order.
  public func moveObjects(at indexes: IndexSet, to index: Int) {
    change { list in
      for position in indexes { checkIndex(position, count: list.count, allowingEnd: false) }
      let moving = indexes.map { list[$0] }
      for position in indexes.reversed() { list.remove(at: position) }
      checkIndex(index, count: list.count, allowingEnd: true)
      list.insert(contentsOf: moving, at: index)
    }
  }

  /// Swaps the members at two positions.
  public func exchangeObject(at first: Int, withObjectAt second: Int) {
    change { list in
      checkIndex(first, count: list.count, allowingEnd: false)
      checkIndex(second, count: list.count, allowingEnd: false)
      list.swapAt(first, second)
    }
  }

  // MARK: Internals

  private func change(_ edit: (inout [NSManagedObject]) -> Void) {
    var list = array
    edit(&list)
    object.setValue(list, forKey: key)
  }

  private func checkIndex(_ index: Int, count: Int, allowingEnd: Bool) {
    requireCorrectUse(
      index >= 0 && (allowingEnd ? index <= count : index < count),
      "ObjectGraph: index \(index) is out of range for \(object.entity.entityName).\(key), which has \(count) member(s).")
  }
}
