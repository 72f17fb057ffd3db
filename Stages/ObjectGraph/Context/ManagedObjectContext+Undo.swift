import Foundation
internal import Synchronization

extension NSManagedObjectContext {
  // MARK: - Undo

  /// The undo manager that records this context's changes, or `nil` (the default, as in Core Data since
  /// macOS 10.12 and iOS): with one, every insert, delete and property change made through the context's
  /// API (``insert(_:)``, ``delete(_:)``, `setValue(_:forKey:)` and managed properties, with the inverse side
  /// of each relationship, and the delete rules applied when pending changes are processed) can be undone
  /// with ``undo()`` and redone with ``redo()``.
  ///
  /// ```swift
  /// context.undoManager = UndoManager()
  /// note.title = "Draft"
  /// context.processPendingChanges()   // closes the event's undo group
  /// context.undo()                    // note.title is what it was
  /// ```
  ///
  /// Changes made in one event (one `perform` block, one outermost `performAndWait` block, one turn of the
  /// main queue for a main-queue context, or what comes before ``processPendingChanges()``) are undone
  /// together; the undo manager's `beginUndoGrouping()` and `endUndoGrouping()` group them otherwise. What a
  /// merge brings (``mergeChanges(fromContextDidSave:)``, a child's save, ``refresh(_:mergeChanges:)``) and
  /// `setPrimitiveValue(_:forKey:)` are not recorded. ``save()`` keeps what can be undone; ``rollback()``
  /// empties the undo manager, and ``reset()`` removes this context's operations from it.
  ///
  /// Use the undo manager on the context's queue only, as the context's objects. Setting it to `nil` while
  /// importing many objects saves the cost of recording them, as Apple advises.
  public var undoManager: UndoManager? {
    get { settings.withLock { $0.undoManager } }
    set {
      let (old, observer) = settings.withLock { state in
        defer {
          state.undoManager = newValue
          state.undoObserver = nil
        }
        return (state.undoManager, state.undoObserver)
      }
      if let observer { NotificationCenter.default.removeObserver(observer.token) }
      if (old == nil) != (newValue == nil) { Self.contextsWithUndoManagers.add(newValue == nil ? -1 : 1, ordering: .relaxed) }
      guard let newValue else { return }
      // As Core Data's: a checkpoint (a group opening or closing, an undo or redo starting) processes the
      // delete rules first, so what they change lands in the group being closed.
      let token = NotificationCenter.default.addObserver(forName: .NSUndoManagerCheckpoint, object: newValue, queue: nil) {
        [weak self] _ in
        guard let self, self.isOnQueue else { return }
        self.propagateDeletes(self.confined)
      }
      settings.withLock { $0.undoObserver = ObserverToken(token: token) }
    }
  }

  /// Undoes the last group of changes recorded in ``undoManager`` (the group of the current event first,
  /// when one is open): values and relationships (both sides) go back, inserted objects leave, deleted ones
  /// return. Does nothing without an undo manager or with nothing to undo.
  public func undo() {
    isolated("undo()") { confined in
      guard let manager = undoManager else { return }
      propagateDeletes(confined)
      manager.undo()
      processPendingChangesQuietly()
    }
  }

  /// Redoes the last group of changes ``undo()`` undid. Does nothing without an undo manager or with nothing
  /// to redo.
  public func redo() {
    isolated("redo()") { confined in
      guard let manager = undoManager else { return }
      propagateDeletes(confined)
      manager.redo()
      processPendingChangesQuietly()
    }
  }

  /// How many live contexts have an undo manager, over the process: while none has, a change costs one
  /// relaxed load more, and nothing is recorded.
  static let contextsWithUndoManagers = Atomic<Int>(0)

  static var someContextRecordsUndo: Bool { contextsWithUndoManagers.load(ordering: .relaxed) > 0 }

  /// Closes the undo group the current event opened (see ``UndoManager``), at the end of the event.
  func endUndoEventGroup() {
    #if !canImport(Darwin)
      guard Self.someContextRecordsUndo, let manager = undoManager else { return }
      manager.endEventGroup()
    #endif
  }

  /// The undo manager changes are recorded with now: `nil` without one, while registration is disabled, and
  /// while a merge runs.
  private func recordingUndoManager(_ confined: Confined) -> UndoManager? {
    guard confined.undoSuppression == 0, let manager = undoManager, manager.isUndoRegistrationEnabled else { return nil }
    return manager
  }

  // MARK: - Recording

  /// Records that `object`'s slot `index` held `old` before a change (called by the object before, or right
  /// after, it changes the slot).
  func recordUndo(of object: NSManagedObject, slot index: Int, old: StoredValue) {
    let record = { [self] (confined: Confined) in
      guard let manager = recordingUndoManager(confined) else { return }
      let value = UndoSlotValue(old, slot: object.layout.slots[index], context: self, confined)
      manager.registerUndo(withTarget: self) { context in context.restore(object, slot: index, to: value) }
    }
    if isOnQueue { return record(confined) }
    performAndWait { record(confined) }
  }

  /// Records where `object` stands in the context (inserted, deleted, or neither) before that changes.
  func recordMembership(of object: NSManagedObject, _ confined: Confined) {
    guard Self.someContextRecordsUndo, let manager = recordingUndoManager(confined) else { return }
    let image = UndoMembership(object, in: self, confined)
    manager.registerUndo(withTarget: self) { context in context.restore(object, to: image) }
  }

  // MARK: - Restoring

  private func restore(_ object: NSManagedObject, slot index: Int, to value: UndoSlotValue) {
    isolated("undo()") { confined in
      guard object.managedObjectContext === self else { return }
      let slot = object.layout.slots[index]
      object.fireFault(key: slot.name)
      let current = UndoSlotValue(object.values[index], slot: slot, context: self, confined)
      undoManager?.registerUndo(withTarget: self) { context in context.restore(object, slot: index, to: current) }
      object.values[index] = value.stored(for: slot)
      noteRestoredValues(of: object, slot: index, confined)
      object.awake(fromSnapshotEvents: .undoUpdate)
    }
  }

  /// Brings the object's change state in line with its values after a restore: a slot is changed when it
  /// differs from the values last saved (so an undo after a save leaves a change to save).
  private func noteRestoredValues(of object: NSManagedObject, slot index: Int, _ confined: Confined) {
    defer { scheduleProcessing(confined) }
    if object.state.isInserted {
      if object.state.wasAnnounced { confined.unnoticedUpdates.insert(object) }
      return
    }
    guard !object.state.isDeleted else { return }
    if let snapshot = object.snapshot, StoredValueComparison.isEqual(object.values[index], snapshot.values[index]) {
      object.changedSlots.remove(index)
    } else {
      object.changedSlots.insert(index)
    }
    noteUpdatedState(of: object, confined)
  }

  private func noteUpdatedState(of object: NSManagedObject, _ confined: Confined) {
    guard !object.state.isInserted, !object.state.isDeleted else { return }
    let snapshot = object.snapshot
    let updated = object.changedSlots.contains { index in
      guard let snapshot else { return true }
      return !StoredValueComparison.isEqual(object.values[index], snapshot.values[index])
    }
    object.state.isUpdated = updated
    if updated { confined.updated.insert(object) } else { confined.updated.remove(object) }
    confined.unnoticedUpdates.insert(object)
  }

  private func restore(_ object: NSManagedObject, to image: UndoMembership) {
    isolated("undo()") { confined in
      let current = UndoMembership(object, in: self, confined)
      guard current != image else { return }
      undoManager?.registerUndo(withTarget: self) { context in context.restore(object, to: current) }
      apply(image, to: object, confined)
      scheduleProcessing(confined)
      let now = UndoMembership(object, in: self, confined)
      if current.isInserted && !now.inContext {
        object.awake(fromSnapshotEvents: .undoInsertion)
      } else if (current.isDeleted || !current.inContext) && now.inContext && !now.isDeleted {
        object.awake(fromSnapshotEvents: .undoDeletion)
      }
    }
  }

  private func apply(_ image: UndoMembership, to object: NSManagedObject, _ confined: Confined) {
    let inContext = object.managedObjectContext === self
    guard image.inContext else {
      guard inContext else { return }
      if !object.state.isInserted && !object.state.isDeleted && object.snapshot != nil {
        // Inserted, then saved: undoing the insert deletes the object from the store at the next save.
        markDeleted(object, confined)
        return
      }
      // An insert not saved: the object leaves the context.
      if object.state.isInserted { confined.inserted.remove(object) }
      object.state.isInserted = false
      object.state.isDeleted = false
      confined.deleted.remove(object)
      confined.updated.remove(object)
      confined.propagated.remove(ObjectIdentifier(object))
      if confined.registered(object.objectID) === object { confined.registry[object.objectID] = nil }
      object.managedObjectContext = nil
      confined.unnoticedDeletes.insert(object)
      return
    }
    if !inContext {
      // Only an object that never reached a store comes back: a deletion that has been saved is gone.
      guard object.managedObjectContext == nil, object.objectID.isTemporaryID else { return }
      object.managedObjectContext = self
      confined.register(object)
    }
    if image.isInserted != object.state.isInserted, object.snapshot == nil {
      if image.isInserted { confined.inserted.append(object) } else { confined.inserted.remove(object) }
      object.state.isInserted = image.isInserted
    }
    if image.isDeleted != object.state.isDeleted {
      if image.isDeleted {
        markDeleted(object, confined)
      } else {
        object.state.isDeleted = false
        confined.deleted.remove(object)
        confined.unnoticedDeletes.remove(object)
      }
    }
    if image.wasPropagated {
      confined.propagated.insert(ObjectIdentifier(object))
    } else {
      confined.propagated.remove(ObjectIdentifier(object))
    }
    if object.state.isInserted {
      if object.state.wasAnnounced { confined.unnoticedUpdates.insert(object) }
    } else {
      noteUpdatedState(of: object, confined)
    }
  }

  private func markDeleted(_ object: NSManagedObject, _ confined: Confined) {
    object.state.isDeleted = true
    object.state.isUpdated = false
    confined.unnoticedDeletes.insert(object)
    confined.unnoticedUpdates.remove(object)
    confined.rowCache[object.objectID] = nil
    if object.state.isInserted {
      confined.inserted.remove(object)
      object.state.isInserted = false
    }
    confined.updated.remove(object)
    confined.deleted.insert(object)
  }
}

/// Where an object stands in a context, for undo: in it or not, inserted, deleted, and whether its delete
/// rules have run.
struct UndoMembership: Equatable {
  var inContext: Bool
  var isInserted: Bool
  var isDeleted: Bool
  var wasPropagated: Bool

  init(_ object: NSManagedObject, in context: NSManagedObjectContext, _ confined: Confined) {
    inContext = object.managedObjectContext === context
    isInserted = inContext && object.state.isInserted
    isDeleted = inContext && object.state.isDeleted
    wasPropagated = inContext && confined.propagated.contains(ObjectIdentifier(object))
  }
}

/// A slot's value as undo keeps it: a relationship by its objects, not their IDs, so that an undo after a
/// save (which gives inserted objects permanent IDs) names them as they are then.
enum UndoSlotValue {
  case value(StoredValue)
  case toOne(NSManagedObject?)
  case toMany([NSManagedObject])

  init(_ stored: StoredValue, slot: EntityLayout.Slot, context: NSManagedObjectContext, _ confined: Confined) {
    switch slot.kind {
    case .attribute:
      self = .value(stored)
    case .toOne:
      self = .toOne(stored.objectID.map { context.materializeFault($0, confined) })
    case .toMany:
      guard !stored.isUnloadedToMany, let members = stored.memberList else {
        self = .value(stored)
        return
      }
      self = .toMany(members.map { context.materializeFault($0, confined) })
    }
  }

  func stored(for slot: EntityLayout.Slot) -> StoredValue {
    switch self {
    case .value(let stored): stored
    case .toOne(let object): object.map { .objectID($0.objectID) }
    case .toMany(let objects): slot.toManyValue(objects.map(\.objectID))
    }
  }
}
