import Foundation

#if !canImport(Darwin)
  /// An expression in a predicate or a dictionary fetch: a key path, a constant, a variable, the object
  /// itself, or a function of other expressions. Foundation's `NSExpression`, which Linux's Foundation
  /// declares but cannot make.
  ///
  /// ```swift
  /// let words = NSExpression(forKeyPath: "wordCount")
  /// let total = NSExpressionDescription()
  /// total.name = "totalWords"
  /// total.expression = NSExpression(forFunction: "sum:", arguments: [words])
  /// total.expressionResultType = .integer64AttributeType
  /// let long = NSComparisonPredicate(
  ///   leftExpression: words, rightExpression: NSExpression(forConstantValue: 100),
  ///   modifier: .direct, type: .greaterThan, options: [])
  /// ```
  ///
  /// A store computes, in predicates and in a dictionary fetch's ``NSExpressionDescription``s alike,
  /// `add:to:`, `from:subtract:`, `multiply:by:`, `divide:by:` and the predefined functions (`sqrt:`,
  /// `lowercase:`, `now`…) of key paths and constants, nested; a dictionary fetch also aggregates its rows with
  /// `count:`, `sum:`, `average:`, `min:`, `max:`, `median:` and `stddev:` of such an expression. Others are
  /// refused when the fetch runs.
  ///
  /// **A file that imports Foundation as well** cannot name this class as a type (`let e: NSExpression`):
  /// Swift finds Linux Foundation's `NSExpression` too and calls the name ambiguous. Making one
  /// (`NSExpression(forKeyPath:)`) is never ambiguous. Where a type annotation is needed, add one file to
  /// the module: `typealias NSExpression = ObjectGraph.NSExpression` (see Docs/ObjectGraph.md, "Core Data
  /// as written").
  open class NSExpression: NSObject, NSCopying {
    /// What an expression is: Foundation's `NSExpression.ExpressionType`, with Apple's raw values.
    public enum ExpressionType: UInt, Sendable {
      /// A constant value (``NSExpression/constantValue``).
      case constantValue = 0
      /// The object being evaluated (`SELF`).
      case evaluatedObject = 1
      /// A `$VARIABLE` (``NSExpression/variable``).
      case variable = 2
      /// A key path (``NSExpression/keyPath``).
      case keyPath = 3
      /// A function of ``NSExpression/arguments`` (``NSExpression/function``).
      case function = 4
      /// An aggregate of constants, `{1, 2, 3}`.
      case aggregate = 14
      /// An ``NSFetchRequestExpression``: Core Data's `NSFetchRequestExpressionType` (raw value 50), which
      /// Foundation's enumeration has no case name for; write ``NSFetchRequestExpressionType``.
      case fetchRequestExpression = 50
    }

    enum Form {
      case keyPath(String)
      case constant(Any?)
      case variable(String)
      case evaluatedObject
      case function(String, [NSExpression])
      case aggregate([NSExpression])
      /// Parsed from a format (``init(format:argumentArray:)``), or why it did not parse.
      case parsed(Result<PredicateExpression, ObjectGraphError>, format: String)
    }

    let form: Form

    init(form: Form) {
      self.form = form
      super.init()
    }

    /// An expression for the value at a key path of the evaluated object (`"notebook.name"`).
    public convenience init(forKeyPath keyPath: String) {
      self.init(form: .keyPath(keyPath))
    }

    /// An expression for a constant: a string, number, date, managed object, array (for `IN`), or `nil`.
    public convenience init(forConstantValue obj: Any?) {
      self.init(form: .constant(obj))
    }

    /// An expression for a `$VARIABLE`, filled in by `withSubstitutionVariables(_:)`.
    public convenience init(forVariable string: String) {
      self.init(form: .variable(string))
    }

    /// An expression for a function applied to other expressions: `add:to:`, `from:subtract:`,
    /// `multiply:by:`, `divide:by:` of two expressions; `sqrt:`, `log:`, `ln:`, `exp:`, `floor:`, `ceiling:`,
    /// `abs:`, `trunc:`, `raise:toPower:`, `modulus:by:`, `lowercase:`, `uppercase:` and `now` (no arguments);
    /// `sum:`, `count:`, `average:`, `min:`, `max:` of a to-many key path in a predicate, or of an expression of
    /// each row in a dictionary fetch (with `median:` and `stddev:`), which aggregates the rows. `random` and
    /// `random:` are refused when the fetch runs: no two evaluations agree.
    public convenience init(forFunction name: String, arguments parameters: [Any]) {
      self.init(form: .function(name, parameters.map { ($0 as? NSExpression) ?? NSExpression(forConstantValue: $0) }))
    }

    /// An expression for a collection of expressions, `{1, 2, 3}`.
    public convenience init(forAggregate subexpressions: [Any]) {
      self.init(form: .aggregate(subexpressions.map { ($0 as? NSExpression) ?? NSExpression(forConstantValue: $0) }))
    }

    /// Parses an expression in the predicate language (`"wordCount * 2"`, `"notebook.name"`, `"%@"`).
    /// A malformed format does not stop the program: a fetch with the expression throws the message.
    public convenience init(format expressionFormat: String, _ args: Any?...) {
      self.init(format: expressionFormat, argumentArray: args.map { $0 as Any })
    }

    /// The same, with the arguments given as an array.
    public convenience init(format expressionFormat: String, argumentArray arguments: [Any]) {
      let parsed: Result<PredicateExpression, ObjectGraphError>
      do {
        parsed = .success(
          try PredicateParser.parseExpression(
            format: expressionFormat, arguments: arguments.map { $0 }, objects: PredicateObjectCapture()))
      } catch {
        parsed = .failure(ObjectGraphError.wrapping(error))
      }
      self.init(form: .parsed(parsed, format: expressionFormat))
    }

    /// An expression for the object being evaluated (`SELF`).
    open class func expressionForEvaluatedObject() -> NSExpression {
      NSExpression(form: .evaluatedObject)
    }

    /// What kind of expression this is.
    open var expressionType: ExpressionType {
      switch form {
      case .keyPath: .keyPath
      case .constant: .constantValue
      case .variable: .variable
      case .evaluatedObject: .evaluatedObject
      case .function: .function
      case .aggregate: .aggregate
      case .parsed(.success(let expression), _):
        switch expression {
        case .keyPath(let path): path.isEmpty ? .evaluatedObject : .keyPath
        case .constant: .constantValue
        case .aggregate: .aggregate
        case .variable: .variable
        case .arithmetic, .subqueryCount, .function, .index: .function
        }
      case .parsed(.failure, _): .constantValue
      }
    }

    /// The key path of a key-path expression; empty for other kinds (Foundation raises an exception).
    open var keyPath: String {
      switch form {
      case .keyPath(let path): path
      case .parsed(.success(.keyPath(let path)), _): path.joined(separator: ".")
      default: ""
      }
    }

    /// The value of a constant expression; `nil` for other kinds.
    open var constantValue: Any? {
      if case .constant(let value) = form { return value }
      return nil
    }

    /// The name of a variable expression (without `$`); empty for other kinds.
    open var variable: String {
      switch form {
      case .variable(let name): name
      case .parsed(.success(.variable(let name, let path)), _) where path.isEmpty: name
      default: ""
      }
    }

    /// The name of a function expression (`"sum:"`); empty for other kinds.
    open var function: String {
      if case .function(let name, _) = form { return name }
      return ""
    }

    /// The arguments of a function expression.
    open var arguments: [NSExpression]? {
      if case .function(_, let arguments) = form { return arguments }
      return nil
    }

    /// The expressions of an aggregate expression.
    open var collection: Any {
      if case .aggregate(let members) = form { return members }
      return [NSExpression]()
    }

    /// The expression itself: it never changes once made.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// The expression as the predicate language writes it: `wordCount`, `sum:(wordCount)`, `"a"`, `$x`.
    open override var description: String {
      switch form {
      case .keyPath(let path): return path
      case .constant(let value):
        return (try? PredicateValue(argument: value).predicateFormat) ?? "\(value ?? "nil")"
      case .variable(let name): return "$" + name
      case .evaluatedObject: return "SELF"
      case .function(let name, let arguments): return "\(name)(\(arguments.map(\.description).joined(separator: ", ")))"
      case .aggregate(let members): return "{" + members.map(\.description).joined(separator: ", ") + "}"
      case .parsed(.success(let expression), _): return expression.predicateFormat
      case .parsed(.failure, let format): return format
      }
    }

    /// Whether `object` is an expression that prints the same.
    open override func isEqual(_ object: Any?) -> Bool {
      guard let other = object as? NSExpression else { return false }
      return description == other.description
    }

    /// A hash of the printed expression.
    open override var hash: Int { description.hashValue }
  }
#endif

extension NSExpression {
  /// The expression as the predicate tree holds it, for ``NSComparisonPredicate``.
  /// - Throws: ``ObjectGraphPredicateSyntaxError`` for a function the engine cannot run or a format
  ///   that did not parse; ``ObjectGraphInvalidValueError`` for a constant of a kind predicates
  ///   cannot hold.
  func predicateExpression(objects: PredicateObjectCapture) throws -> PredicateExpression {
    #if !canImport(Darwin)
      // An expression parsed from a format string already is a tree.
      if case .parsed(let parsed, _) = form { return try parsed.get() }
    #endif
    switch expressionType {
    case .keyPath: return .keyPath(keyPath.split(separator: ".").map(String.init))
    case .evaluatedObject: return .keyPath([])
    case .variable: return .variable(variable, path: [])
    case .constantValue:
      return .constant(try PredicateValue(argument: constantValue, objects: objects))
    case .function:
      let operands = try (arguments ?? []).map { try $0.predicateExpression(objects: objects) }
      return try functionExpression(function, operands)
    case .aggregate:
      let members = (collection as? [NSExpression]) ?? []
      return .aggregate(try members.map { try $0.predicateExpression(objects: objects) })
    case .fetchRequestExpression:
      throw ObjectGraphError(
        .predicateSyntax,
        "Expression \(self) runs a fetch request, which a predicate cannot hold here. Fetch first, and compare with the results (IN %@), or use a SUBQUERY."
      )
    #if canImport(Darwin)
      default:
        throw ObjectGraphError(.predicateSyntax, "Expression \(self) is of a kind a predicate cannot run here.")
    #endif
    }
  }

  /// The function `name` of `operands` as the predicate tree holds it: arithmetic, a collection operator over
  /// a to-many key path (`count:(notes)` is `notes.@count`), or one of ``PredicateFunction``'s.
  /// - Throws: ``ObjectGraphPredicateSyntaxError`` for a function the engine cannot run, or a wrong number
  ///   of arguments.
  private func functionExpression(_ name: String, _ operands: [PredicateExpression]) throws -> PredicateExpression {
    if let expression = PredicateExpression.arithmeticOrCollection(name, operands) { return expression }
    if let predicateFunction = PredicateFunction(rawValue: name) {
      guard operands.count == predicateFunction.arity else {
        throw ObjectGraphError(
          .predicateSyntax,
          "Expression \(self) calls \(name) with \(operands.count) argument\(operands.count == 1 ? "" : "s"); it takes \(predicateFunction.arity)."
        )
      }
      return .function(predicateFunction, operands)
    }
    if let reason = PredicateFunction.refused[name] {
      throw ObjectGraphError(.predicateSyntax, "Expression \(self) calls \(name), which \(reason).")
    }
    let known =
      ["add:to:", "from:subtract:", "multiply:by:", "divide:by:", "count:", "sum:", "average:", "min:", "max:"]
      + PredicateFunction.allCases.map(\.rawValue)
    throw ObjectGraphError(
      .predicateSyntax,
      "Expression \(self) calls \(name), which a predicate cannot run here. Use \(known.joined(separator: ", "))."
    )
  }

  /// The expression as a dictionary fetch computes it: a key path, the object itself, or an expression of
  /// each row in which `count:`, `sum:`, `average:`, `min:`, `max:`, `median:` and `stddev:` aggregate the
  /// rows (of each group).
  /// - Throws: ``ObjectGraphInvalidValueError`` for a variable, an aggregate `{…}`, a fetch request
  ///   expression or an aggregate inside another; ``ObjectGraphUnsupportedFeatureError`` for `mode:`, whose
  ///   value is a collection; what ``predicateExpression(objects:)`` throws for the rest.
  func fetchExpression() throws -> FetchExpression {
    switch expressionType {
    case .keyPath: return FetchExpression(kind: .keyPath(keyPath), description: description)
    case .evaluatedObject: return FetchExpression(kind: .evaluatedObject, description: description)
    case .variable, .aggregate, .fetchRequestExpression:
      throw ObjectGraphError(
        .invalidValue,
        "Expression \(self) cannot be computed by a dictionary fetch: use a key path, a constant, arithmetic or a function of NSExpression's (lowercase:, abs:, …), or an aggregate of one (\(FetchExpression.aggregateNames))."
      )
    default:
      var aggregates: [FetchExpression.Aggregate] = []
      let value = try rowExpression(&aggregates, inside: nil)
      return FetchExpression(kind: .computed(value, aggregates: aggregates), description: description)
    }
  }

  /// The expression of one row, with each aggregate over the rows moved to `aggregates` and a variable in its
  /// place; `inside` is the aggregate this expression is the argument of.
  private func rowExpression(_ aggregates: inout [FetchExpression.Aggregate], inside: String?) throws -> PredicateExpression {
    #if !canImport(Darwin)
      // A parsed expression holds no aggregate of rows: the predicate language has none.
      if case .parsed = form { return try predicateExpression(objects: PredicateObjectCapture()) }
    #endif
    guard expressionType == .function else {
      if expressionType == .aggregate || expressionType == .variable || expressionType == .fetchRequestExpression {
        throw ObjectGraphError(
          .invalidValue,
          "Expression \(self) cannot be part of an expression a dictionary fetch computes: use key paths, constants, arithmetic and NSExpression's functions."
        )
      }
      return try predicateExpression(objects: PredicateObjectCapture())
    }
    let name = function
    let operands = arguments ?? []
    if name == PredicateFunction.mode.rawValue {
      throw ObjectGraphError(
        .unsupportedFeature,
        "Expression \(self) calls mode:, whose value is a collection (the most frequent values), which a dictionary cannot hold as one value. Fetch the values and count them, or group by them with count:."
      )
    }
    if let aggregate = FetchExpression.AggregateFunction(rawValue: name) {
      if let inside {
        throw ObjectGraphError(
          .invalidValue,
          "Expression \(self) is an aggregate inside \(inside): the rows are aggregated once. Aggregate an expression of each row, as in sum:(price * quantity)."
        )
      }
      guard operands.count == 1 else {
        throw ObjectGraphError(
          .invalidValue,
          "Expression \(self) calls \(name) with \(operands.count) arguments; it takes one expression of each row, as in \(name)(wordCount)."
        )
      }
      let argument = try operands[0].rowExpression(&aggregates, inside: name)
      aggregates.append(FetchExpression.Aggregate(function: aggregate, argument: argument))
      return .variable(FetchExpression.aggregateVariable(aggregates.count - 1), path: [])
    }
    return try functionExpression(name, try operands.map { try $0.rowExpression(&aggregates, inside: inside) })
  }
}
