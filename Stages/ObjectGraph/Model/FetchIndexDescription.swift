import Foundation

/// A fetch index of an entity: a named, ordered list of the
/// entity's properties that a store may index so that fetches filtering or sorting by them are fast.
///
/// ```swift
/// note.indexes = [
///   NSFetchIndexDescription(name: "byCreatedAt", elements: [
///     NSFetchIndexElementDescription(propertyName: "createdAt", isAscending: false)
///   ])
/// ]
/// ```
///
/// As in Core Data, an index is an object: the entity keeps the indexes it is given (an index that already
/// belongs to another entity, or to a model in use, is copied), and each knows its ``entity``. Changing one
/// is refused once its model is in use by a coordinator, as changing every other description is. Indexes are
/// a storage hint, not part of the entity's shape, so they do not enter its
/// ``NSEntityDescription/versionHash``: adding or removing one needs no migration. The model checks, when it
/// is made, that every element names a stored attribute or to-one relationship of the entity (inherited ones
/// included) and that no two indexes of an entity share a name.
public final class NSFetchIndexDescription: NSObject, NSCopying, @unchecked Sendable {
  // @unchecked Sendable: every stored property is a `let`; the index's settings live in `state`, a `Frozen`
  // box that reads and writes them under its lock and refuses writes once the model is frozen.
  struct State {
    var name: String
    var elements: [NSFetchIndexElementDescription]
    var partialIndexPredicate: NSPredicate?
    weak var entity: NSEntityDescription?
  }

  let state: Frozen<State>

  /// Makes a fetch index (Core Data's `init(name:elements:)`).
  /// - Parameters:
  ///   - name: the index's name, unique among the entity's indexes.
  ///   - elements: the indexed properties, most significant first; `nil` for none yet.
  public init(name: String, elements: [NSFetchIndexElementDescription]?) {
    state = Frozen(State(name: name, elements: []))
    super.init()
    self.elements = elements ?? []
  }

  /// The index's name, unique among the entity's indexes (Xcode's default is `by<Property>Index`).
  public var name: String {
    get { state.read(\.name) }
    set { state.write(\.name, newValue, what: "fetch index \(name)") }
  }

  /// The indexed properties, most significant first. Each element given belongs to this index from then
  /// on (its ``NSFetchIndexElementDescription/indexDescription``); one that belongs to another index, or to
  /// a model in use, is copied.
  public var elements: [NSFetchIndexElementDescription] {
    get { state.read(\.elements) }
    set {
      let adopted = newValue.map { $0.adopted(by: self) }
      state.write(\.elements, adopted, what: "fetch index \(name)")
    }
  }

  /// The entity whose ``NSEntityDescription/indexes`` hold this index (Core Data's `entity`); `nil` for an
  /// index not given to an entity. Not part of the index's value: two indexes are equal without it.
  public var entity: NSEntityDescription? { state.read(\.entity) }

  /// The rows the index covers, for a partial index (Core Data's `partialIndexPredicate`); `nil`, the default,
  /// indexes every row.
  ///
  /// A SQLite store writes it as the index's `WHERE` clause (`CREATE INDEX Z_Note_byTitle ON ZNOTE (ZTITLE
  /// COLLATE BINARY ASC) WHERE ZTITLE IS NOT NULL`), and SQLite uses the index for a fetch whose predicate
  /// implies that clause. As SQLite asks of a partial index, it may compare the entity's own attributes with
  /// constants only: no relationships, subqueries, variables or string options (`[cd]`, `[l]`), which need the
  /// engine's own SQL functions that other programs reading the store do not have. Opening a store with a
  /// model whose predicate goes further fails (`persistentStoreOpen`), naming the index. Changing it changes
  /// the index, without a migration, as any fetch index change. The predicate is kept as given: predicates
  /// do not change once made.
  public var partialIndexPredicate: NSPredicate? {
    get { state.read(\.partialIndexPredicate) }
    set { state.write(\.partialIndexPredicate, newValue, what: "fetch index \(name)") }
  }

  /// The predicate's format, for equality and descriptions.
  var partialIndexFormat: String? { partialIndexPredicate?.formatText }

  /// `byCreatedAt(createdAt desc)`, with ` where <predicate>` for a partial index.
  public override var description: String {
    "\(name)(" + elements.map(\.description).joined(separator: ", ") + ")"
      + (partialIndexFormat.map { " where \($0)" } ?? "")
  }

  /// Equal when the names, the elements and the partial index predicates (by their formats) are; the
  /// ``entity`` is not compared.
  public override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? NSFetchIndexDescription else { return false }
    if other === self { return true }
    return name == other.name && elements == other.elements && partialIndexFormat == other.partialIndexFormat
  }

  /// A hash of the name, consistent with ``isEqual(_:)``.
  public override var hash: Int { name.hashValue }

  /// A new index with the same name, copies of the elements and the same partial index predicate, belonging
  /// to no entity (Core Data's `NSCopying`).
  public func copy(with zone: NSZone? = nil) -> Any { detachedCopy() }

  /// This index, now belonging to `entity`; a copy when it belongs to another entity or is frozen.
  func adopted(by entity: NSEntityDescription) -> NSFetchIndexDescription {
    let owner = state.read(\.entity)
    let index = state.isFrozen || (owner != nil && owner !== entity) ? detachedCopy() : self
    index.state.mutate(what: "fetch index \(index.name)") { $0.entity = entity }
    return index
  }

  /// A copy that belongs to no entity.
  func detachedCopy() -> NSFetchIndexDescription {
    let copy = NSFetchIndexDescription(name: name, elements: elements.map { $0.detachedCopy() })
    copy.partialIndexPredicate = partialIndexPredicate
    return copy
  }

  /// Freezes the index and its elements: called when its entity's model is frozen.
  func freeze() {
    state.freeze()
    for element in elements { element.state.freeze() }
  }
}
