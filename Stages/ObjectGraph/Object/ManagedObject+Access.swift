import Foundation

extension NSManagedObject {
  // MARK: - Key-value access

  /// The value of a property: an attribute's value (`String`, `Date`, `Data`, …; numbers and Booleans as
  /// `NSNumber`, as Core Data hands them out, so `as? Int`, `as? Int64`, `as? Double` and `as? Bool` all
  /// work), a to-one's object (`NSManagedObject?`), or a to-many's objects (`Set<NSManagedObject>`, or an
  /// `NSOrderedSet` of them in their order for an ordered to-many, as in Core Data).
  ///
  /// A fetched property's key runs its fetch request the first time, in the object's context, and gives its
  /// result (an array) until the object is refreshed (see ``NSFetchedPropertyDescription``).
  ///
  /// Touching a fault loads it. A key the entity does not have is asked of
  /// ``value(forUndefinedKey:)``, which a subclass overrides to answer its computed properties; a key
  /// nobody answers stops the program with a message listing the entity's keys (a programmer error, as in
  /// Core Data).
  public func value(forKey key: String) -> Any? {
    read(key, boxingNumbers: true)
  }

  /// The value of a property with numbers as the Swift type the attribute stores (`Int64`, `Int32`, …):
  /// what a managed property (``ObjectGraphManaged()``) reads, without the `NSNumber` ``value(forKey:)`` makes for ported code.
  @usableFromInline
  func typedValue(forKey key: String) -> Any? {
    read(key, boxingNumbers: false)
  }

  @inline(__always)
  private func read(_ key: String, boxingNumbers: Bool) -> Any? {
    guard let index = layout.index(of: key) else { return undefinedValue(forKey: key) }
    ConcurrencyDebug.objectTouchedOffQueue(self, key: key)
    if state.isFault { fireFault(key: key) }
    // The kind from a plain array of enums: no reference to the slot object is taken on this hot path.
    switch layout.kinds[index] {
    case .attribute:
      if !layout.transformableIndexes.isEmpty, layout.transformableIndexes.contains(index) {
        return transformableValue(values[index], at: index)
      }
      if !layout.compositeIndexes.isEmpty, layout.compositeIndexes.contains(index) {
        return Self.compositeValue(of: layout.slots[index], in: values, layout: layout, boxingNumbers: boxingNumbers)
      }
      return boxingNumbers ? values[index]?.boxedValue : values[index]?.anyValue
    case .toOne:
      guard let id = values[index].objectID, let context = managedObjectContext else { return nil }
      return context.object(with: id)
    case .toMany:
      let slot = layout.slots[index]
      if slot.isOrdered { return NSOrderedSet(array: relatedObjectList(slot)) }
      return Set(relatedIDs(slot).compactMap { id in managedObjectContext?.object(with: id) })
    }
  }

  /// Sets a property, keeping the inverse relationship of any related object in step.
  ///
  /// - Attributes take a value of the attribute type's Swift type (any integer type for integer
  ///   attributes, `Double` or `Float` for floating-point ones) or `nil`.
  /// - A to-one takes an `NSManagedObject?` of the destination entity, in the same context.
  /// - A to-many takes a `Set` (or array) of such objects; an ordered to-many takes them in order, as an
  ///   array or an `NSOrderedSet` (a `Set` has no order to keep, so it stops the program).
  ///
  /// A value of the wrong type, or an object from another context, stops the program with a message.
  public func setValue(_ value: Any?, forKey key: String) {
    let slot = loadedSlot(forKey: key)
    switch slot.kind {
    case .attribute where slot.isComposite:
      setComposite(value, slot: slot, notifies: true)
    case .attribute(let type):
      willChangeForUndo(slot.index)
      storeAttribute(value, slot, type, key: key)
      noteChange(slot.index)
    case .toOne:
      setToOne(value.flatMap { Self.object($0, key: key, entity: layout.name) }, slot: slot)
    case .toMany:
      let objects = Self.objects(value, key: key, entity: layout.name, ordered: slot.isOrdered)
      let current = relatedIDs(slot)
      let target = Set(objects.map(\.objectID))
      guard let context = managedObjectContext else {
        values[slot.index] = slot.toManyValue(objects.map(\.objectID))
        return
      }
      for id in current.subtracting(target) { removeFromToMany(context.object(with: id), slot: slot) }
      for object in objects where !current.contains(object.objectID) { addToToMany(object, slot: slot) }
      // New members were appended: put every member where the caller placed it.
      if slot.isOrdered {
        let ordered = slot.toManyValue(objects.map(\.objectID))
        if !StoredValueComparison.isEqual(values[slot.index], ordered) {
          willChangeForUndo(slot.index)
          values[slot.index] = ordered
          context.didChange(self, slot: slot.index)
        }
      }
    }
  }

  // MARK: - Primitive access

  /// The value of a property as the object holds it (Core Data's `primitiveValue(forKey:)`), in the form
  /// ``value(forKey:)`` gives it (numbers as `NSNumber`).
  ///
  /// Core Data documents it as not calling the access notification methods (``willAccessValue(forKey:)``,
  /// ``didAccessValue(forKey:)``), for custom accessors that call those themselves; this method does not
  /// call them either. A fault still loads its values first (the engine keeps no value it could give
  /// without them). Unlike ``value(forKey:)``, a key the entity does not have is never asked of
  /// ``value(forUndefinedKey:)``: it stops the program with a message listing the entity's keys.
  public func primitiveValue(forKey key: String) -> Any? {
    guard layout.index(of: key) != nil else { unknownKey(key) }
    return read(key, boxingNumbers: true)
  }

  /// Sets a property in the object's own storage without telling anyone (Core Data's
  /// `setPrimitiveValue(_:forKey:)`): the value changes, and nothing else does.
  ///
  /// As Core Data documents, no change notification is made. So, as there:
  /// - Set in `willSave()`, the value is saved with the object and `willSave()` is not called again for it
  ///   (the way to keep a timestamp or a count in `willSave()` without looping).
  /// - The object is not marked changed: on an object without other changes, ``hasChanges`` stays
  ///   `false` and a save does not write it; the value is written with the object's next change.
  ///   ``changedValues()`` lists it, as it compares with the values last saved.
  /// - A relationship's inverse is not updated: set the other side yourself (or use ``setValue(_:forKey:)``).
  ///
  /// It takes the values ``setValue(_:forKey:)`` takes; a value of the wrong type stops the program with a
  /// message.
  public func setPrimitiveValue(_ value: Any?, forKey key: String) {
    let slot = loadedSlot(forKey: key)
    switch slot.kind {
    case .attribute where slot.isComposite:
      setComposite(value, slot: slot, notifies: false)
      return
    case .attribute(let type):
      storeAttribute(value, slot, type, key: key)
    case .toOne:
      let object = unwrappedOptional(value).flatMap { Self.object($0, key: key, entity: layout.name) }
      if let object { checkSameContext(object, key: key) }
      values[slot.index] = object.map { .objectID($0.objectID) }
    case .toMany:
      let objects = Self.objects(value, key: key, entity: layout.name, ordered: slot.isOrdered)
      values[slot.index] = slot.toManyValue(objects.map(\.objectID))
    }
    // Written with the object's next save that includes it; a new object is saved whole anyway.
    if !state.isInserted { changedSlots.insert(slot.index) }
  }

  /// The slot a write by key goes to, with the object's values loaded (and the queue checked).
  @inline(__always)
  func loadedSlot(forKey key: String) -> EntityLayout.Slot {
    let slot = slot(forKey: key)
    ConcurrencyDebug.objectTouchedOffQueue(self, key: key)
    fireFault(key: key)
    return slot
  }

  /// Puts an attribute's new value in its slot: its transformer's bytes, or the value as the attribute's type.
  @inline(__always)
  private func storeAttribute(_ value: Any?, _ slot: EntityLayout.Slot, _ type: NSAttributeType, key: String) {
    if case .transformableAttributeType = type {
      // A `@ObjectGraphManaged var id: UUID?` set to nil arrives as a non-nil `Any?` holding an empty Optional: the
      // transformer must see nil, not that box.
      values[slot.index] = unwrappedOptional(value).flatMap { plain in slot.attribute?.transformedSlotValue(plain) }
    } else {
      values[slot.index] = Self.convert(value, to: type, key: key, entity: layout.name)
    }
  }

  /// Records an attribute's change. A new object is saved whole: no change tracking (and no context
  /// lookup) on this hot path, unless a save is running `willSave()` hooks, which must see the change, or
  /// an objects-did-change notification has announced the object, after which its changes are announced
  /// as updates (a fetched results controller follows an unsaved object this way).
  @inline(__always)
  func noteChange(_ index: Int) {
    if !state.isInserted || state.wasAnnounced {
      managedObjectContext?.didChange(self, slot: index)
    } else if NSManagedObjectContext.someContextRunsWillSave {
      managedObjectContext?.noteChangeDuringWillSave(self)
    }
  }

  /// The keys and new values of the properties changed since the object was last fetched or saved, as
  /// ``value(forKey:)`` gives them; a property changed to `nil` maps to `NSNull`, as in Core Data.
  public func changedValues() -> [String: Any] {
    ConcurrencyDebug.objectTouchedOffQueue(self, key: "changedValues()")
    var result: [String: Any] = [:]
    if state.isInserted {
      for slot in layout.slots where values[slot.index] != nil {
        if slot.isToMany, values[slot.index]?.memberCount ?? 0 == 0 { continue }
        let reported = reportedSlot(slot)
        result[reported.name] = value(forKey: reported.name) ?? NSNull()
      }
      return result
    }
    for index in changedSlots.sorted() {
      let slot = layout.slots[index]
      guard !slot.isComposite, !StoredValueComparison.isEqual(values[index], snapshot?.values[index] ?? nil) else { continue }
      let reported = reportedSlot(slot)
      result[reported.name] = value(forKey: reported.name) ?? NSNull()
    }
    return result
  }

  /// The values the given properties had when the object was last fetched or saved (`nil` keys: every
  /// property), as ``value(forKey:)`` gives them (numbers as `NSNumber`), with `NSNull` for a property that
  /// had no value, as in Core Data. A new object has no committed values.
  public func committedValues(forKeys keys: [String]?) -> [String: Any] {
    ConcurrencyDebug.objectTouchedOffQueue(self, key: "committedValues(forKeys:)")
    guard let snapshot, !state.isInserted else { return [:] }
    var result: [String: Any] = [:]
    for slot in layout.slots where slot.compositeOwner == nil && keys?.contains(slot.name) ?? true {
      let stored = snapshot.values[slot.index]
      switch slot.kind {
      case .attribute where slot.isComposite:
        result[slot.name] = Self.compositeValue(of: slot, in: snapshot.values, layout: layout, boxingNumbers: true) ?? NSNull()
      case .attribute:
        result[slot.name] =
          (layout.transformableIndexes.contains(slot.index) ? transformableValue(stored, at: slot.index) : stored?.boxedValue)
          ?? NSNull()
      case .toOne:
        result[slot.name] = stored.objectID.flatMap { managedObjectContext?.object(with: $0) } ?? NSNull()
      case .toMany where slot.isOrdered:
        result[slot.name] = NSOrderedSet(array: (stored.memberList ?? []).compactMap { managedObjectContext?.object(with: $0) })
      case .toMany:
        let ids = stored.objectIDs ?? []
        result[slot.name] = Set(ids.compactMap { managedObjectContext?.object(with: $0) })
      }
    }
    return result
  }

  // MARK: - Internals

  func slot(forKey key: String) -> EntityLayout.Slot {
    layout.slots[slotIndex(forKey: key)]
  }

  func slotIndex(forKey key: String) -> Int {
    guard let index = layout.index(of: key) else { unknownKey(key) }
    return index
  }

  /// A key the model does not have, for ``value(forKey:)``: the subclass's answer, or the stop.
  @inline(never)
  private func undefinedValue(forKey key: String) -> Any? {
    ConcurrencyDebug.objectTouchedOffQueue(self, key: key)
    if case .some(let value) = fetchedPropertyValue(forKey: key) { return value }
    do {
      return try value(forUndefinedKey: key)
    } catch {
      programmerError("ObjectGraph: \((error as? ObjectGraphError)?.message ?? "\(error)")")
    }
  }

  @inline(never)
  private func unknownKey(_ key: String) -> Never {
    programmerError(
      "ObjectGraph: entity \(entity.entityName) has no property '\(key)'. Its properties: \(layout.slots.map(\.name).joined(separator: ", "))."
    )
  }

  /// Loads the object's values if it is a fault.
  ///
  /// A fault whose row is gone becomes a deleted, empty object when its context's
  /// `shouldHandleInaccessibleFault(_:for:triggeredByProperty:)` says so, as it does while
  /// `shouldDeleteInaccessibleFaults` is on (the default, as in Core Data); with it off, the access stops
  /// the program with a message, as Core Data's "could not fulfill a fault" exception did.
  func fireFault(key: String) {
    guard state.isFault else { return }
    if !state.needsLoad {
      // Fetched with its values: firing only marks it realised, unless a context limits how old the values a
      // fault may use are (checked only then: the weak load of the context is not free on this hot path).
      if NSManagedObjectContext.someContextLimitsStaleness, let context = managedObjectContext, context.isStale(readAt) {
        values = layout.initialValues
        state.needsLoad = true
      } else {
        state.isFault = false
        awakeFromFetch()
        return
      }
    }
    guard let context = managedObjectContext else {
      state.isFault = false
      return
    }
    do {
      try context.fulfill(self)
    } catch {
      guard context.shouldHandleInaccessibleFault(self, for: objectID, triggeredByProperty: entity.propertiesByName[key]) else {
        programmerError(
          "ObjectGraph: could not fulfill a fault for '\(key)' of \(entity.entityName) \(objectID): \(error). Use existingObject(with:) instead of object(with:) when the object may have been deleted."
        )
      }
      becomeInaccessible()
    }
  }

  /// Marks an object whose row is gone as deleted and empty.
  func becomeInaccessible() {
    values = layout.slots.map { $0.isToMany ? $0.emptyToMany : nil }
    snapshot = RowSnapshot(version: 0, values: values)
    batch = nil
    state.needsLoad = false
    state.isFault = false
    state.isInaccessible = true
    state.isDeleted = true
  }

  /// Reads a to-many slot's members from the store on first access. If they cannot be read (the row is
  /// gone, the store was removed), the relationship reads as empty.
  private func loadToManyIfNeeded(_ slot: EntityLayout.Slot) {
    guard values[slot.index].isUnloadedToMany, let context = managedObjectContext else { return }
    do {
      try context.loadToMany(self, slot: slot)
    } catch {
      values[slot.index] = slot.emptyToMany
    }
  }

  /// The member IDs of a to-many slot (see `loadToManyIfNeeded`).
  func relatedIDs(_ slot: EntityLayout.Slot) -> Set<NSManagedObjectID> {
    loadToManyIfNeeded(slot)
    return values[slot.index].objectIDs ?? []
  }

  /// The same as a list: in order for an ordered to-many.
  func relatedIDList(_ slot: EntityLayout.Slot) -> [NSManagedObjectID] {
    loadToManyIfNeeded(slot)
    return values[slot.index].memberList ?? []
  }

  /// The members of a to-many slot as objects of this object's context, in order for an ordered to-many.
  func relatedObjectList(_ slot: EntityLayout.Slot) -> [NSManagedObject] {
    guard let context = managedObjectContext else { return [] }
    return relatedIDList(slot).map { context.object(with: $0) }
  }

  private enum MemberEdit {
    case insert(NSManagedObjectID)
    case remove(NSManagedObjectID)
  }

  /// Adds a member to a to-many slot (at the end of an ordered one) or removes one, in place, and says
  /// whether the slot changed.
  ///
  /// The members are taken out of the value array while they are edited, so their storage is uniquely
  /// referenced and the edit does not copy it: adding N members one by one stays linear, not quadratic.
  /// (Removing a member from an ordered to-many is linear in its size, as removing from a list is.)
  private func editToMany(_ slot: EntityLayout.Slot, _ edit: MemberEdit) -> Bool {
    loadToManyIfNeeded(slot)
    if !state.isInserted { recordEventOldValue(slot.index) }
    if NSManagedObjectContext.someContextRecordsUndo, let context = managedObjectContext {
      // Recorded with the members before the edit (kept by undo, so the edit copies them: undo costs that).
      let before = values[slot.index]
      let changed = editMembers(slot, edit)
      if changed { context.recordUndo(of: self, slot: slot.index, old: before) }
      return changed
    }
    return editMembers(slot, edit)
  }

  private func editMembers(_ slot: EntityLayout.Slot, _ edit: MemberEdit) -> Bool {
    var value = values[slot.index]
    values[slot.index] = nil
    if case .orderedObjectIDs(var ids)? = value {
      value = nil
      let changed =
        switch edit {
        case .insert(let id): ids.append(id)
        case .remove(let id): ids.remove(id)
        }
      values[slot.index] = .orderedObjectIDs(ids)
      return changed
    }
    var ids = value.objectIDs ?? []
    value = nil
    let changed =
      switch edit {
      case .insert(let id): ids.insert(id).inserted
      case .remove(let id): ids.remove(id) != nil
      }
    values[slot.index] = slot.toManyValue(ids)
    return changed
  }

  /// Records slot `index`'s value for undo before it changes, when some context records undo and this
  /// object's context is one of them.
  @inline(__always)
  func willChangeForUndo(_ index: Int) {
    if !state.isInserted { recordEventOldValue(index) }
    guard NSManagedObjectContext.someContextRecordsUndo, let context = managedObjectContext else { return }
    context.recordUndo(of: self, slot: index, old: values[index])
  }

  private func setToOne(_ newValue: NSManagedObject?, slot: EntityLayout.Slot) {
    if let newValue { checkSameContext(newValue, key: slot.name) }
    let oldID = values[slot.index].objectID
    guard oldID != newValue?.objectID else { return }
    willChangeForUndo(slot.index)
    values[slot.index] = newValue.map { .objectID($0.objectID) }
    managedObjectContext?.didChange(self, slot: slot.index)
    guard let inverse = slot.relationship?.inverseRelationship, let context = managedObjectContext else { return }
    if let oldID {
      let old = context.object(with: oldID)
      old.primitiveRemove(self, inverse: inverse)
    }
    newValue?.primitiveAdd(self, inverse: inverse)
  }

  /// Adds `members` to the unordered to-many `key`, member by member (``MutableSetRelationship``): what
  /// `setValue(_:forKey:)` does for the members it adds, without comparing the whole set.
  func addMembers(_ members: [NSManagedObject], toManyKey key: String) {
    let slot = loadedSlot(forKey: key)
    let objects = Self.objects(members, key: key, entity: layout.name, ordered: false)
    guard managedObjectContext != nil else {
      programmerError(
        "ObjectGraph: \(layout.name).\(key) cannot take members through mutableSetValue(forKey:): the object is in no context. Insert it into a context first, or set the whole set with setValue(_:forKey:)."
      )
    }
    for object in objects { addToToMany(object, slot: slot) }
  }

  /// Removes `members` from the unordered to-many `key`, member by member (``MutableSetRelationship``).
  func removeMembers(_ members: [NSManagedObject], toManyKey key: String) {
    let slot = loadedSlot(forKey: key)
    // A member that is not one changes nothing: removeFromToMany stops at its edit.
    for member in members { removeFromToMany(member, slot: slot) }
  }

  private func addToToMany(_ object: NSManagedObject, slot: EntityLayout.Slot) {
    checkSameContext(object, key: slot.name)
    guard editToMany(slot, .insert(object.objectID)) else { return }
    managedObjectContext?.didChange(self, slot: slot.index)
    if let inverse = slot.relationship?.inverseRelationship { object.primitiveAdd(self, inverse: inverse) }
  }

  private func removeFromToMany(_ object: NSManagedObject, slot: EntityLayout.Slot) {
    guard editToMany(slot, .remove(object.objectID)) else { return }
    managedObjectContext?.didChange(self, slot: slot.index)
    if let inverse = slot.relationship?.inverseRelationship { object.primitiveRemove(self, inverse: inverse) }
  }

  /// Makes `object` a member of this object's `inverse` side (which points back at `object`'s side).
  func primitiveAdd(_ object: NSManagedObject, inverse: NSRelationshipDescription) {
    guard let index = layout.index(of: inverse.name) else { return }
    fireFault(key: inverse.name)
    let slot = layout.slots[index]
    if slot.isToMany {
      guard editToMany(slot, .insert(object.objectID)) else { return }
    } else {
      // A to-one inverse: this object leaves its previous partner.
      if let previous = values[index].objectID, previous != object.objectID,
        let context = managedObjectContext, let back = inverse.inverseRelationship
      {
        context.object(with: previous).primitiveRemove(self, inverse: back)
      }
      guard values[index].objectID != object.objectID else { return }
      willChangeForUndo(index)
      values[index] = .objectID(object.objectID)
    }
    managedObjectContext?.didChange(self, slot: index)
  }

  /// Removes `object` from this object's `inverse` side.
  func primitiveRemove(_ object: NSManagedObject, inverse: NSRelationshipDescription) {
    guard let index = layout.index(of: inverse.name) else { return }
    fireFault(key: inverse.name)
    let slot = layout.slots[index]
    if slot.isToMany {
      guard editToMany(slot, .remove(object.objectID)) else { return }
    } else {
      guard values[index].objectID == object.objectID else { return }
      willChangeForUndo(index)
      values[index] = nil
    }
    managedObjectContext?.didChange(self, slot: index)
  }

  private func checkSameContext(_ other: NSManagedObject, key: String) {
    if let mine = managedObjectContext, let theirs = other.managedObjectContext, mine !== theirs {
      ConcurrencyDebug.objectsFromTwoContexts(self, other, key: key)
    }
  }

  // MARK: - Value conversion

  static func convert(_ value: Any?, to type: NSAttributeType, key: String, entity: String) -> StoredValue {
    guard let value else { return nil }
    // The common cases first: the exact Swift type of the attribute, one cast each.
    switch type {
    case .stringAttributeType: if let string = value as? String { return .string(string) }
    case .integer64AttributeType: if let int = value as? Int64 { return .int64(int) }
    case .doubleAttributeType: if let double = value as? Double { return .double(double) }
    case .dateAttributeType: if let date = value as? Date { return .date(date) }
    case .booleanAttributeType: if let bool = value as? Bool { return .bool(bool) }
    default: break
    }
    guard let value = unwrappedOptional(value) else { return nil }
    guard let converted = SlotValue.coerce(value, to: type) else {
      programmerError(
        "ObjectGraph: \(entity).\(key) is a \(type.xcodeName) attribute and takes a \(type.swiftTypeName); it was given \(Swift.type(of: value)) (\(value))."
      )
    }
    return converted
  }

  /// The value a transformable attribute's slot stands for: its bytes turned back by its transformer, or
  /// the value its transformer refused.
  func transformableValue(_ stored: StoredValue, at index: Int) -> Any? {
    switch stored {
    case .data(let data)?: return layout.slots[index].attribute?.reverseTransformed(data) ?? data
    case .boxed(let box)?: return stored.untransformable?.value ?? box.value
    default: return stored?.anyValue
    }
  }

  private static func object(_ value: Any, key: String, entity: String) -> NSManagedObject? {
    if case Optional<Any>.none = value { return nil }
    guard let object = value as? NSManagedObject else {
      programmerError(
        "ObjectGraph: \(entity).\(key) is a to-one relationship and takes a NSManagedObject; it was given \(type(of: value)).")
    }
    return object
  }

  private static func objects(_ value: Any?, key: String, entity: String, ordered: Bool) -> [NSManagedObject] {
    guard let value else { return [] }
    if case Optional<Any>.none = value { return [] }
    if let array = value as? [NSManagedObject] { return array }
    if let set = value as? Set<NSManagedObject> {
      guard !ordered || set.count < 2 else {
        programmerError(
          "ObjectGraph: \(entity).\(key) is an ordered to-many relationship and takes its objects in order (an array or an NSOrderedSet); it was given a Set, which has no order."
        )
      }
      return Array(set)
    }
    if let orderedSet = value as? NSOrderedSet { return objects(orderedSet.array, key: key, entity: entity, ordered: ordered) }
    if let sequence = value as? any Sequence {
      var result: [NSManagedObject] = []
      for element in sequence {
        guard let object = element as? NSManagedObject else {
          programmerError(
            "ObjectGraph: \(entity).\(key) is a to-many relationship and takes managed objects; it was given a \(type(of: element)).")
        }
        result.append(object)
      }
      return result
    }
    programmerError(
      "ObjectGraph: \(entity).\(key) is a to-many relationship and takes a Set of objects; it was given \(type(of: value)).")
  }
}
