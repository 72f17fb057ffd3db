import Foundation

/// A typed property of a ``ManagedObject`` subclass, read and written through the object's storage, as
/// `@NSManaged` properties are in Core Data.
///
/// ```swift
/// final class Note: ManagedObject {
///   @Managed var title: String?        // attribute "title"
///   @Managed var pinned: Bool          // non-optional: the attribute must have a default or be set
///   @Managed var notebook: Notebook?   // to-one relationship "notebook"
///   @Managed var tags: Set<Tag>        // to-many relationship "tags"
///   @Managed var steps: [Step]         // ordered to-many "steps" (or NSOrderedSet, as Xcode declares it)
/// }
/// ```
///
/// The property's name is the model key (without the wrapper's leading underscore). Reading a
/// non-optional property whose value is `nil`, or declaring a type the model does not store, stops the
/// program with a message naming the entity, the key and the types.
@propertyWrapper
public struct Managed<Value> {
  /// Never read: this stored property gives each wrapper its own offset in the object. Were the wrapper
  /// empty, every `@Managed` property of a class would sit at one offset, and their key paths would all
  /// describe (and hash as) the first of them.
  var key: String?

  /// Declares a managed property; the model key is the property's name.
  public init() {}

  /// Not used: `@Managed` reads and writes through the enclosing object (see the type's documentation).
  @available(*, unavailable, message: "@Managed only works on properties of ManagedObject subclasses")
  public var wrappedValue: Value {
    get { preconditionFailure("@Managed only works on properties of ManagedObject subclasses") }
    // swiftlint:disable:next unused_setter_value
    set { preconditionFailure("@Managed only works on properties of ManagedObject subclasses") }
  }

  /// Reads the property as the model stores it (the object's typed read, `value(forKey:)` without its
  /// `NSNumber`s) and writes it through the object's `setValue(_:forKey:)`.
  public static subscript<Object: ManagedObject>(
    _enclosingInstance object: Object,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
  ) -> Value {
    get {
      let key = Self.key(object, storageKeyPath)
      let raw = object.typedValue(forKey: key)
      if let value = raw as? Value { return value }
      if raw == nil, let empty = (nil as Any?) as? Value { return empty }
      // `Int` for an Integer 64 attribute, `Double` for a Float one...: numbers convert when exact, as
      // `@NSManaged` scalar properties bridge.
      if let raw, let numeric = Value.self as? any ManagedNumber.Type, let value = numeric.init(managedNumber: raw) as? Value {
        return value
      }
      if let set = raw as? Set<ManagedObject>, let empty = ManagedKeyNames.emptyCollection(Value.self), set.isEmpty {
        return empty
      }
      // An ordered to-many read as a typed array (`[Step]`).
      if let ordered = raw as? NSOrderedSet, let array = ordered.array as? Value { return array }
      preconditionFailure(
        "ObjectGraph: \(object.entity.name).\(key) holds \(raw.map { "\(type(of: $0))" } ?? "nil"), which the property's type \(Value.self) cannot hold. Make the property optional, give the attribute a default value, or declare the model's type."
      )
    }
    set {
      object.setValue(newValue, forKey: Self.key(object, storageKeyPath))
    }
  }

  private static func key<Object: ManagedObject>(_ object: Object, _ storage: ReferenceWritableKeyPath<Object, Self>) -> String {
    ManagedKeyNames.name(of: storage)
  }
}

/// Turns a wrapper's storage key path (`\Note._title`) into the model key (`title`).
enum ManagedKeyNames {
  /// Names already worked out. Describing a key path demangles type names, far too slow to repeat on
  /// every property access, and hashing a key path is not cheap either; the key path objects the compiler
  /// makes for a property are created once and reused, so the cache is keyed by their identity. Each entry
  /// keeps its key path alive, so an identity can never be reused by another key path.
  private static let byIdentity = Locked<[ObjectIdentifier: (keyPath: AnyKeyPath, name: String)]>([:])

  static func name(of keyPath: AnyKeyPath) -> String {
    let identity = ObjectIdentifier(keyPath)
    if let known = byIdentity.withLock({ $0[identity] }), known.keyPath === keyPath { return known.name }
    let text = "\(keyPath)"
    var name = text.split(separator: ".").last.map(String.init) ?? text
    if name.hasPrefix("_") { name.removeFirst() }
    byIdentity.withLock { cache in
      // Key paths are made once per property, so this stays small; the bound guards against a compiler
      // that would make a new key path object on every access.
      if cache.count < 4096 { cache[identity] = (keyPath, name) }
    }
    return name
  }

  static func emptyCollection<Value>(_ type: Value.Type) -> Value? {
    (Set<ManagedObject>() as Any) as? Value
  }
}
