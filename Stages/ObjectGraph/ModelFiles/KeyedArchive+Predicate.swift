import Foundation

/// Writing an archived `NSPredicate` back as the format string it was made from, for the predicates a compiled
/// model holds (validation predicates, the predicates of fetch request templates and fetched properties).
///
/// The keys read, by archived class (the names Foundation's `encodeWithCoder:` writes):
/// - `NSComparisonPredicate`: `NSLeftExpression`, `NSRightExpression` (expressions, as
///   ``expressionFormat(_:_:)`` reads them) and `NSPredicateOperator`, an object with `NSOperatorType`
///   (`NSComparisonPredicate.Operator`'s raw values), `NSModifier` (0 direct, 1 `ALL`, 2 `ANY`), `NSOptions`
///   (1 `[c]`, 2 `[d]`, 4 `[n]`) and `NSNegate` (an equality operator that means `!=`);
/// - `NSCompoundPredicate`: `NSCompoundPredicateType` (0 `NOT`, 1 `AND`, 2 `OR`) and `NSSubpredicates`;
/// - `NSTruePredicate` and `NSFalsePredicate`: `TRUEPREDICATE`, `FALSEPREDICATE`.
///
/// Any other form (a custom selector, a block, a kind of predicate the list does not name) is written as
/// `<NSPredicate …>`, text no parser accepts, so whoever runs the predicate refuses it, naming it.
extension KeyedArchive {
  /// The predicate's format string; `nil` for `$null`.
  func predicateFormat(_ value: PropertyListValue?, _ what: String) throws -> String? {
    var steps = 0
    return try predicateFormat(value, what, depth: 0, steps: &steps)
  }

  private func predicateFormat(_ value: PropertyListValue?, _ what: String, depth: Int, steps: inout Int) throws -> String? {
    try countNode(what, depth: depth, steps: &steps)
    guard let archived = try object(value, what) else { return nil }
    guard archived.isKind(of: "NSPredicate") else {
      throw Malformed(reason: "\(what) is an object of class \(archived.className), not an NSPredicate")
    }
    let fields = archived.fields
    if archived.isKind(of: "NSTruePredicate") { return "TRUEPREDICATE" }
    if archived.isKind(of: "NSFalsePredicate") { return "FALSEPREDICATE" }
    if archived.isKind(of: "NSCompoundPredicate") {
      var parts: [String] = []
      for member in try members(fields["NSSubpredicates"], "the subpredicates of \(what)") {
        parts.append("(" + (try predicateFormat(member, what, depth: depth + 1, steps: &steps) ?? "TRUEPREDICATE") + ")")
      }
      switch fields["NSCompoundPredicateType"]?.integer ?? -1 {
      case 0 where parts.count == 1: return "NOT " + parts[0]
      case 1: return parts.isEmpty ? "TRUEPREDICATE" : parts.joined(separator: " AND ")
      case 2: return parts.isEmpty ? "FALSEPREDICATE" : parts.joined(separator: " OR ")
      case let other: return "<NSPredicate: compound type \(other) of \(parts.count) subpredicate(s)>"
      }
    }
    guard archived.isKind(of: "NSComparisonPredicate") else { return "<NSPredicate (\(archived.className))>" }
    guard let operation = try object(fields["NSPredicateOperator"], "the operator of \(what)") else {
      return "<NSPredicate: a comparison without an operator>"
    }
    guard let symbol = Self.operatorSymbol(operation) else {
      return "<NSPredicate: operator \(operation.fields["NSOperatorType"]?.integer ?? -1) (\(operation.className))>"
    }
    let lhs = try expressionFormat(fields["NSLeftExpression"], "the left side of \(what)", depth: depth + 1, steps: &steps)
    let rhs = try expressionFormat(fields["NSRightExpression"], "the right side of \(what)", depth: depth + 1, steps: &steps)
    let modifier =
      switch operation.fields["NSModifier"]?.integer ?? 0 {
      case 1: "ALL "
      case 2: "ANY "
      default: ""
      }
    return modifier + (lhs ?? "nil") + " " + symbol + " " + (rhs ?? "nil")
  }

  /// The operator of an archived `NSPredicateOperator` with its options (`BEGINSWITH[cd]`); `nil` for one the
  /// predicate language cannot write (a custom selector).
  private static func operatorSymbol(_ operation: Object) -> String? {
    let fields = operation.fields
    let negated = fields["NSNegate"]?.bool ?? false
    let base: String
    switch fields["NSOperatorType"]?.integer ?? -1 {
    case 0: base = "<"
    case 1: base = "<="
    case 2: base = ">"
    case 3: base = ">="
    case 4: base = negated ? "!=" : "=="
    case 5: base = "!="
    case 6: base = "MATCHES"
    case 7: base = "LIKE"
    case 8: base = "BEGINSWITH"
    case 9: base = "ENDSWITH"
    case 10: base = "IN"
    case 99: base = "CONTAINS"
    case 100: base = "BETWEEN"
    default: return nil
    }
    let options = fields["NSOptions"]?.integer ?? 0
    let flags = (options & 1 != 0 ? "c" : "") + (options & 2 != 0 ? "d" : "") + (options & 4 != 0 ? "n" : "")
    return flags.isEmpty ? base : base + "[" + flags + "]"
  }
}
