import Foundation

/// The value of one slot of an object (see `EntityLayout`): `nil`, or a ``SlotValue``.
typealias StoredValue = SlotValue?

/// What a slot holds: an attribute's value in its own Swift type, a to-one's destination ID, a to-many's
/// member IDs (in order, for an ordered to-many), or the marker of a to-many not read from the store yet.
///
/// A closed enum rather than `any Sendable`: the common types sit inline (24 bytes a slot, against 40 for
/// an existential), and copying or reading one is a switch, not a call through the value's type
/// metadata. At 100,000 objects of four attributes that is most of the difference between reading an
/// object's values and reading a SQLite row. Rarer types (UUID, URL, Decimal, values of unsupported
/// types) are boxed.
@usableFromInline
enum SlotValue: Sendable {
  case string(String)
  case int64(Int64)
  case int32(Int32)
  case int16(Int16)
  case double(Double)
  case float(Float)
  case bool(Bool)
  case date(Date)
  case data(Data)
  /// A to-one relationship's destination.
  case objectID(NSManagedObjectID)
  /// A to-many relationship's members.
  case objectIDs(Set<NSManagedObjectID>)
  /// An ordered to-many relationship's members, in their order, each once.
  case orderedObjectIDs(OrderedMemberIDs)
  /// A to-many relationship whose members have not been read from the store yet.
  case unloadedToMany
  /// Any other value (UUID, URL, Decimal, or the value of an attribute type the engine does not store).
  case boxed(Boxed)

  /// A value of a type without a case of its own. Immutable, so sharing it between copies is safe.
  @usableFromInline
  final class Boxed: Sendable {
    let value: any Sendable
    init(_ value: any Sendable) { self.value = value }
  }

  /// Wraps a Swift value: the matching case, or a box.
  init(_ value: any Sendable) {
    switch value {
    case let string as String: self = .string(string)
    case let int as Int64: self = .int64(int)
    case let int as Int32: self = .int32(int)
    case let int as Int16: self = .int16(int)
    case let double as Double: self = .double(double)
    case let float as Float: self = .float(float)
    case let bool as Bool: self = .bool(bool)
    case let date as Date: self = .date(date)
    case let data as Data: self = .data(data)
    case let id as NSManagedObjectID: self = .objectID(id)
    case let ids as Set<NSManagedObjectID>: self = .objectIDs(ids)
    case let ids as [NSManagedObjectID]: self = .orderedObjectIDs(OrderedMemberIDs(ids))
    case let slot as SlotValue: self = slot
    default: self = .boxed(Boxed(value))
    }
  }

  /// The value as the Swift type it stands for (`String`, `Int64`, `Date`, an `NSManagedObjectID`, a
  /// `Set<NSManagedObjectID>`, an ordered to-many's `[NSManagedObjectID]`, …); `nil` for an unloaded to-many.
  var swiftValue: (any Sendable)? {
    switch self {
    case .string(let value): value
    case .int64(let value): value
    case .int32(let value): value
    case .int16(let value): value
    case .double(let value): value
    case .float(let value): value
    case .bool(let value): value
    case .date(let value): value
    case .data(let value): value
    case .objectID(let value): value
    case .objectIDs(let value): value
    case .orderedObjectIDs(let value): value.list
    case .unloadedToMany: nil
    case .boxed(let box): box.value
    }
  }

  /// The value as Core Data's key-value coding hands it out (`value(forKey:)`, `committedValues(forKeys:)`,
  /// `changedValues()`, dictionary fetch results): numbers and Booleans as `NSNumber`, so that the casts
  /// code written for Apple platforms makes (`as? Int`, `as? Int64`, `as? Int16`, `as? Double`, `as? Bool`)
  /// work whatever the attribute's integer or floating-point type; everything else as ``anyValue``.
  var boxedValue: Any? {
    switch self {
    case .int64, .int32, .int16, .double, .float, .bool: numberValue
    default: anyValue
    }
  }

  /// The same, as `Any`, for typed access (`@ObjectGraphManaged`): built straight from the case, which costs far
  /// less than converting `swiftValue` (a second existential copy) on the path every property read takes.
  var anyValue: Any? {
    switch self {
    case .string(let value): value
    case .int64(let value): value
    case .int32(let value): value
    case .int16(let value): value
    case .double(let value): value
    case .float(let value): value
    case .bool(let value): value
    case .date(let value): value
    case .data(let value): value
    case .objectID(let value): value
    case .objectIDs(let value): value
    case .orderedObjectIDs(let value): value.list
    case .unloadedToMany: nil
    // A value of a type the engine does not store (a transient Undefined attribute's) is the value it holds.
    case .boxed(let box): (box.value as? UnsupportedValue)?.value ?? box.value
    }
  }

  /// The destination of a to-one slot.
  var objectID: NSManagedObjectID? {
    if case .objectID(let id) = self { id } else { nil }
  }

  /// The members of a loaded to-many slot (ordered or not), as a set.
  var objectIDs: Set<NSManagedObjectID>? {
    switch self {
    case .objectIDs(let ids): ids
    case .orderedObjectIDs(let ids): ids.set
    default: nil
    }
  }

  /// The members of a loaded to-many slot as a list: in order for an ordered to-many.
  var memberList: [NSManagedObjectID]? {
    switch self {
    case .objectIDs(let ids): Array(ids)
    case .orderedObjectIDs(let ids): ids.list
    default: nil
    }
  }

  /// How many members a loaded to-many slot has (0 for any other value).
  var memberCount: Int {
    switch self {
    case .objectIDs(let ids): ids.count
    case .orderedObjectIDs(let ids): ids.count
    default: 0
    }
  }

  /// Whether some member of a loaded to-many slot satisfies `predicate` (no copy of the members made).
  func containsMember(where predicate: (NSManagedObjectID) -> Bool) -> Bool {
    switch self {
    case .objectIDs(let ids): ids.contains(where: predicate)
    case .orderedObjectIDs(let ids): ids.list.contains(where: predicate)
    default: false
    }
  }

  /// A loaded to-many slot's value with every member ID replaced by `transform`'s, keeping its kind (and
  /// order); any other value as it is.
  func mappingMembers(_ transform: (NSManagedObjectID) -> NSManagedObjectID) -> SlotValue {
    switch self {
    case .objectIDs(let ids): .objectIDs(Set(ids.map(transform)))
    case .orderedObjectIDs(let ids): .orderedObjectIDs(OrderedMemberIDs(ids.list.map(transform)))
    default: self
    }
  }

  /// A to-many slot's value with no members, ordered or not.
  static func emptyToMany(ordered: Bool) -> SlotValue {
    ordered ? .orderedObjectIDs(OrderedMemberIDs([])) : .objectIDs([])
  }

  /// The value of a to-many slot holding `members`: an ordered list (first occurrences kept) when the
  /// relationship is ordered, a set otherwise.
  static func toMany(_ members: some Sequence<NSManagedObjectID>, ordered: Bool) -> SlotValue {
    ordered ? .orderedObjectIDs(OrderedMemberIDs(members)) : .objectIDs(Set(members))
  }

  var isUnloadedToMany: Bool {
    if case .unloadedToMany = self { true } else { false }
  }

  /// Whether the value is a to-many's members, read or set (ordered or not).
  var isLoadedToMany: Bool {
    switch self {
    case .objectIDs, .orderedObjectIDs: true
    default: false
    }
  }

  /// The boxed value, when it is one of type `T`.
  func boxed<T>(as type: T.Type) -> T? {
    if case .boxed(let box) = self { box.value as? T } else { nil }
  }
}

extension Optional where Wrapped == SlotValue {
  /// The destination of a to-one slot (`nil` when empty).
  var objectID: NSManagedObjectID? { self?.objectID }
  /// The members of a loaded to-many slot.
  var objectIDs: Set<NSManagedObjectID>? { self?.objectIDs }
  /// The members of a loaded to-many slot as a list, in order for an ordered to-many.
  var memberList: [NSManagedObjectID]? { self?.memberList }
  var isUnloadedToMany: Bool { self?.isUnloadedToMany ?? false }
}

extension EntityLayout.Slot {
  /// An empty to-many value of this slot's kind (ordered or not).
  var emptyToMany: SlotValue { .emptyToMany(ordered: isOrdered) }

  /// The to-many value holding `members`, in their order when the slot is ordered.
  func toManyValue(_ members: some Sequence<NSManagedObjectID>) -> SlotValue { .toMany(members, ordered: isOrdered) }
}
