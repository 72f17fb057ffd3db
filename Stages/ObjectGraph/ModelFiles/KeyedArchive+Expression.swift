import Foundation

/// Writing an archived `NSExpression` back as the format string it was made from, for the forms compiled
/// models and mapping models hold: constants (`NSConstantValue`), variables (`$source`, `NSVariable`), key
/// paths (`valueForKeyPath:` of a variable or of the evaluated object, with `NSKeyPath`) and functions of an
/// operand (`FUNCTION($manager, "selector:", arguments…)`, `NSOperand`, `NSSelectorName`, `NSArguments`).
///
/// Any other form (subqueries, aggregates, blocks, fetch request expressions, …) is written as
/// `<NSExpression type N (ClassName)>`, text no evaluator accepts, so whoever runs the expression refuses it,
/// naming it.
extension KeyedArchive {
  /// The `NSExpressionType` raw values the formatter understands.
  enum ExpressionType: Int64 {
    case constant = 0
    case evaluatedObject = 1
    case variable = 2
    case keyPath = 3
    case function = 4
    /// Apple's private type of the key path argument of `valueForKeyPath:` (`NSKeyPathSpecifierExpression`).
    case keyPathSpecifier = 10
    /// An aggregate, `{1, 2, 3}` (`NSAggregateExpression`, its members under `NSCollection`).
    case aggregate = 14
    /// Apple's private type of a fetch request expression (`NSFetchRequestExpression`).
    case fetchRequest = 50
  }

  /// The expression's format string; `nil` for `$null`.
  func expressionFormat(_ value: PropertyListValue?, _ what: String) throws -> String? {
    var steps = 0
    return try expressionFormat(value, what, depth: 0, steps: &steps)
  }

  /// The archived expression object a reference names, `nil` for `$null`.
  func expressionObject(_ value: PropertyListValue?, _ what: String) throws -> Object? {
    guard let object = try object(value, what) else { return nil }
    guard object.isKind(of: "NSExpression") else {
      throw Malformed(reason: "\(what) is an object of class \(object.className), not an NSExpression")
    }
    return object
  }

  /// Counts one node of an archived expression or predicate being read: refuses one nested deeper than
  /// ``maximumDepth`` or, with the nodes read before it (`steps`), larger than ``maximumSteps``.
  func countNode(_ what: String, depth: Int, steps: inout Int) throws {
    guard depth < Self.maximumDepth else {
      throw Malformed(reason: "\(what) is nested more than \(Self.maximumDepth) deep (or contains itself)")
    }
    steps += 1
    guard steps <= Self.maximumSteps else {
      throw Malformed(reason: "\(what) is larger than \(Self.maximumSteps) nodes (shared parts repeated)")
    }
  }

  /// ``expressionFormat(_:_:)`` inside a larger archived object (a predicate), which counts depth and steps.
  func expressionFormat(
    _ value: PropertyListValue?, _ what: String, depth: Int, steps: inout Int
  ) throws -> String? {
    try countNode(what, depth: depth, steps: &steps)
    guard let object = try expressionObject(value, what) else { return nil }
    let fields = object.fields
    let rawType = fields["NSExpressionType"]?.integer ?? -1
    let unreadable = "<NSExpression type \(rawType) (\(object.className))>"
    switch ExpressionType(rawValue: rawType) {
    case .constant:
      return try constantFormat(fields["NSConstantValue"], what)
    case .evaluatedObject:
      return "SELF"
    case .variable:
      guard let name = try string(fields["NSVariable"], "the variable of \(what)") else { return unreadable }
      return "$" + name
    case .keyPathSpecifier, .keyPath:
      return try string(fields["NSKeyPath"], "the key path of \(what)") ?? unreadable
    case .function:
      let selector = try string(fields["NSSelectorName"], "the selector of \(what)") ?? ""
      let arguments = try members(fields["NSArguments"], "the arguments of \(what)")
      let operandObject = try expressionObject(fields["NSOperand"], "the operand of \(what)")
      let operandType = operandObject?.fields["NSExpressionType"]?.integer
      if selector == "valueForKeyPath:", arguments.count == 1,
        let keyPath = try expressionFormat(arguments[0], what, depth: depth + 1, steps: &steps)
      {
        if operandType == ExpressionType.evaluatedObject.rawValue {
          // `@count` of SELF (a to-many's validation predicate) is written `SELF.@count`, which parses.
          return keyPath.hasPrefix("@") ? "SELF." + keyPath : keyPath
        }
        if let operand = try expressionFormat(fields["NSOperand"], what, depth: depth + 1, steps: &steps) {
          return operand + "." + keyPath
        }
      }
      guard let operand = try expressionFormat(fields["NSOperand"], what, depth: depth + 1, steps: &steps) else {
        return unreadable
      }
      var parts = [operand, Self.quoted(selector)]
      for argument in arguments {
        parts.append(try expressionFormat(argument, what, depth: depth + 1, steps: &steps) ?? "nil")
      }
      return "FUNCTION(" + parts.joined(separator: ", ") + ")"
    case .aggregate:
      var parts: [String] = []
      for member in try members(fields["NSCollection"], "the members of \(what)") {
        parts.append(try expressionFormat(member, what, depth: depth + 1, steps: &steps) ?? "nil")
      }
      return "{" + parts.joined(separator: ", ") + "}"
    case .fetchRequest, nil:
      return unreadable
    }
  }

  private func constantFormat(_ value: PropertyListValue?, _ what: String) throws -> String {
    try Self.constantFormat(plainValue(value, "the constant of \(what)"))
  }

  /// A decoded constant as the predicate language writes it: a date as `CAST(seconds, "NSDate")`, an array or
  /// set as `{…}`; a value the language has no literal for as `<constant …>`, which no parser accepts.
  private static func constantFormat(_ value: (any Sendable)?) -> String {
    switch value {
    case nil: return "nil"
    case let text as String: return quoted(text)
    case let flag as Bool: return flag ? "YES" : "NO"
    case let number as Int64: return "\(number)"
    case let number as Double: return "\(number)"
    case let number as Decimal: return "\(number)"
    case let date as Date: return "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
    case is NSNull: return "nil"
    case let members as [any Sendable]: return "{" + members.map { constantFormat($0) }.joined(separator: ", ") + "}"
    case let members as [(any Sendable)?]: return "{" + members.map { constantFormat($0) }.joined(separator: ", ") + "}"
    case let other?: return "<constant \(other)>"
    }
  }

  /// `text` in double quotes, with quotes and backslashes escaped as the predicate language reads them.
  static func quoted(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
  }
}
