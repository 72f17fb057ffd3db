import Foundation
import Synchronization

/// A typed property of an ``NSManagedObject`` subclass, read and written through the object's storage, as
/// `@NSManaged` properties are in Core Data.
///
/// ```swift
/// final class Note: NSManagedObject {
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
  /// describe (and hash as) the first of them. One byte, with nothing to release: an object made by a
  /// fetch initialises and destroys it for every `@Managed` property.
  @usableFromInline var offsetMarker: UInt8 = 0

  /// Declares a managed property; the model key is the property's name.
  ///
  /// Inlinable: a subclass's initialiser, which every object a fetch makes runs, then sets its wrappers
  /// with no call into the engine and no generic type looked up at run time.
  @inlinable public init() {}

  /// Not used: `@Managed` reads and writes through the enclosing object (see the type's documentation).
  @available(*, unavailable, message: "@Managed only works on properties of NSManagedObject subclasses")
  public var wrappedValue: Value {
    get { programmerError("@Managed only works on properties of NSManagedObject subclasses") }
    // swiftlint:disable:next unused_setter_value
    set { programmerError("@Managed only works on properties of NSManagedObject subclasses") }
  }

  /// Reads the property as the model stores it (the object's typed read, `value(forKey:)` without its
  /// `NSNumber`s) and writes it through the object's `setValue(_:forKey:)`.
  ///
  /// Inlinable, so that a subclass's module reads with its own concrete types: the common case (the
  /// stored value already has the property's type) is one cast, with no generic type looked up at run time.
  @inlinable
  public static subscript<Object: NSManagedObject>(
    _enclosingInstance object: Object,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
  ) -> Value {
    get {
      // The common case, a plain attribute read as the type it is stored as: specialised in the caller's
      // module, each `as?` below is decided at compile time, and no `Any` is made. The slot comes from a
      // cache kept with the key path's name: no string is hashed or compared.
      switch object.plainAttributeValue(for: storageKeyPath) {
      case .string(let value)?: if let value = value as? Value { return value }
      case .int64(let value)?: if let value = value as? Value { return value }
      case .int32(let value)?: if let value = value as? Value { return value }
      case .int16(let value)?: if let value = value as? Value { return value }
      case .double(let value)?: if let value = value as? Value { return value }
      case .float(let value)?: if let value = value as? Value { return value }
      case .bool(let value)?: if let value = value as? Value { return value }
      case .date(let value)?: if let value = value as? Value { return value }
      case .data(let value)?: if let value = value as? Value { return value }
      default: break
      }
      let key = ManagedKeyNames.name(of: storageKeyPath)
      let raw = object.typedValue(forKey: key)
      if let value = raw as? Value { return value }
      return converted(raw, object: object, key: key)
    }
    set {
      object.setValue(newValue, forKey: ManagedKeyNames.name(of: storageKeyPath))
    }
  }

  /// The rarer reads: `nil` for an optional, a number of another width, an empty or ordered to-many.
  @usableFromInline
  static func converted(_ raw: Any?, object: NSManagedObject, key: String) -> Value {
    if raw == nil, let empty = (nil as Any?) as? Value { return empty }
    // `Int` for an Integer 64 attribute, `Double` for a Float one...: numbers convert when exact, as
    // `@NSManaged` scalar properties bridge.
    if let raw, let numeric = Value.self as? any ManagedNumber.Type, let value = numeric.init(managedNumber: raw) as? Value {
      return value
    }
    if let set = raw as? Set<NSManagedObject>, let empty = ManagedKeyNames.emptyCollection(Value.self), set.isEmpty {
      return empty
    }
    // An ordered to-many read as a typed array (`[Step]`).
    if let ordered = raw as? NSOrderedSet, let array = ordered.array as? Value { return array }
    programmerError(
      "ObjectGraph: \(object.entity.name).\(key) holds \(raw.map { "\(type(of: $0))" } ?? "nil"), which the property's type \(Value.self) cannot hold. Make the property optional, give the attribute a default value, or declare the model's type."
    )
  }
}

/// Turns a wrapper's storage key path (`\Note._title`) into the model key (`title`), and remembers the
/// property's slot.
@usableFromInline
enum ManagedKeyNames {
  /// What is known of one key path: its name, and its slot in the layout it was last read in.
  final class Entry: Sendable {
    let name: String
    /// ``EntityLayout/slotCacheEntry(of:)`` for the layout last read in: read and replaced without a lock
    /// (a stale entry names another layout's serial, and is looked up again).
    let slot = Atomic<UInt64>(0)

    init(name: String) { self.name = name }
  }

  /// Entries already made. Describing a key path demangles type names, far too slow to repeat on every
  /// property access, and hashing a key path is not cheap either; the key path objects the compiler makes
  /// for a property are created once and reused, so the table is keyed by their identity.
  ///
  /// Every `@Managed` read looks here, so reading takes no lock: the current table is immutable and
  /// published through an atomic reference. A new key path makes a new table (under `writer`'s lock),
  /// which replaces the current one; the tables replaced and their entries are never freed (a reader may
  /// still hold one), and the writer keeps every key path named alive, so an identity can never be reused
  /// by another key path. Tables are made once per property of the app's classes, so a few hundred in all.
  private static let current = Atomic<Unmanaged<EntryTable>?>(nil)
  private static let writer = Locked<(tables: [EntryTable], keptAlive: [AnyKeyPath], overflow: [String: Entry])>(
    ([], [], [:]))

  /// One immutable generation of the entries: open addressing on the key paths' addresses, at most half
  /// full, which finds an entry in a multiplication and a probe or two.
  private final class EntryTable: Sendable {
    /// Key path addresses (`0`: an empty place) and their entries, at the same positions. The entries are
    /// unmanaged (a probe retains nothing); `pairs` keeps them alive.
    let keys: [UInt]
    let entries: [Unmanaged<Entry>?]
    /// Every key path address and its entry, as the table was made from them.
    let pairs: [(UInt, Entry)]
    let shift: UInt
    var count: Int { pairs.count }

    init(_ pairs: [(UInt, Entry)]) {
      var capacity = 16
      while capacity < pairs.count * 2 { capacity *= 2 }
      shift = UInt(64 - capacity.trailingZeroBitCount)
      var keys = [UInt](repeating: 0, count: capacity)
      var entries = [Unmanaged<Entry>?](repeating: nil, count: capacity)
      for (key, entry) in pairs {
        var position = Self.home(key, shift)
        while keys[position] != 0 { position = (position + 1) & (capacity - 1) }
        keys[position] = key
        entries[position] = Unmanaged.passUnretained(entry)
      }
      self.keys = keys
      self.entries = entries
      self.pairs = pairs
    }

    @inline(__always)
    static func home(_ key: UInt, _ shift: UInt) -> Int { Int(truncatingIfNeeded: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(shift)) }

    /// The entry of a key path address, or `nil`.
    @inline(__always)
    func entry(_ key: UInt) -> Unmanaged<Entry>? {
      var position = Self.home(key, shift)
      while true {
        let found = keys[position]
        if found == key { return entries[position] }
        if found == 0 { return nil }
        position = (position + 1) & (keys.count - 1)
      }
    }

  }

  /// The entry of a wrapper's storage key path, made on first use. Entries are never freed, so the caller
  /// may use it without retaining it.
  static func entry(of keyPath: AnyKeyPath) -> Unmanaged<Entry> {
    let key = UInt(bitPattern: ObjectIdentifier(keyPath))
    if let table = current.load(ordering: .acquiring),
      let known = table._withUnsafeGuaranteedRef({ $0.entry(key) })
    {
      return known
    }
    let text = "\(keyPath)"
    var name = text.split(separator: ".").last.map(String.init) ?? text
    if name.hasPrefix("_") { name.removeFirst() }
    return writer.withLock { writer in
      let table = current.load(ordering: .acquiring)?.takeUnretainedValue()
      if let known = table?.entry(key) { return known }
      // The bound guards against a compiler that would make a new key path object on every access: past
      // it, entries are kept by name (one per property name, never freed), not by key path.
      guard (table?.count ?? 0) < 1024 else {
        if let known = writer.overflow[name] { return Unmanaged.passUnretained(known) }
        let entry = Entry(name: name)
        writer.overflow[name] = entry
        return Unmanaged.passUnretained(entry)
      }
      let entry = Entry(name: name)
      let next = EntryTable((table?.pairs ?? []) + [(key, entry)])
      writer.tables.append(next)
      writer.keptAlive.append(keyPath)
      current.store(Unmanaged.passUnretained(next), ordering: .releasing)
      return Unmanaged.passUnretained(entry)
    }
  }

  /// The model key a wrapper's storage key path names.
  @usableFromInline
  static func name(of keyPath: AnyKeyPath) -> String {
    entry(of: keyPath)._withUnsafeGuaranteedRef { $0.name }
  }

  static func emptyCollection<Value>(_ type: Value.Type) -> Value? {
    (Set<NSManagedObject>() as Any) as? Value
  }
}
