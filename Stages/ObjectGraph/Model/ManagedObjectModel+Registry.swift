import Foundation

/// Which Swift class stands for which entity, for models loaded from Xcode files.
///
/// An Xcode model names a class per entity (`representedClassName`); Swift on Linux has no runtime
/// lookup by class name, so an app registers its subclasses once, before fetching:
///
/// ```swift
/// ManagedObjectModel.register(Note.self, forEntityName: "Note")
/// ```
extension ManagedObjectModel {
  private static let registry = Locked<[String: ManagedObject.Type]>([:])

  /// Makes instances of `entityName` be created as `type`.
  public static func register(_ type: ManagedObject.Type, forEntityName entityName: String) {
    registry.withLock { $0["entity:" + entityName] = type }
  }

  /// Makes instances of every entity whose `representedClassName` is the type's name be created as `type`.
  public static func register(_ type: ManagedObject.Type) {
    registry.withLock { $0["class:" + String(describing: type)] = type }
  }

  static func registeredClass(entityName: String, className: String?) -> ManagedObject.Type? {
    registry.withLock { table in
      if let type = table["entity:" + entityName] { return type }
      guard let className else { return nil }
      let bare = className.split(separator: ".").last.map(String.init) ?? className
      return table["class:" + className] ?? table["class:" + bare]
    }
  }
}
