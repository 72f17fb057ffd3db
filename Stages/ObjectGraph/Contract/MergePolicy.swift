import Foundation

/// How a save resolves a conflict: a row this context changed was changed in the store (by another
/// context or coordinator) since this context read it. Detected with the row version `Z_OPT`.
public enum MergePolicy: Sendable, Hashable {
  /// Fail the save with error 133020 listing every conflicting object and key; nothing is written.
  case error
  /// Per property: the store's changes win; this context's changes to other properties are kept.
  case mergeByPropertyStoreTrump
  /// Per property: this context's changes win; the store's changes to other properties are kept.
  case mergeByPropertyObjectTrump
  /// This context's whole object replaces the row.
  case overwrite
  /// This context's changes to conflicting objects are dropped; they take the store's values.
  case rollback
}
