import Foundation

extension NSPersistentStoreCoordinator {
  /// Adds the store a description describes (Core Data's `addPersistentStore(with:completionHandler:)`),
  /// calling `completionHandler` with the description and `nil` or the error.
  ///
  /// ```swift
  /// let description = NSPersistentStoreDescription(url: storeURL)
  /// description.shouldAddStoreAsynchronously = true
  /// coordinator.addPersistentStore(with: description) { description, error in
  ///   if let error { print("Could not add \(description): \(error)") }
  /// }
  /// ```
  ///
  /// With ``NSPersistentStoreDescription/shouldAddStoreAsynchronously`` the store is added on a background
  /// queue and the handler runs there; otherwise it is added before this call returns and the handler runs
  /// on the calling thread. The description's options are read as
  /// ``addPersistentStore(type:configuration:at:options:)`` reads a dictionary (a wrong-typed option is the
  /// error handed over); a store that needs migrating with ``NSPersistentStoreDescription/shouldMigrateStoreAutomatically``
  /// on looks for a mapping model beside the model's file first, then infers one, as Core Data does. An
  /// in-memory description's URL is ignored.
  ///
  /// The handler is not `@Sendable`, as Core Data's is not: a handler that records the error in a variable
  /// of the caller (`loadError = error`) compiles, as it does against Core Data. It runs on the calling
  /// thread unless the description asks for an asynchronous add; then it runs on a background queue, and
  /// what it touches must be safe there, as with Core Data.
  public func addPersistentStore(
    with storeDescription: NSPersistentStoreDescription,
    completionHandler: @escaping (NSPersistentStoreDescription, (any Error)?) -> Void
  ) {
    let url = storeDescription.type == NSInMemoryStoreType ? nil : storeDescription.url
    var options: StoreOptions
    do {
      options = try StoreOptions(dictionary: storeDescription.storeOptions)
    } catch {
      completionHandler(storeDescription, error)
      return
    }
    let type = NSPersistentStore.StoreType(rawValue: storeDescription.type)
    if options.migratePersistentStoresAutomatically, options.mappingModelMigration == nil {
      options.mappingModelMigration = .mappingModels()
    }
    if storeDescription.shouldAddStoreAsynchronously {
      let handler = AsynchronousAddHandler(completionHandler)
      addPersistentStore(type: type, configuration: storeDescription.configuration, at: url, parsed: .success(options)) {
        result in
        if case .failure(let error) = result {
          handler.call(storeDescription, error)
        } else {
          handler.call(storeDescription, nil)
        }
      }
    } else {
      do {
        try addPersistentStore(type: type, configuration: storeDescription.configuration, at: url, options: options)
        completionHandler(storeDescription, nil)
      } catch {
        completionHandler(storeDescription, error)
      }
    }
  }
}

/// A completion handler taken without `@Sendable`, as Core Data's signature takes it, carried to the background
/// queue of an asynchronous add.
///
/// `@unchecked Sendable`: the handler is called once, on that queue, and never on the caller's thread, so the
/// engine itself never runs it twice at once; what the handler captures is the caller's, who asked for the add
/// to be asynchronous (``NSPersistentStoreDescription/shouldAddStoreAsynchronously``), exactly as with Core Data,
/// whose Objective-C handler Swift imports without `@Sendable`.
private final class AsynchronousAddHandler: @unchecked Sendable {
  private let handler: (NSPersistentStoreDescription, (any Error)?) -> Void

  init(_ handler: @escaping (NSPersistentStoreDescription, (any Error)?) -> Void) {
    self.handler = handler
  }

  func call(_ description: NSPersistentStoreDescription, _ error: (any Error)?) {
    handler(description, error)
  }
}
