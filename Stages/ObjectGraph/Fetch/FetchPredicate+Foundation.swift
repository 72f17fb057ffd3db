import Foundation

extension FetchPredicate {
  /// A predicate as `NSPredicate(format:)` leaves it: the parsed tree, or why it did not parse.
  typealias Parsed = Result<FetchPredicate, ObjectGraphError>

  /// Whether `object` matches once `bindings` fill in the `$VARIABLE`s, as Foundation's
  /// `evaluate(with:substitutionVariables:)` answers: `false` when it cannot run (a variable left without a
  /// value, a key the object lacks), since that method cannot throw.
  func answer(for object: Any?, bindings: [String: Any]?) -> Bool {
    var predicate = self
    if let bindings, !bindings.isEmpty {
      guard let substituted = try? withSubstitutionVariables(bindings) else { return false }
      predicate = substituted
    }
    return (try? predicate.evaluate(with: object)) ?? false
  }

  /// The tree of a Foundation predicate, on the caller's queue: what a fetch, a controller or a batch
  /// request runs.
  ///
  /// Takes the predicates `NSPredicate(format:)`, `NSComparisonPredicate(leftExpression:…)` and
  /// ``FetchPredicate``'s own make, Foundation's `NSCompoundPredicate` of any of them, and
  /// `NSPredicate(value:)`.
  /// - Throws: the parser's ``ObjectGraphPredicateSyntaxError`` for a format that did not parse;
  ///   the same code for a block predicate (`NSPredicate(block:)`), which a store cannot run (Core Data's
  ///   SQLite store refuses it too).
  init(_ predicate: NSPredicate) throws {
    try self.init(predicate, depth: 1)
  }

  private init(_ predicate: NSPredicate, depth: Int) throws {
    guard depth <= PredicateNode.maximumDepth else { throw PredicateNode.tooDeepError }
    switch predicate {
    case let predicate as FormatPredicate:
      self = try predicate.parsed.get()
    case let compound as NSCompoundPredicate:
      let kind = compound.compoundPredicateType
      // `[NSPredicate]` on Linux, `[Any]` on Apple's systems.
      let subpredicates: [Any] = compound.subpredicates
      guard kind != .not else {
        guard subpredicates.count == 1, let operand = subpredicates.first as? NSPredicate else {
          throw ObjectGraphError(
            .predicateSyntax,
            "A NOT compound predicate has \(subpredicates.count) subpredicates; it needs exactly one. Use NSCompoundPredicate(notPredicateWithSubpredicate:)."
          )
        }
        self.init(notPredicateWithSubpredicate: try FetchPredicate(operand, depth: depth + 1))
        return
      }
      // Operands of the same kind (`all = NSCompoundPredicate(andPredicateWithSubpredicates: [all, next])`,
      // many times over) are spliced in without recursion, so such a chain gives one flat AND.
      var pending = subpredicates.reversed().map { $0 }
      var operands: [FetchPredicate] = []
      while let next = pending.popLast() {
        guard let operand = next as? NSPredicate else {
          throw ObjectGraphError(.predicateSyntax, "A compound predicate holds \(type(of: next)), which is not an NSPredicate.")
        }
        if let inner = operand as? NSCompoundPredicate, inner.compoundPredicateType == kind {
          pending.append(contentsOf: (inner.subpredicates as [Any]).reversed())
        } else {
          operands.append(try FetchPredicate(operand, depth: depth + 1))
        }
      }
      self.init(
        node: kind == .and ? .and(operands.map(\.node)) : .or(operands.map(\.node)),
        objectReferences: Self.references(of: operands))
    default:
      if let archived = predicate as? ArchivedPredicate {
        self = try FetchPredicate(format: archived.format, argumentArray: [])
        return
      }
      #if !canImport(Darwin)
        if let comparison = predicate as? NSComparisonPredicate {
          self = try comparison.fetchPredicate()
          return
        }
      #endif
      let format = Self.format(of: predicate)
      switch format {
      case "TRUEPREDICATE": self.init(value: true)
      case "FALSEPREDICATE": self.init(value: false)
      default:
        #if canImport(Darwin)
          if !format.hasPrefix("BLOCKPREDICATE") {
            self = try FetchPredicate(format: format, argumentArray: [])
            return
          }
        #endif
        throw ObjectGraphError(
          .predicateSyntax,
          "A predicate made from a block (NSPredicate(block:)) cannot be run by a store, which needs to read it as a format; Core Data refuses it too. Write it as NSPredicate(format:) or NSComparisonPredicate."
        )
      }
    }
  }

  /// A predicate's format as Foundation gives it (Linux's Foundation gives `TRUEPREDICATE`,
  /// `FALSEPREDICATE` and `BLOCKPREDICATE(…)` for its own).
  static func format(of predicate: NSPredicate) -> String {
    predicate.formatText
  }

  /// Whether `object` matches, evaluated in memory: a managed object on its current (maybe unsaved)
  /// values; a dictionary by its keys; any other value as `SELF`.
  /// - Throws: ``ObjectGraphUnknownKeyError`` for a key the object does not have,
  ///   ``ObjectGraphPredicateSyntaxError`` for a `$VARIABLE` with no value.
  func evaluate(with object: Any?) throws -> Bool {
    if let object = object as? any PredicateEvaluable {
      return try PredicateEvaluator.evaluate(resolvedNode, on: object)
    }
    return try PredicateEvaluator.evaluate(resolvedNode, on: PredicateValueSubject(object))
  }
}

extension ObjectGraphError {
  /// `error` as the engine's error: itself when it is one, else wrapped with its description.
  static func wrapping(_ error: any Error) -> ObjectGraphError {
    if let error = error as? ObjectGraphError { return error }
    return ObjectGraphError(.invalidValue, String(describing: error))
  }
}
