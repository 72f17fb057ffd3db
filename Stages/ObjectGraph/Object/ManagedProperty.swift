import Foundation
internal import Synchronization

#if ManagedMacro
  /// Marks a property of an ``NSManagedObject`` subclass as the model's: where Core Data's code says
  /// `@NSManaged`, code for ObjectGraph says `@ObjectGraphManaged`, and nothing else changes.
  ///
  /// As Xcode lays a subclass out, the class in one file and its properties in a `+CoreDataProperties`
  /// extension:
  ///
  /// ```swift
  /// public class Note: NSManagedObject {}
  ///
  /// extension Note {
  ///   @nonobjc public class func fetchRequest() -> NSFetchRequest<Note> {
  ///     NSFetchRequest<Note>(entityName: "Note")
  ///   }
  ///
  ///   @ObjectGraphManaged public var title: String?      // attribute "title"
  ///   @ObjectGraphManaged public var wordCount: Int32    // a scalar ("Use Scalar Type")
  ///   @ObjectGraphManaged public var rating: NSNumber?   // an optional number, as an NSNumber
  ///   @ObjectGraphManaged public var notebook: Notebook? // to-one relationship "notebook"
  ///   @ObjectGraphManaged public var tags: NSSet?        // to-many "tags" (or Set<Tag>)
  ///   @ObjectGraphManaged public var steps: NSOrderedSet? // ordered to-many (or [Step])
  /// }
  /// ```
  ///
  /// - A property reads and writes the object's value for the key named like it, as ``NSManagedObject/value(forKey:)`` and
  ///   ``NSManagedObject/setValue(_:forKey:)`` do, in the property's type: numbers convert exactly between widths (an `Int` for
  ///   an Integer 64 attribute), `NSNumber` wraps a number, `NSSet` and `Set<Tag>` hold a to-many's objects,
  ///   `NSOrderedSet` and `[Step]` an ordered one's. Reading a non-optional property whose value is `nil`, or
  ///   declaring a type the model does not store, stops the program naming the entity, the key and the types.
  /// - `primitiveTitle` (a property named `primitive` + a key of the entity, which the entity does not have
  ///   itself) reads and writes the primitive value of `title`, as Core Data's dynamic primitive accessors do
  ///   (``NSManagedObject/primitiveValue(forKey:)``, ``NSManagedObject/setPrimitiveValue(_:forKey:)``).
  /// - The relationship methods Xcode generates (`addToTags(_:)` and the others) are not written by this macro:
  ///   a macro that writes a property's accessors cannot also write a method's body. Change the relationship
  ///   through its property, or ``NSManagedObject/mutableOrderedSetValue(forKey:)`` for an ordered one.
  ///
  /// A property with an initial value, a `let`, a `static` property or an accessor block is refused when the
  /// code is compiled, with a message saying why.
  ///
  /// In real Core Data, `@NSManaged` is a Swift attribute that leaves the accessors to the Objective-C
  /// runtime; Linux has no such runtime, so this macro writes them. Xcode's `@objc(Note)` line above a class
  /// and `@objc(addTagsObject:)` above a method cannot be compiled without Objective-C: leave them out.
  ///
  /// The macro is part of the package's default trait `ManagedMacro`; a package that depends on this one with
  /// `traits: []` gets the engine without it (the fuzzing package does).
  @attached(accessor)
  @attached(peer, names: prefixed(_objectGraphKey_))
  public macro ObjectGraphManaged() = #externalMacro(module: "ObjectGraphMacros", type: "ManagedMacro")
#endif

/// The key of a property marked ``ObjectGraphManaged()``, one per property (the macro declares it beside
/// the property), which remembers where the value sits in the last entity layout it was read in.
public final class ManagedPropertyKey: Sendable {
  /// The property's name: the model key.
  public let name: String
  /// For `primitiveTitle`, `title`: the key whose primitive value the property is, if the entity turns out
  /// not to have a key of the property's own name.
  let primitiveKey: String?
  /// ``EntityLayout/slotCacheEntry(of:)`` for the layout last read in: read and replaced without a lock (a
  /// stale entry names another layout's serial, and is looked up again).
  let slot = Atomic<UInt64>(0)

  /// Makes the key of the property `name` (written by the macro).
  public init(_ name: String) {
    self.name = name
    let rest = name.dropFirst("primitive".count)
    if name.hasPrefix("primitive"), let first = rest.first, first.isUppercase {
      primitiveKey = first.lowercased() + rest.dropFirst()
    } else {
      primitiveKey = nil
    }
  }
}

extension NSManagedObject {
  /// The stored value of a plain attribute (no transformer) that has one, what a managed property tries
  /// first, without making an `Any`; `nil` for a nil value, a relationship or a transformable, which take
  /// the general read.
  @usableFromInline
  final func plainAttributeValue(for key: ManagedPropertyKey) -> SlotValue? {
    var cached = key.slot.load(ordering: .relaxed)
    if UInt32(truncatingIfNeeded: cached >> 32) != layout.serial {
      cached = layout.slotCacheEntry(of: key.name)
      key.slot.store(cached, ordering: .relaxed)
    }
    // A key the entity lacks (0), or a slot that is not a plain attribute: the general read.
    guard cached & 0x8000_0000 == 0, cached & 0xFFFF_FFFF != 0 else { return nil }
    ConcurrencyDebug.objectTouchedOffQueue(self, key: key.name)
    if state.isFault { fireFault(key: key.name) }
    return values[Int(truncatingIfNeeded: cached & 0x7FFF_FFFF) - 1]
  }

  /// Reads a managed property (what ``ObjectGraphManaged()``'s getter calls).
  ///
  /// Inlinable, so that a subclass's module reads with its own concrete types: the common case (the stored
  /// value already has the property's type) is one cast, with no generic type looked up at run time.
  @inlinable
  public func _managedValue<Value>(forKey key: ManagedPropertyKey) -> Value {
    // A plain attribute read as the type it is stored as: specialised in the caller's module, each `as?`
    // below is decided at compile time, and no `Any` is made.
    switch plainAttributeValue(for: key) {
    case .string(let value)?: if let value = value as? Value { return value }
    case .int64(let value)?: if let value = value as? Value { return value }
    case .int32(let value)?: if let value = value as? Value { return value }
    case .int16(let value)?: if let value = value as? Value { return value }
    case .double(let value)?: if let value = value as? Value { return value }
    case .float(let value)?: if let value = value as? Value { return value }
    case .bool(let value)?: if let value = value as? Value { return value }
    case .date(let value)?: if let value = value as? Value { return value }
    case .data(let value)?: if let value = value as? Value { return value }
    default: break
    }
    return managedValueSlowly(forKey: key, as: Value.self)
  }

  /// The rarer reads: a relationship, a transformable, `nil`, a number of another width or as an `NSNumber`,
  /// a to-many as an `NSSet` or an array, a primitive accessor.
  @usableFromInline
  final func managedValueSlowly<Value>(forKey key: ManagedPropertyKey, as type: Value.Type) -> Value {
    let name = managedKeyName(key)
    let raw = typedValue(forKey: name)
    if let value = raw as? Value { return value }
    if raw == nil, let empty = (nil as Any?) as? Value { return empty }
    if let raw {
      // `NSNumber` (an optional number as Xcode declares it) and `NSDecimalNumber`.
      if Value.self == NSNumber.self || Value.self == NSNumber?.self || Value.self == NSDecimalNumber.self
        || Value.self == NSDecimalNumber?.self, let boxed = value(forKey: name) as? Value
      {
        return boxed
      }
      // `Int` for an Integer 64 attribute, `Double` for a Float one...: numbers convert when exact, as
      // `@NSManaged` scalar properties bridge.
      if let numeric = Value.self as? any ManagedNumber.Type, let value = numeric.init(managedNumber: raw) as? Value {
        return value
      }
      if let set = raw as? Set<NSManagedObject> {
        if set.isEmpty, let empty = (Set<NSManagedObject>() as Any) as? Value { return empty }
        if let value = NSSet(array: Array(set)) as? Value { return value }
      }
      // An ordered to-many read as a typed array (`[Step]`).
      if let ordered = raw as? NSOrderedSet, let array = ordered.array as? Value { return array }
    }
    programmerError(
      "ObjectGraph: \(entity.entityName).\(name) holds \(raw.map { "\(Swift.type(of: $0))" } ?? "nil"), which the property's type \(Value.self) cannot hold. Make the property optional, give the attribute a default value, or declare the model's type."
    )
  }

  /// Writes a managed property (what ``ObjectGraphManaged()``'s setter calls): ``NSManagedObject/setValue(_:forKey:)``, or
  /// ``NSManagedObject/setPrimitiveValue(_:forKey:)`` for a primitive accessor.
  @inlinable
  public func _setManagedValue<Value>(_ value: Value, forKey key: ManagedPropertyKey) {
    setManagedValue(value, forKey: key)
  }

  @usableFromInline
  final func setManagedValue(_ value: Any?, forKey key: ManagedPropertyKey) {
    let name = managedKeyName(key)
    if name != key.name {
      setPrimitiveValue(value, forKey: name)
    } else {
      setValue(value, forKey: name)
    }
  }

  /// The key a managed property reads: its own name, or for `primitiveTitle` on an entity without such a
  /// key, `title`.
  private func managedKeyName(_ key: ManagedPropertyKey) -> String {
    if let primitive = key.primitiveKey, layout.index(of: key.name) == nil, layout.index(of: primitive) != nil {
      return primitive
    }
    return key.name
  }

  // MARK: - Xcode's generated relationship methods

  /// `addToTags(_:)`: adds one object, or the objects of an `NSSet`, `NSOrderedSet`, `Set` or array, to the
  /// to-many relationship (named with a capital letter, as in the method's name).
  public func _managedAdd(_ value: Any, toRelationship capitalized: String) {
    let key = relationshipKey(capitalized)
    let added = Self.members(value)
    if entity.relationshipsByName[key]?.isOrdered == true {
      let ordered = mutableOrderedSetValue(forKey: key)
      for object in added where ordered.index(of: object) == NSNotFound { ordered.add(object) }
      return
    }
    var current = self.value(forKey: key) as? Set<NSManagedObject> ?? []
    current.formUnion(added)
    setValue(current, forKey: key)
  }

  /// `removeFromTags(_:)`: removes one object, or the objects of a collection, from the to-many relationship.
  public func _managedRemove(_ value: Any, fromRelationship capitalized: String) {
    let key = relationshipKey(capitalized)
    let removed = Self.members(value)
    if entity.relationshipsByName[key]?.isOrdered == true {
      let ordered = mutableOrderedSetValue(forKey: key)
      for object in removed { ordered.remove(object) }
      return
    }
    var current = self.value(forKey: key) as? Set<NSManagedObject> ?? []
    current.subtract(removed)
    setValue(current, forKey: key)
  }

  /// `removeFromSteps(at:)`: removes the object at an index (an `Int`) or the objects at indexes (an
  /// `NSIndexSet` or `IndexSet`) of an ordered to-many relationship.
  public func _managedRemove(at index: Any, fromRelationship capitalized: String) {
    mutableOrderedSetValue(forKey: relationshipKey(capitalized)).removeObjects(at: Self.indexes(index))
  }

  /// `insertIntoSteps(_:at:)`: inserts one object at an index, or objects at indexes, in an ordered to-many.
  public func _managedInsert(_ value: Any, at index: Any, intoRelationship capitalized: String) {
    mutableOrderedSetValue(forKey: relationshipKey(capitalized)).insert(Self.members(value), at: Self.indexes(index))
  }

  /// `replaceSteps(at:with:)`: replaces the object at an index, or the objects at indexes, of an ordered
  /// to-many.
  public func _managedReplace(at index: Any, with value: Any, inRelationship capitalized: String) {
    let ordered = mutableOrderedSetValue(forKey: relationshipKey(capitalized))
    let indexes = Self.indexes(index)
    let members = Self.members(value)
    requireCorrectUse(
      indexes.count == members.count,
      "ObjectGraph: replace\(capitalized)(at:with:) on \(entity.entityName) was given \(indexes.count) indexes and \(members.count) objects; give one object per index."
    )
    for (position, member) in zip(indexes, members) { ordered.replaceObject(at: position, with: member) }
  }

  /// The relationship a generated method names: `Tags` is `tags` (or `Tags`, or any relationship of that
  /// name whatever its case, as Xcode capitalises only the first letter).
  private func relationshipKey(_ capitalized: String) -> String {
    let relationships = entity.relationshipsByName
    let lowered = (capitalized.first?.lowercased() ?? "") + capitalized.dropFirst()
    if relationships[lowered] != nil { return lowered }
    if relationships[capitalized] != nil { return capitalized }
    if let match = relationships.keys.first(where: { $0.lowercased() == capitalized.lowercased() }) { return match }
    programmerError(
      "ObjectGraph: \(entity.entityName) has no relationship for the generated method's \(capitalized) (looked for '\(lowered)'). Its relationships: \(relationships.keys.sorted().joined(separator: ", "))."
    )
  }

  private static func members(_ value: Any) -> [NSManagedObject] {
    if let object = value as? NSManagedObject { return [object] }
    if let ordered = value as? NSOrderedSet { return ordered.array.compactMap { $0 as? NSManagedObject } }
    if let set = value as? NSSet { return set.allObjects.compactMap { $0 as? NSManagedObject } }
    if let sequence = value as? any Sequence { return sequence.compactMap { $0 as? NSManagedObject } }
    programmerError("ObjectGraph: a relationship method was given \(type(of: value)), not managed objects.")
  }

  private static func indexes(_ value: Any) -> IndexSet {
    if let index = value as? Int { return IndexSet(integer: index) }
    if let indexes = value as? IndexSet { return indexes }
    if let indexes = value as? NSIndexSet {
      var result = IndexSet()
      indexes.enumerate { index, _ in result.insert(index) }
      return result
    }
    programmerError("ObjectGraph: a relationship method was given \(type(of: value)) as an index; give an Int or an NSIndexSet.")
  }
}
