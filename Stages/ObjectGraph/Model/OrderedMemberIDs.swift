import Foundation

/// The members of an ordered to-many relationship: a list in the relationship's order, each member once,
/// and the same members as a set, so that asking whether an object is a member (which every change to the
/// relationship and its inverse does) costs the same as for an unordered to-many.
///
/// Two values are equal when their lists are: same members, same order.
@usableFromInline
struct OrderedMemberIDs: Sendable, Equatable {
  /// The members in order.
  private(set) var list: [NSManagedObjectID]
  /// The same members, for membership.
  private(set) var set: Set<NSManagedObjectID>

  /// The members of `ids` in order, keeping the first of repeated ones.
  init(_ ids: some Sequence<NSManagedObjectID>) {
    var list: [NSManagedObjectID] = []
    var set = Set<NSManagedObjectID>()
    for id in ids where set.insert(id).inserted { list.append(id) }
    self.list = list
    self.set = set
  }

  var count: Int { list.count }

  func contains(_ id: NSManagedObjectID) -> Bool { set.contains(id) }

  /// Adds `id` at the end unless it is a member already; says whether it was added.
  mutating func append(_ id: NSManagedObjectID) -> Bool {
    guard set.insert(id).inserted else { return false }
    list.append(id)
    return true
  }

  /// Removes `id`; says whether it was a member. Linear in the members, as for a list.
  mutating func remove(_ id: NSManagedObjectID) -> Bool {
    guard set.remove(id) != nil, let position = list.firstIndex(of: id) else { return false }
    list.remove(at: position)
    return true
  }

  @usableFromInline
  static func == (lhs: Self, rhs: Self) -> Bool { lhs.list == rhs.list }
}
