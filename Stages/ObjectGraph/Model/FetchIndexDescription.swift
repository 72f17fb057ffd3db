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
}
