import Foundation

/// The weak link from a store to the coordinator it is added to, and from a permanent object ID to its store.
///
/// A store does not keep its coordinator alive (Core Data's `persistentStoreCoordinator` is weak), and an ID
/// keeps neither: it only names its store by number (``NSPersistentStore/number``). The stores added to a
/// coordinator are listed here by number, weakly, so that ``NSManagedObjectID/persistentStore`` can find them.
struct StoreAttachment {
  /// The coordinator, typed `AnyObject` because the store's layer sits below the coordinator's.
  weak var coordinator: AnyObject?
}

/// A store, weakly, in ``NSPersistentStore/attached``.
private struct WeakStore {
  weak var store: NSPersistentStore?
}

extension NSPersistentStore {
  /// The stores added to a coordinator and not removed, by store number, in the order they were added.
  private static let attached = Locked<[Int: [WeakStore]]>([:])

  /// Records that `coordinator` holds the store (called by the coordinator when it adds the store).
  func attach(to coordinator: AnyObject) {
    attachment.withLock { $0.coordinator = coordinator }
    Self.attached.withLock { table in
      var list = (table[number] ?? []).filter { $0.store != nil && $0.store !== self }
      list.append(WeakStore(store: self))
      table[number] = list
    }
  }

  /// Records that the store is no longer in a coordinator (removed, or replaced by a migrated store).
  func detachFromCoordinator() {
    attachment.withLock { $0.coordinator = nil }
    Self.attached.withLock { table in
      let list = (table[number] ?? []).filter { $0.store != nil && $0.store !== self }
      table[number] = list.isEmpty ? nil : list
    }
  }

  /// The coordinator the store is added to, untyped; `nil` before it is added and after it is removed.
  var attachedCoordinator: AnyObject? { attachment.withLock { $0.coordinator } }

  /// The store numbered `number` that is in a coordinator now: the first added, when several coordinators
  /// have the same file (their IDs are equal).
  static func attachedStore(numbered number: Int) -> NSPersistentStore? {
    attached.withLock { table in
      table[number]?.lazy.compactMap(\.store).first { $0.attachedCoordinator != nil }
    }
  }
}

extension NSManagedObjectID {
  /// The store that holds the object, for a permanent ID; `nil` for a temporary ID (the object is not saved
  /// yet), or once the store is removed from its coordinator (Core Data's `persistentStore`, a weak reference).
  ///
  /// When two coordinators have the same store file added, their objects' IDs are equal (they name the same
  /// rows), and this is the store of the coordinator that added the file first and still has it.
  public var persistentStore: NSPersistentStore? {
    guard case .permanent(let store, _, _) = key else { return nil }
    return NSPersistentStore.attachedStore(numbered: store)
  }
}
