import Foundation
import ObjectGraph

// Unchanged from stage 3 (Tests/DocsTests/StageCopyTests.swift checks it).
/// Why ``PersistenceController`` cannot give the app a store, as its callback reports it.
///
/// Every case leaves the store file exactly as it was. The app tells the user, and may offer to start
/// over with ``PersistenceController/startFresh(callback:)``, which keeps the old file under another name.
///
/// ```swift
/// let controller = PersistenceController { result in
///   switch result {
///   case .success:
///     showNotes()
///   case .failure(.storeNotLoaded(let cause)) where cause.code == NSMigrationMissingSourceModelError:
///     show("These notes were saved by a version of the app this one cannot read. Please update it.")
///   case .failure(let error):
///     show("Your notes cannot be opened: \(error)")
///   }
/// }
/// ```
public enum PersistenceControllerError: Error, Sendable, CustomStringConvertible {
  /// The bundle has no `<name>.xcdatamodeld`.
  ///
  /// - Parameters:
  ///   - name: the model name that was asked for.
  ///   - bundle: the path of the bundle that was searched.
  case modelNotFound(name: String, bundle: String)

  /// The model file is there but cannot be read (`NSManagedObjectModel(contentsOf:)` returned `nil`; why is
  /// logged, where Core Data logs it).
  ///
  /// - Parameter path: the model file.
  case modelUnreadable(path: String)

  /// The folder for the store does not exist and could not be created.
  ///
  /// - Parameters:
  ///   - path: the folder.
  ///   - reason: why creating it failed.
  case storeFolderUnavailable(path: String, reason: String)

  /// The coordinator refused the store, or its migration failed; the file is left exactly as it was.
  ///
  /// Core Data's error tells which, by its `code`: `NSPersistentStoreIncompatibleVersionHashError` (134100),
  /// the store needs a migration and automatic migration is off; `NSMigrationMissingSourceModelError` (134130),
  /// no model matches the store (not one of the app's versions, nor the copy the store keeps);
  /// `NSMigrationMissingMappingModelError` (134140), the change between the versions cannot be inferred;
  /// `NSMigrationError` (134110), a migration started and failed (a full disk, say);
  /// `NSPersistentStoreInvalidTypeError` (134000), the file is not a store; `NSPersistentStoreOpenError` (134080),
  /// the file or its folder cannot be opened or written.
  case storeNotLoaded(NSError)

  /// ``PersistenceController/startFresh(callback:)`` was called while the store was loading or after it
  /// had loaded: only a store that failed to load may be moved aside.
  ///
  /// - Parameter path: the store file.
  case storeInUse(path: String)

  /// ``PersistenceController/startFresh(callback:)`` could not rename a store file.
  ///
  /// - Parameters:
  ///   - path: the file that could not be renamed.
  ///   - reason: why.
  case storeNotMovedAside(path: String, reason: String)
  // End of the part unchanged from stage 3.

  /// A save the controller made on its own (after a worker's save, at a lifecycle moment, or a
  /// ``PersistenceController/saveChanges(completion:)`` without a completion) failed. It reaches the
  /// ``PersistenceController/delegate``. Nothing is lost: the changes stay in the context that failed to
  /// save, and the next save tries them again.
  ///
  /// Core Data's error says why, by its `code`: `NSManagedObjectMergeError` (133020), the rows were changed
  /// elsewhere since this stack read them; 1550 to 1680, a validation rule; `NSManagedObjectConstraintMergeError`
  /// (133021), a uniqueness constraint; SQLite's full disk or busy file otherwise (`NSSQLiteErrorDomain` in its
  /// `userInfo`).
  case saveFailed(NSError)

  /// Other processes' changes could not be taken from the store's history (see ``StoreSharing``): the
  /// history could not be read, or the bookmark of where this process got to could not be written
  /// (`HistoryBookmarks/` beside the store). The bookmark stays where it was: the next remote change, or
  /// the next ``PersistenceController/mergeHistory()``, reads the same transactions again (merging one
  /// twice refreshes its objects once more, and changes nothing else).
  case historyNotMerged(NSError)

  /// Core Data's error underneath, for ``storeNotLoaded(_:)``; `nil` for the
  /// others.
  public var underlyingError: NSError? {
    switch self {
    case .storeNotLoaded(let error), .saveFailed(let error), .historyNotMerged(let error): return error
    case .modelNotFound, .modelUnreadable, .storeFolderUnavailable, .storeInUse, .storeNotMovedAside: return nil
    }
  }

  /// What happened and what to do about it.
  public var description: String {
    switch self {
    case .modelNotFound(let name, let bundle):
      return """
        No data model named '\(name)' in the bundle at \(bundle). Check the name given to \
        PersistenceController(modelName:): it is the .xcdatamodeld file's name without the extension, and the \
        bundle must carry that file as a resource (in Package.swift: resources: [.copy("\(name).xcdatamodeld")]).
        """
    case .modelUnreadable(let path):
      return """
        The data model at \(path) cannot be read: NSManagedObjectModel(contentsOf:) returned nil, and the \
        reason is logged above it (standard error here, the console on an iPhone). Restore the model from \
        version control, or open it in Xcode and fix what the log names.
        """
    case .storeFolderUnavailable(let path, let reason):
      return """
        Cannot create the store folder \(path): \(reason). Pass a storeFolder this user can write to, or \
        move away whatever is in the way.
        """
    case .storeNotLoaded(let error):
      let file = (error.userInfo[NSFilePathErrorKey] as? String).map { " at \($0)" } ?? ""
      return """
        The store\(file) cannot be used, and was left exactly as it was. To go on without it, let the user \
        choose to start fresh (startFresh(callback:) keeps the old file under another name). The cause: \(error.localizedDescription)
        """
    case .storeInUse(let path):
      return """
        The store \(path) is loading or loaded, so it cannot be moved aside. Call startFresh(callback:) only \
        after the callback has reported a failure.
        """
    case .storeNotMovedAside(let path, let reason):
      return "Cannot move the store file \(path) aside: \(reason). Nothing new was loaded."
    case .saveFailed(let error):
      return """
        Changes could not be saved; they are kept, and the next save tries them again. Tell the user if it \
        keeps failing. The cause: \(error.localizedDescription)
        """
    case .historyNotMerged(let error):
      return """
        Other processes' changes could not be taken from the store's history: the history could not be read, \
        or the bookmark beside the store (HistoryBookmarks/) could not be written. The next remote change \
        tries again; check that the store's folder can be written. The cause: \(error.localizedDescription)
        """
    }
  }
}
