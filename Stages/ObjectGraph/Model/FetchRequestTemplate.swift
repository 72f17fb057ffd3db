import Foundation

/// A fetch request template stored in an Xcode model: described; ObjectGraph does not instantiate
/// templates (use an ``NSFetchRequest`` with an `NSPredicate` instead).
public struct FetchRequestTemplate: Sendable {
  /// The template's name.
  public let name: String
  /// The entity it fetches.
  public let entityName: String
  /// Its predicate, in format-string form, as written in the model file.
  public let predicateFormat: String?
}
