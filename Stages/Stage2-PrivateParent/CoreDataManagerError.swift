import Foundation

// Unchanged from stage 1 (Tests/DocsTests/StageCopyTests.swift checks it).
/// What can go wrong while ``CoreDataManager`` builds its stack, before ObjectGraph is involved.
///
/// Failures inside ObjectGraph (a store that cannot be added) reach the caller as Core Data's own `NSError`,
/// unchanged.
///
/// ```swift
/// do {
///   let context = try manager.mainContext
/// } catch let error as CoreDataManagerError {
///   print(error)  // says which model or folder, and what to do
/// }
/// ```
public enum CoreDataManagerError: Error, Sendable, Equatable, CustomStringConvertible {
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

  /// What happened and what to do about it.
  public var description: String {
    switch self {
    case .modelNotFound(let name, let bundle):
      return """
        No data model named '\(name)' in the bundle at \(bundle). Check the name given to \
        CoreDataManager(modelName:): it is the .xcdatamodeld file's name without the extension, and the \
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
    }
  }
}
// End of the part unchanged from stage 1.
