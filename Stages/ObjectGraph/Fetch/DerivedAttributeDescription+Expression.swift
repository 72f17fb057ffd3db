import Foundation

extension NSDerivedAttributeDescription {
  /// What the attribute is computed from: a key path (`notebook.name`), a collection operator over a to-many
  /// (`notes.@count`, `notes.@sum.wordCount`, `count:(notes)`), or a function expression of `NSExpression`'s
  /// predefined functions of those, nested (`price * quantity`, `abs:(balance)`, `lowercase:(title)`, `now()`),
  /// and Core Data's `canonical:(title)`; `nil` until set (an attribute marked derived without an expression,
  /// which the engine cannot compute: its save fails with `modelInvalid`).
  ///
  /// The attribute keeps the expression as `NSExpression` prints it, so the expression read back is one parsed
  /// from that text: equal to the one set (expressions compare by their text), not the same instance, except
  /// that arithmetic made with `init(forFunction:arguments:)` reads back written as `price * quantity`. An
  /// expression the engine cannot compute, or reading a key path its entity cannot reach, is accepted here, as
  /// Xcode accepts it, and refused when a store is added for the entity (`modelInvalid`, naming it).
  public var derivationExpression: NSExpression? {
    get {
      guard let format = derivationFormat, !format.isEmpty else { return nil }
      return NSExpression(format: format)
    }
    set { derivationFormat = newValue.map(\.description) }
  }
}
