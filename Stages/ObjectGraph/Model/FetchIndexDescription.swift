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
/// An index is a value: change an entity's indexes by setting ``NSEntityDescription/indexes`` again, which is
/// refused once the model is frozen, as every other description is. Indexes are a storage hint, not part of
/// the entity's shape, so they do not enter its ``NSEntityDescription/versionHash``: adding or removing one
/// needs no migration. The model checks, when it is made, that every element names a stored attribute or
/// to-one relationship of the entity (inherited ones included) and that no two indexes of an entity share a
/// name.
public struct NSFetchIndexDescription: Sendable, Equatable, CustomStringConvertible {
  /// The index's name, unique among the entity's indexes (Xcode's default is `by<Property>Index`).
  public var name: String
  /// The indexed properties, most significant first.
  public var elements: [NSFetchIndexElementDescription]
  /// The entity whose ``NSEntityDescription/indexes`` this was read from (Core Data's `entity`); `nil` for an
  /// index not read from an entity. Not part of the index's value: two indexes are equal without it.
  public internal(set) var entity: NSEntityDescription?
  /// The predicate in a box the index's value can carry across queues.
  private var partialPredicate: PartialIndexPredicate?

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
    get { partialPredicate?.predicate }
    set { partialPredicate = newValue.map(PartialIndexPredicate.init) }
  }

  /// The predicate's format, for equality and descriptions.
  var partialIndexFormat: String? { partialPredicate.map { $0.predicate.formatText } }

  /// Makes a fetch index.
  /// - Parameters:
  ///   - name: the index's name, unique among the entity's indexes.
  ///   - elements: the indexed properties, most significant first.
  public init(name: String, elements: [NSFetchIndexElementDescription]) {
    self.name = name
    self.elements = elements
  }

  /// `byCreatedAt(createdAt desc)`, with ` where <predicate>` for a partial index.
  public var description: String {
    "\(name)(" + elements.map(\.description).joined(separator: ", ") + ")"
      + (partialIndexFormat.map { " where \($0)" } ?? "")
  }

  /// Equal when the names, the elements and the partial index predicates (by their formats) are.
  public static func == (lhs: NSFetchIndexDescription, rhs: NSFetchIndexDescription) -> Bool {
    lhs.name == rhs.name && lhs.elements == rhs.elements && lhs.partialIndexFormat == rhs.partialIndexFormat
  }

  /// The index as an entity hands it out: with its ``entity``, and each element with its property (looked up
  /// in `properties`, the entity's by name) and its index.
  func resolved(in entity: NSEntityDescription, properties: [String: NSPropertyDescription]) -> NSFetchIndexDescription {
    var index = self
    index.entity = entity
    var bare = self
    bare.entity = entity
    bare.elements = elements.map { $0.detached }
    index.elements = elements.map { element in
      var element = element.detached
      element.indexDescription = bare
      element.property = element.property ?? properties[element.propertyName]
      return element
    }
    return index
  }

  /// The index as an entity keeps it: without the references ``resolved(in:)`` adds.
  var detached: NSFetchIndexDescription {
    var index = self
    index.entity = nil
    index.elements = elements.map(\.detached)
    return index
  }
}

/// A partial index's predicate, held so the index stays a `Sendable` value.
// @unchecked Sendable: the box's one property is a `let`, and the predicate it holds is only read (its
// format, or handed back to the app); Foundation's predicates and the engine's do not change once made.
final class PartialIndexPredicate: @unchecked Sendable {
  let predicate: NSPredicate

  init(_ predicate: NSPredicate) {
    self.predicate = predicate
  }
}
