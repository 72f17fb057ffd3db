import Foundation

/// One stage of a staged migration (Core Data's `NSMigrationStage`): the abstract base of
/// ``NSLightweightMigrationStage`` and ``NSCustomMigrationStage``, which an ``NSStagedMigrationManager``
/// runs in the order it is given them.
///
/// As in Core Data, do not make instances of this class: make one of its two subclasses.
///
/// `@unchecked Sendable`: the one mutable property, ``label``, is kept behind a lock; the subclasses keep
/// their own mutable state behind locks too (see each), and everything else is a `let` of a `Sendable` type.
public class NSMigrationStage: NSObject, @unchecked Sendable {
  private let labelState = Locked<String?>(nil)

  /// A description of what the stage is for, for messages and logs (Core Data's `label`); `nil` until set.
  public var label: String! {
    get { labelState.withLock { $0 } }
    set { labelState.withLock { $0 = newValue } }
  }

  /// Made by the subclasses only, as Core Data's stages are.
  override init() {
    super.init()
  }

  /// The stage as messages name it: its label, or its kind.
  var name: String {
    label.map { "stage '\($0)'" } ?? "\(Swift.type(of: self)) (no label)"
  }
}
