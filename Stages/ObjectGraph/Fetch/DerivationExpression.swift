import Foundation

/// A derived attribute's expression (Xcode's "Derived"), as Core Data's SQLite store computes them: a key path
/// (`notebook.name`), a collection operator over a to-many (`notes.@count`, `notes.@sum.words`, also written
/// `count:(notes)`), or a function expression of `NSExpression`'s predefined functions of those, nested as
/// deep as wanted: arithmetic (`price * quantity`, `add:to:(a, b)`), `abs:`, `sqrt:`, `lowercase:`,
/// `uppercase:`, `now()` and the rest of ``PredicateFunction``, and Core Data's `canonical:(name)` (case and
/// diacritics folded) around any of them.
///
/// The value is computed by the predicate evaluator (``PredicateEvaluator``), the code that evaluates the same
/// expressions in predicates.
struct DerivationExpression {
  enum Form {
    /// An expression the evaluator computes.
    case value(PredicateExpression)
    /// Core Data's `canonical:` of an expression: its string, case- and diacritic-insensitive.
    case canonical(PredicateExpression)
  }

  let text: String
  let form: Form

  /// Parses an expression.
  /// - Throws: ``ObjectGraphModelInvalidError`` saying what is not understood.
  init(_ text: String) throws {
    self.text = text
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    let canonical = "canonical:("
    if trimmed.hasPrefix(canonical), trimmed.hasSuffix(")") {
      let inner = trimmed.dropFirst(canonical.count).dropLast()
      form = .canonical(try Self.expression(String(inner), in: text))
    } else {
      form = .value(try Self.expression(trimmed, in: text))
    }
  }

  /// The expression inside ``form``.
  var expression: PredicateExpression {
    switch form {
    case .value(let expression), .canonical(let expression): expression
    }
  }

  /// Parses `source` with the predicate parser and checks it holds only what a derivation can compute.
  private static func expression(_ source: String, in text: String) throws -> PredicateExpression {
    let parsed: PredicateExpression
    do {
      parsed = try PredicateParser.parseExpression(format: source, arguments: [], objects: PredicateObjectCapture())
    } catch let error as ObjectGraphError {
      throw ObjectGraphError(
        .modelInvalid,
        "Derived attribute expression '\(text)' is not one ObjectGraph can compute (\(error.message)). Use a key path such as notes.@count or notebook.name, or NSExpression's functions of them: arithmetic (price * quantity), abs:(x), lowercase:(title), canonical:(title), now()."
      )
    }
    if let problem = refusal(in: parsed) {
      throw ObjectGraphError(.modelInvalid, "Derived attribute expression '\(text)' \(problem).")
    }
    return parsed
  }

  /// Why a part of `expression` cannot be computed for an object being saved, or `nil`.
  private static func refusal(in expression: PredicateExpression) -> String? {
    switch expression {
    case .keyPath, .constant, .subqueryCount: return nil
    case .variable(let name, _):
      return "names the variable $\(name), which nothing fills in when an object is saved; use a constant or a key path"
    case .aggregate(let items): return items.lazy.compactMap(refusal).first
    case .arithmetic(_, let lhs, let rhs): return refusal(in: lhs) ?? refusal(in: rhs)
    case .function(let function, let operands):
      if function.givesCollection {
        return "calls \(function.rawValue), whose value is a collection, which one attribute cannot hold"
      }
      return operands.lazy.compactMap(refusal).first
    case .index(let collection, _): return refusal(in: collection)
    }
  }

  /// Every key path the expression reads, from the object (subqueries' own paths left out).
  var keyPaths: [[String]] { readKeyPaths.map(\.path) }

  /// Every key path the expression reads, each with whether it stands where one value is needed (at the top,
  /// in arithmetic, as a function's argument) rather than a collection (`median:`'s, an index's, a subquery's).
  private var readKeyPaths: [(path: [String], needsOneValue: Bool)] {
    var paths: [(path: [String], needsOneValue: Bool)] = []
    func collect(_ expression: PredicateExpression, _ needsOneValue: Bool) {
      switch expression {
      case .keyPath(let path): paths.append((path, needsOneValue))
      case .aggregate(let items): items.forEach { collect($0, false) }
      case .arithmetic(_, let lhs, let rhs):
        collect(lhs, true)
        collect(rhs, true)
      case .function(let function, let operands): operands.forEach { collect($0, !function.takesCollection && function != .noindex) }
      case .index(let collection, _): collect(collection, false)
      case .subqueryCount(let subquery): collect(subquery.collection, false)
      case .constant, .variable: break
      }
    }
    collect(expression, true)
    return paths
  }

  /// Why a key path of the expression cannot be read from an object of `entity` (a property it does not
  /// have, a path going on past an attribute), or `nil` when every one can.
  func unreachableKeyPath(from entity: NSEntityDescription) -> String? {
    for (path, needsOneValue) in readKeyPaths {
      var current: NSEntityDescription? = entity
      var manyValues = false
      for (position, key) in path.enumerated() {
        guard let here = current else { break }
        if key == "SELF" && position == 0 { continue }
        if key.hasPrefix("@") {
          guard let collectionOperator = PredicateCollectionOperator(element: key) else {
            return "reads \(path.joined(separator: ".")), and \(key) is not a collection operator (@count, @sum, @avg, @min, @max)"
          }
          if !collectionOperator.isUnion { manyValues = false }
          continue
        }
        if let relationship = here.relationshipsByName[key] {
          if relationship.isToMany { manyValues = true }
          current = relationship.destinationEntity
          continue
        }
        if here.attributesByName[key] != nil {
          // An attribute ends the path (a composite attribute's element names the rest).
          current = nil
          if here.attributesByName[key]?.attributeType == .compositeAttributeType { break }
          if position != path.count - 1 {
            return "reads \(path.joined(separator: ".")), which goes on past the attribute \(here.entityName).\(key)"
          }
          continue
        }
        return "reads \(path.joined(separator: ".")), and \(here.entityName) has no property '\(key)'"
      }
      if needsOneValue && manyValues {
        return
          "reads \(path.joined(separator: ".")), which reaches several values (a to-many) where one is needed; reduce them with @count, @sum, @avg, @min or @max"
      }
    }
    return nil
  }

  /// The expression's value for `object`, as the attribute's Swift value (`nil` for none).
  /// - Throws: the key path's errors; ``ObjectGraphInvalidValueError`` for a value the attribute's
  ///   type cannot hold.
  func value(for object: some PredicateEvaluable) throws -> PredicateValue {
    switch form {
    case .value(let expression):
      return try Self.single(PredicateEvaluator.value(of: expression, on: object), text)
    case .canonical(let expression):
      let value = try Self.single(PredicateEvaluator.value(of: expression, on: object), text)
      guard case .string(let string) = value else { return value == .null ? .null : value }
      return .string(string.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil))
    }
  }

  private static func single(_ value: PredicateKeyPathValue, _ text: String) throws -> PredicateValue {
    guard case .single(let single) = value, !single.isCollection else {
      throw ObjectGraphError(
        .invalidValue,
        "Derived attribute expression '\(text)' reaches several values (a to-many); reduce them with @count, @sum, @avg, @min or @max.")
    }
    return single
  }
}
