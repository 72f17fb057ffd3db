import Foundation

/// The objects a context inserted and has not saved, in insertion order.
///
/// Saves write rows in insertion order, and a big import inserts hundreds of thousands of objects, so
/// this is an array rather than a set: appending is O(1), and so is removing, because each object keeps
/// its position (``NSManagedObject/insertionPosition``) and leaves a hole behind. Iterating in order needs
/// no sort, and walks the objects in the order they were allocated.
struct InsertedObjects {
  private var slots: [NSManagedObject?] = []
  /// How many objects are in the list (holes excluded).
  private(set) var count = 0

  var isEmpty: Bool { count == 0 }
  /// The position the next inserted object will take.
  var endPosition: Int { slots.count }

  mutating func append(_ object: NSManagedObject) {
    object.insertionPosition = slots.count
    slots.append(object)
    count += 1
  }

  /// Makes room for `additional` more objects (growing at least twofold, so many small calls stay linear).
  mutating func reserveCapacity(_ additional: Int) {
    let needed = slots.count + additional
    guard needed > slots.capacity else { return }
    slots.reserveCapacity(max(needed, slots.capacity * 2))
  }

  func contains(_ object: NSManagedObject) -> Bool {
    let position = object.insertionPosition
    return position >= 0 && position < slots.count && slots[position] === object
  }

  mutating func remove(_ object: NSManagedObject) {
    guard contains(object) else { return }
    slots[object.insertionPosition] = nil
    object.insertionPosition = -1
    count -= 1
  }

  /// The objects, in insertion order.
  var inOrder: [NSManagedObject] { slots.compactMap { $0 } }

  /// The objects inserted at `position` or later, in order.
  func inserted(from position: Int) -> [NSManagedObject] {
    slots[min(position, slots.count)...].compactMap { $0 }
  }

  /// The same as a set, built without an intermediate array (an objects-did-change notification of a big
  /// import would otherwise retain and release 100,000 objects once more).
  func insertedSet(from position: Int) -> Set<NSManagedObject> {
    let tail = slots[min(position, slots.count)...]
    var set = Set<NSManagedObject>(minimumCapacity: min(count, tail.count))
    for case let object? in tail { set.insert(object) }
    return set
  }

  func contains(where predicate: (NSManagedObject) -> Bool) -> Bool {
    slots.contains { $0.map(predicate) ?? false }
  }
}
