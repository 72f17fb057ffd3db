import Foundation

/// A fetch request template of a model, as read from a model file or set with
/// `NSManagedObjectModel.setFetchRequestTemplate(_:forName:)`: what the model keeps of it.
///
/// Apps use the model's ``NSManagedObjectModel/fetchRequestTemplate(forName:)`` and
/// ``NSManagedObjectModel/fetchRequestFromTemplate(withName:substitutionVariables:)``, which make an
/// `NSFetchRequest` of it; this description is the engine's addition, for tools that list a model's templates.
public struct FetchRequestTemplate: Sendable {
  /// The template's name.
  public let name: String
  /// The entity it fetches.
  public let entityName: String
  /// Its predicate, in format-string form, as written in the model file (`$VARIABLE`s included).
  public let predicateFormat: String?
  /// Xcode's `fetchLimit` (0: no limit).
  var fetchLimit = 0
  /// Xcode's `fetchBatchSize` (0: no batching).
  var fetchBatchSize = 0
  /// Xcode's `includeSubentities`.
  var includesSubentities = true
  /// Xcode's `includePropertyValues`.
  var includesPropertyValues = true
  /// Xcode's `includesPendingChanges`.
  var includesPendingChanges = true
  /// Xcode's `returnObjectsAsFaults`.
  var returnsObjectsAsFaults = true
  /// Xcode's `returnDistinctResults`.
  var returnsDistinctResults = false
  /// The rest of a template set in code (its parsed predicate, sort descriptors, offset, result type), kept
  /// by `Fetch/`, which makes requests of templates; `nil` for a template read from a file.
  var request: (any Sendable)?
}
