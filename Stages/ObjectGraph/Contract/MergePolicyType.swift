import Foundation

/// The five ways a save can settle a conflict (with its raw values), as an ``NSMergePolicy`` is made
/// with (`NSMergePolicy(merge:)`) and as the store applies them. A conflict is a row this context changed that was
/// changed in the store (by another context or coordinator) since this context read it, detected with the row
/// version `Z_OPT`, or a uniqueness constraint that objects being saved would break.
public enum NSMergePolicyType: UInt, Sendable, Hashable {
  /// Fail the save with error 133020 (or 133021 for a uniqueness constraint) listing every conflict; nothing is
  /// written.
  case errorMergePolicyType = 0
  /// Per property: the store's changes win; this context's changes to other properties are kept.
  case mergeByPropertyStoreTrumpMergePolicyType = 1
  /// Per property: this context's changes win; the store's changes to other properties are kept.
  case mergeByPropertyObjectTrumpMergePolicyType = 2
  /// This context's whole object replaces the row.
  case overwriteMergePolicyType = 3
  /// This context's changes to conflicting objects are dropped; they take the store's values.
  case rollbackMergePolicyType = 4
}

extension NSMergePolicyType: CustomStringConvertible {
  /// The policy's short name, as ``NSMergePolicy``'s static members spell it: `error`,
  /// `mergeByPropertyStoreTrump`, `mergeByPropertyObjectTrump`, `overwrite`, `rollback`.
  public var description: String {
    switch self {
    case .errorMergePolicyType: "error"
    case .mergeByPropertyStoreTrumpMergePolicyType: "mergeByPropertyStoreTrump"
    case .mergeByPropertyObjectTrumpMergePolicyType: "mergeByPropertyObjectTrump"
    case .overwriteMergePolicyType: "overwrite"
    case .rollbackMergePolicyType: "rollback"
    }
  }
}
