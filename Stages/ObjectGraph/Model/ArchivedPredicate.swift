import Foundation

/// A predicate read from one of the engine's archives (a fetch index's partial-index predicate), kept as its
/// format: `Model/` cannot parse a predicate, and Linux's Foundation cannot archive one. `Fetch/` parses the
/// format when the predicate is run (`FetchPredicate(_:)`), as it parses a compiled model's validation predicates.
final class ArchivedPredicate: NSPredicate {
  /// The predicate's format, as archived.
  let format: String

  init(format: String) {
    self.format = format
    super.init(value: false)
  }

  required init?(coder: NSCoder) { nil }

  override var predicateFormat: String { format }
}
