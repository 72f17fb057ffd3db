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
  public func addPersistentStore(
    with storeDescription: NSPersistentStoreDescription,
    completionHandler: @escaping @Sendable (NSPersistentStoreDescription, (any Error)?) -> Void
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
      addPersistentStore(type: type, configuration: storeDescription.configuration, at: url, parsed: .success(options)) {
        result in
        if case .failure(let error) = result {
          completionHandler(storeDescription, error)
        } else {
          completionHandler(storeDescription, nil)
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
