import Foundation

/// Something that names a column of a dictionary fetch: a property name or key path (`"title"`,
/// `"notebook.name"`), an ``NSAttributeDescription`` or ``NSRelationshipDescription`` (to-one), or an
/// ``NSExpressionDescription``. Core Data's `propertiesToFetch` takes the same mix.
public protocol FetchPropertySpecifier {
  /// What the column is.
  var fetchColumn: FetchColumn { get }
}
