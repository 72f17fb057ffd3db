import Foundation

/// A named expression to fetch as one entry of a dictionary result (Core Data's
/// `NSExpressionDescription`). Mutable, like the request it goes into.
public final class NSExpressionDescription {
  /// The key of the result in each dictionary, and the name an ``NSFetchRequest/havingPredicate`` uses for
  /// it (as `$name`).
  public var name: String
  /// What to compute.
  public var expression: NSExpression?
  /// The type of the result: the value is read as an attribute of this type is (a sum of doubles read as
  /// `.integer64AttributeType` is truncated). For `.undefinedAttributeType` (the default) it is the expression's
  /// own: the key path's attribute's (and for `min:`, `max:`, `sum:` of one), an integer for `count:` and for
  /// `+ - *` of integers, a double for `average:`, `/` and the numeric functions, a string for `lowercase:`, a
  /// date for `now`.
  public var expressionResultType: NSAttributeType
  /// The type of the result in the newer spelling (`.integer64`, …): the same value as
  /// ``expressionResultType``, which setting either changes.
  public var resultType: NSAttributeDescription.AttributeType {
    get { NSAttributeDescription.AttributeType(rawValue: expressionResultType) }
    set { expressionResultType = newValue.rawValue }
  }

  /// Makes a description, to be filled in property by property as in Core Data.
  public init(
    name: String = "", expression: NSExpression? = nil, expressionResultType: NSAttributeType = .undefinedAttributeType
  ) {
    self.name = name
    self.expression = expression
    self.expressionResultType = expressionResultType
  }
}
