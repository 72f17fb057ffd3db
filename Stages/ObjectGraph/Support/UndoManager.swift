import Foundation

#if !canImport(Darwin)
  /// A recorder of operations that can be undone and redone: Foundation's `UndoManager`, which Linux's
  /// Foundation does not have. Give one to a context (``NSManagedObjectContext/undoManager``) and the context
  /// registers every insert, delete and property change with it.
  ///
  /// ```swift
  /// let undoManager = UndoManager()
  /// context.undoManager = undoManager
  /// note.title = "Draft"
  /// context.processPendingChanges()   // the end of the event: its group closes
  /// context.undo()                    // note.title is back
  /// ```
  ///
  /// Operations are kept in groups: ``undo()`` reverses the last group and records what it did as one group
  /// of ``redo()``. Open one with ``beginUndoGrouping()`` and close it with ``endUndoGrouping()``; groups nest.
  /// With ``groupsByEvent`` (the default), an operation registered while no group is open opens one, as
  /// Foundation's opens one at the start of each pass of the run loop. There is no run loop turning under a
  /// context's queue on Linux, so that group is closed at the end of the event as the engine sees it: when a
  /// context using this undo manager processes its pending changes (at the end of each `perform` block, of
  /// each outermost `performAndWait` block, of each turn of the main queue that changed a main-queue context,
  /// and in ``NSManagedObjectContext/processPendingChanges()``), or by ``undo()``.
  ///
  /// Misuse that Foundation answers with an `NSInternalInconsistencyException` (closing a group that is not
  /// open, ``undo()`` with nested groups open, registering with no group open and ``groupsByEvent`` off) stops
  /// the program with a message, as the engine's other programmer errors do.
  ///
  /// Not `Sendable`, as Foundation's is not (Apple's SDKs make it `@MainActor`): use it on one queue, the
  /// queue of the context that uses it.
  open class UndoManager: NSObject {
    /// One registered operation, or a closed nested group.
    private enum Entry {
      case action(target: Target, handler: (AnyObject) -> Void)
      case group(Group)
    }

    /// The target of an operation, held weakly (Foundation holds it unowned): an operation whose target
    /// is gone is skipped.
    private struct Target {
      weak var object: AnyObject?
      let identity: ObjectIdentifier
    }

    private final class Group {
      var entries: [Entry] = []
      var actionName = ""
      /// Opened by ``registerUndo(withTarget:handler:)`` because no group was open (``groupsByEvent``).
      var openedByEvent = false

      var isEmpty: Bool {
        entries.allSatisfy { entry in
          if case .group(let nested) = entry { return nested.isEmpty }
          return false
        }
      }

      func removeAll(target: ObjectIdentifier) {
        entries.removeAll { entry in
          if case .action(let candidate, _) = entry { return candidate.identity == target }
          return false
        }
        for case .group(let nested) in entries { nested.removeAll(target: target) }
      }
    }

    private enum Mode {
      case normal, undoing, redoing
    }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    /// The open groups, outermost first.
    private var openGroups: [Group] = []
    private var mode = Mode.normal
    private var disabledCount = 0

    /// Makes an undo manager with nothing to undo.
    public override init() {
      super.init()
    }

    // MARK: - Settings

    /// Whether registering an operation while no group is open opens one (default `true`). See the class's
    /// description for when such a group closes here. With `false`, open a group with
    /// ``beginUndoGrouping()`` before changing anything.
    open var groupsByEvent = true

    /// The most top-level groups kept for ``undo()``; the oldest go first. `0` (the default) keeps them all.
    open var levelsOfUndo = 0 {
      didSet { trimUndoStack() }
    }

    /// How many groups are open (groups of redo operations while ``undo()`` runs); `0` when none is.
    open var groupingLevel: Int { openGroups.count }

    // MARK: - Registering

    /// Registers `handler` to undo an operation on `target`. When it runs during ``undo()``, what it
    /// registers goes to the redo stack; during ``redo()``, to the undo stack.
    ///
    /// The target is held weakly: when it is gone, the operation is skipped.
    open func registerUndo<TargetType: AnyObject>(withTarget target: TargetType, handler: @escaping (TargetType) -> Void) {
      guard isUndoRegistrationEnabled else { return }
      if openGroups.isEmpty {
        requireCorrectUse(
          groupsByEvent,
          "ObjectGraph: UndoManager.registerUndo(withTarget:handler:) was called with no undo group open and groupsByEvent off. Call beginUndoGrouping() first (and endUndoGrouping() after), or leave groupsByEvent on."
        )
        let group = Group()
        group.openedByEvent = true
        openGroups.append(group)
        post(.NSUndoManagerDidOpenUndoGroup)
      }
      let entry = Entry.action(target: Target(object: target, identity: ObjectIdentifier(target))) { object in
        if let typed = object as? TargetType { handler(typed) }
      }
      openGroups[openGroups.count - 1].entries.append(entry)
      // A new operation makes what was undone before impossible to redo.
      if mode == .normal { redoStack.removeAll() }
    }

    /// Stops registering operations until ``enableUndoRegistration()``; calls nest.
    open func disableUndoRegistration() {
      disabledCount += 1
    }

    /// Starts registering operations again after ``disableUndoRegistration()``.
    open func enableUndoRegistration() {
      requireCorrectUse(
        disabledCount > 0,
        "ObjectGraph: UndoManager.enableUndoRegistration() was called without a matching disableUndoRegistration().")
      disabledCount -= 1
    }

    /// Whether operations are registered (no ``disableUndoRegistration()`` in effect).
    open var isUndoRegistrationEnabled: Bool { disabledCount == 0 }

    // MARK: - Groups

    /// Opens a group: what is registered until the matching ``endUndoGrouping()`` is undone as one.
    open func beginUndoGrouping() {
      if mode == .normal { post(.NSUndoManagerCheckpoint) }
      openGroups.append(Group())
      post(.NSUndoManagerDidOpenUndoGroup)
    }

    /// Closes the innermost open group. A closed top-level group goes on the undo stack (on the redo stack
    /// while ``undo()`` runs), unless nothing was registered in it.
    open func endUndoGrouping() {
      requireCorrectUse(
        !openGroups.isEmpty, "ObjectGraph: UndoManager.endUndoGrouping() was called with no undo group open (groupingLevel is 0).")
      post(.NSUndoManagerCheckpoint)
      post(.NSUndoManagerWillCloseUndoGroup)
      let group = openGroups.removeLast()
      if let outer = openGroups.last {
        outer.entries.append(.group(group))
      } else if !group.isEmpty {
        if mode == .undoing {
          redoStack.append(group)
        } else {
          undoStack.append(group)
          trimUndoStack()
        }
      }
      post(.NSUndoManagerDidCloseUndoGroup)
    }

    /// Closes the top-level group a registration opened by event, if that is the only group open. The engine
    /// calls it at the end of each event of a context that uses this undo manager.
    func endEventGroup() {
      guard mode == .normal, openGroups.count == 1, openGroups[0].openedByEvent else { return }
      endUndoGrouping()
    }

    // MARK: - Undoing and redoing

    /// Whether there is a group to undo (an open top-level group with operations counts).
    open var canUndo: Bool {
      !undoStack.isEmpty || (openGroups.count == 1 && !openGroups[0].isEmpty)
    }

    /// Whether there is a group to redo.
    open var canRedo: Bool { !redoStack.isEmpty }

    /// Whether ``undo()`` (or ``undoNestedGroup()``) is running.
    open var isUndoing: Bool { mode == .undoing }

    /// Whether ``redo()`` is running.
    open var isRedoing: Bool { mode == .redoing }

    /// Closes the top-level group if one is open, then undoes the last group (``undoNestedGroup()``),
    /// recording what it does as one group of ``redo()``. Stops the program when nested groups are open.
    open func undo() {
      if openGroups.count == 1 { endUndoGrouping() }
      requireCorrectUse(
        openGroups.isEmpty,
        "ObjectGraph: UndoManager.undo() was called with \(openGroups.count) nested undo groups open. Close them with endUndoGrouping() first."
      )
      undoNestedGroup()
    }

    /// Undoes the last closed top-level group on the undo stack, recording its reverse as one group on the redo
    /// stack. (Foundation's also undoes the last group closed inside a group still open; here groups nested in
    /// an open group are undone with it, as a whole.)
    open func undoNestedGroup() {
      guard mode == .normal else { return }
      post(.NSUndoManagerCheckpoint)
      guard let group = undoStack.popLast() else { return }
      post(.NSUndoManagerWillUndoChange)
      run(group, as: .undoing)
      post(.NSUndoManagerDidUndoChange)
    }

    /// Redoes the last undone group, recording its reverse as one group on the undo stack. Closes the top-level
    /// group first if one is open (an operation in it leaves nothing to redo).
    open func redo() {
      if openGroups.count == 1 { endUndoGrouping() }
      requireCorrectUse(
        openGroups.isEmpty,
        "ObjectGraph: UndoManager.redo() was called with \(openGroups.count) nested undo groups open. Close them with endUndoGrouping() first."
      )
      guard mode == .normal else { return }
      post(.NSUndoManagerCheckpoint)
      guard let group = redoStack.popLast() else { return }
      post(.NSUndoManagerWillRedoChange)
      run(group, as: .redoing)
      post(.NSUndoManagerDidRedoChange)
    }

    /// Runs a group's operations, last registered first, inside a group that collects what they register.
    private func run(_ group: Group, as runMode: Mode) {
      mode = runMode
      let reverse = Group()
      reverse.actionName = group.actionName
      openGroups.append(reverse)
      perform(group)
      openGroups.removeLast()
      mode = .normal
      guard !reverse.isEmpty else { return }
      if runMode == .undoing {
        redoStack.append(reverse)
      } else {
        undoStack.append(reverse)
        trimUndoStack()
      }
    }

    private func perform(_ group: Group) {
      for entry in group.entries.reversed() {
        switch entry {
        case .action(let target, let handler):
          if let object = target.object { handler(object) }
        case .group(let nested):
          perform(nested)
        }
      }
    }

    // MARK: - Clearing

    /// Empties the undo and redo stacks (and forgets the operations of open groups).
    open func removeAllActions() {
      undoStack.removeAll()
      redoStack.removeAll()
      for group in openGroups { group.entries.removeAll() }
    }

    /// Removes every operation whose target is `target`, from both stacks and the open groups.
    open func removeAllActions(withTarget target: Any) {
      guard let object = target as AnyObject? else { return }
      let identity = ObjectIdentifier(object)
      for group in undoStack + redoStack + openGroups { group.removeAll(target: identity) }
      undoStack.removeAll { $0.isEmpty }
      redoStack.removeAll { $0.isEmpty }
    }

    // MARK: - Action names

    /// Names the innermost open group's action ("Typing", "Delete Note"), for an Undo menu item.
    open func setActionName(_ actionName: String) {
      openGroups.last?.actionName = actionName
    }

    /// The action name of the group ``undo()`` would undo (`""` when none is set).
    open var undoActionName: String {
      if openGroups.count == 1, !openGroups[0].isEmpty { return openGroups[0].actionName }
      return undoStack.last?.actionName ?? ""
    }

    /// The action name of the group ``redo()`` would redo (`""` when none is set).
    open var redoActionName: String { redoStack.last?.actionName ?? "" }

    private func trimUndoStack() {
      if levelsOfUndo > 0, undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
    }

    private func post(_ name: Notification.Name) {
      NotificationCenter.default.post(name: name, object: self)
    }
  }

  extension NSNotification.Name {
    /// Posted when an undo manager opens or closes a group, and before it undoes or redoes one (Foundation's
    /// `NSUndoManagerCheckpoint`). A context using the undo manager processes its pending changes then, as
    /// Core Data's does.
    public static let NSUndoManagerCheckpoint = Notification.Name("NSUndoManagerCheckpointNotification")
    /// Posted after an undo manager opens a group.
    public static let NSUndoManagerDidOpenUndoGroup = Notification.Name("NSUndoManagerDidOpenUndoGroupNotification")
    /// Posted before an undo manager closes a group.
    public static let NSUndoManagerWillCloseUndoGroup = Notification.Name("NSUndoManagerWillCloseUndoGroupNotification")
    /// Posted after an undo manager closes a group.
    public static let NSUndoManagerDidCloseUndoGroup = Notification.Name("NSUndoManagerDidCloseUndoGroupNotification")
    /// Posted before an undo manager undoes a group.
    public static let NSUndoManagerWillUndoChange = Notification.Name("NSUndoManagerWillUndoChangeNotification")
    /// Posted after an undo manager undoes a group.
    public static let NSUndoManagerDidUndoChange = Notification.Name("NSUndoManagerDidUndoChangeNotification")
    /// Posted before an undo manager redoes a group.
    public static let NSUndoManagerWillRedoChange = Notification.Name("NSUndoManagerWillRedoChangeNotification")
    /// Posted after an undo manager redoes a group.
    public static let NSUndoManagerDidRedoChange = Notification.Name("NSUndoManagerDidRedoChangeNotification")
  }
#endif
