import Foundation

/// Store classes of the app's own (Core Data's `registerStoreClass(_:forStoreType:)`): registering them, and
/// adding a store of a registered type ("Custom store classes" in Docs/ObjectGraph.md).
extension NSPersistentStoreCoordinator {
  /// Registers `storeClass`, a subclass of ``NSAtomicStore`` (or of ``NSPersistentStore``), as the class of
  /// stores of type `storeType` (Core Data's `registerStoreClass(_:forStoreType:)`); `nil` removes the type's
  /// registration. The registry is the process's, shared by every coordinator, and safe to use from any thread.
  ///
  /// ```swift
  /// NSPersistentStoreCoordinator.registerStoreClass(JSONStore.self, forStoreType: "JSONStore")
  /// try coordinator.addPersistentStore(ofType: "JSONStore", configurationName: nil, at: url)
  /// ```
  ///
  /// Registering a class that is not a subclass of `NSPersistentStore`, or one for a built-in type
  /// (`NSSQLiteStoreType`, `NSInMemoryStoreType`, `NSBinaryStoreType`), is a programmer error and stops the
  /// program with a message, as Core Data raises an exception.
  public static func registerStoreClass(_ storeClass: AnyClass?, forStoreType storeType: String) {
    let builtIn: Set<String> = [NSSQLiteStoreType, NSInMemoryStoreType, NSBinaryStoreType]
    requireCorrectUse(
      !builtIn.contains(storeType),
      "registerStoreClass(_:forStoreType:): '\(storeType)' is a built-in store type and keeps its own class. Register your class under a type string of your own."
    )
    guard let storeClass else {
      _ = NSPersistentStore.registeredClasses.withLock { $0.removeValue(forKey: storeType) }
      return
    }
    guard let persistentStoreClass = storeClass as? NSPersistentStore.Type else {
      programmerError(
        "registerStoreClass(_:forStoreType:): \(storeClass) is not a subclass of NSPersistentStore. Register a subclass of NSAtomicStore.")
    }
    NSPersistentStore.registeredClasses.withLock { $0[storeType] = persistentStoreClass }
  }

  /// The same, with the type as a ``NSPersistentStore/StoreType`` (Core Data's `registerStoreClass(_:type:)`).
  public static func registerStoreClass(_ storeClass: AnyClass?, type storeType: NSPersistentStore.StoreType) {
    registerStoreClass(storeClass, forStoreType: storeType.rawValue)
  }

  /// The store types a coordinator can add, with their classes (Core Data's `registeredStoreTypes`): the
  /// built-in types and those registered with ``registerStoreClass(_:forStoreType:)``.
  ///
  /// Each value stands for the class, as Core Data's `NSValue` wraps the class pointer. Linux's `NSValue`
  /// cannot hold a pointer (it has no `pointerValue`, and refuses the `^v` encoding), so the value is an
  /// `NSNumber` (an `NSValue` subclass) holding the class pointer's bits: compare it with
  /// `UInt(bitPattern: ObjectIdentifier(MyStore.self))`. The built-in types' class is `NSPersistentStore`
  /// itself (the engine has no subclass per type).
  public static var registeredStoreTypes: [String: NSValue] {
    var types: [String: NSValue] = [:]
    for builtIn in [NSSQLiteStoreType, NSInMemoryStoreType, NSBinaryStoreType] {
      types[builtIn] = value(wrapping: NSPersistentStore.self)
    }
    for (type, storeClass) in NSPersistentStore.registeredClasses.withLock({ $0 }) {
      types[type] = value(wrapping: storeClass)
    }
    return types
  }

  /// An `NSValue` (an `NSNumber`) holding a class pointer's bits.
  private static func value(wrapping storeClass: AnyClass) -> NSValue {
    NSNumber(value: UInt(bitPattern: ObjectIdentifier(storeClass)))
  }

  /// The class registered for `type`, when it is not a built-in type.
  static func registeredClass(for type: NSPersistentStore.StoreType) -> NSPersistentStore.Type? {
    guard type != .sqlite, type != .inMemory, type != .binary else { return nil }
    return NSPersistentStore.registeredClasses.withLock { $0[type.rawValue] }
  }

  /// Adds a store of a registered class, in Core Data's order: the class's initializer, `loadMetadata()`, the
  /// checks of its metadata (its type, its UUID, the model's version hashes), its contents (an atomic store's
  /// `load()`), then `didAdd(to:)`. A store refused on the way is not added.
  func addCustomStore(
    _ storeClass: NSPersistentStore.Type, type: NSPersistentStore.StoreType, configuration: String?, at url: URL?,
    options: StoreOptions
  ) throws -> NSPersistentStore {
    guard let url else {
      throw ObjectGraphError(
        .persistentStoreOpen, "A store of type '\(type.rawValue)' needs a URL: pass the file its class reads and writes.")
    }
    if options.persistentHistoryTracking {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "The '\(type.rawValue)' store at \(url.path) cannot record persistent history: Core Data records it in SQLite stores only. Add it without NSPersistentHistoryTrackingKey, or use a .sqlite store.",
        url: url)
    }
    let threadValues = Thread.current.threadDictionary
    threadValues[NSPersistentStore.typeBeingAddedKey] = type.rawValue
    let store = storeClass.init(
      persistentStoreCoordinator: self, configurationName: configuration, at: url, options: options.dictionary.value)
    threadValues[NSPersistentStore.typeBeingAddedKey] = nil
    if let problem = store.setupError { throw problem }
    try serialized {
      try store.loadMetadata()
      try store.checkCustomMetadata(type: type.rawValue)
      try store.loadContents()
    }
    stores.withLock { $0.append(store) }
    store.attach(to: self)
    if store.savesNeedObjects { objectSavingStores.add(1, ordering: .relaxed) }
    if store is any StoreRegistrationObserver { StoreRegistrationObservers.storesChanged() }
    gate.withLock { store.didAdd(to: self) }
    postStoreAdded(store)
    return store
  }
}
