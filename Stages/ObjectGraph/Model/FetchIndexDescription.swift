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

  /// Makes a fetch index.
  /// - Parameters:
  ///   - name: the index's name, unique among the entity's indexes.
  ///   - elements: the indexed properties, most significant first.
  public init(name: String, elements: [NSFetchIndexElementDescription]) {
    self.name = name
    self.elements = elements
  }

  /// `byCreatedAt(createdAt desc)`.
  public var description: String {
    "\(name)(" + elements.map(\.description).joined(separator: ", ") + ")"
  }

  /// Equal when the names and elements are.
  public static func == (lhs: NSFetchIndexDescription, rhs: NSFetchIndexDescription) -> Bool {
    lhs.name == rhs.name && lhs.elements == rhs.elements
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
