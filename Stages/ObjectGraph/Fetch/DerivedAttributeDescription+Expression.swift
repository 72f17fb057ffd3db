import Foundation

extension NSDerivedAttributeDescription {
  /// What the attribute is computed from: a key path (`notebook.name`), a collection operator over a to-many
  /// (`notes.@count`, `notes.@sum.wordCount`), `lowercase:(title)`, `uppercase:(title)`, `canonical:(title)`,
  /// or `now()`; `nil` until set (an attribute marked derived without an expression, which the engine cannot
  /// compute: its save fails with `modelInvalid`).
  ///
  /// The attribute keeps the expression as the predicate language writes it, so the expression read back is
  /// one parsed from that text: equal to the one set (expressions compare by their text), not the same
  /// instance. An expression the engine cannot compute is accepted here, as Xcode accepts it, and refused by the
  /// first save that needs it.
  public var derivationExpression: NSExpression? {
    get {
      guard let format = derivationFormat, !format.isEmpty else { return nil }
      return NSExpression(format: format)
    }
    set { derivationFormat = newValue.map(\.description) }
  }
}
