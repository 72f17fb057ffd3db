import Foundation

/// A derived attribute's expression (Xcode's "Derived"), as Core Data's SQLite store computes them: a key
/// path (`notebook.name`), a collection operator over a to-many (`notes.@count`, `notes.@sum.words`), a
/// string function of one (`lowercase:(title)`, `uppercase:(title)`, `canonical:(title)`), or `now()`.
struct DerivationExpression {
  enum Function: String {
    case lowercase = "lowercase:"
    case uppercase = "uppercase:"
    /// Case- and diacritic-insensitive form (Core Data's `canonical:`).
    case canonical = "canonical:"
  }

  enum Form {
    case value(PredicateExpression)
    case function(Function, PredicateExpression)
    case now
  }

  let text: String
  let form: Form

  /// Parses an expression.
  /// - Throws: ``ObjectGraphModelInvalidError`` saying what is not understood.
  init(_ text: String) throws {
    self.text = text
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if trimmed.replacingOccurrences(of: " ", with: "").lowercased() == "now()" {
      form = .now
      return
    }
    if let colon = trimmed.firstIndex(of: ":"), trimmed.hasSuffix(")"),
      trimmed[trimmed.index(after: colon)...].hasPrefix("(")
    {
      let name = String(trimmed[...colon])
      guard let function = Function(rawValue: name) else {
        throw ObjectGraphError(
          .modelInvalid,
          "Derived attribute expression '\(text)' calls \(name), which ObjectGraph does not compute. It computes key paths, @count, @sum, @avg, @min, @max, lowercase:(…), uppercase:(…), canonical:(…) and now()."
        )
      }
      let inner = trimmed[trimmed.index(colon, offsetBy: 2)..<trimmed.index(before: trimmed.endIndex)]
      form = .function(function, try Self.expression(String(inner), in: text))
      return
    }
    form = .value(try Self.expression(trimmed, in: text))
  }

  /// A key path expression, parsed by the predicate parser.
  private static func expression(_ source: String, in text: String) throws -> PredicateExpression {
    do {
      guard case .comparison(let comparison) = try PredicateParser.parse(format: "\(source) == nil", arguments: []),
        case .keyPath = comparison.lhs
      else {
        throw ObjectGraphError(.modelInvalid, "not a key path")
      }
      return comparison.lhs
    } catch let error as ObjectGraphError {
      throw ObjectGraphError(
        .modelInvalid,
        "Derived attribute expression '\(text)' is not one ObjectGraph can compute (\(error.message)). Use a key path such as notes.@count or notebook.name, a string function such as lowercase:(title), or now()."
      )
    }
  }

  /// The expression's value for `object`, as the attribute's Swift value (`nil` for none).
  /// - Throws: the key path's errors; ``ObjectGraphInvalidValueError`` for a value the attribute's
  ///   type cannot hold.
  func value(for object: some PredicateEvaluable) throws -> PredicateValue {
    switch form {
    case .now:
      return .date(Date())
    case .value(let expression):
      return try Self.single(PredicateEvaluator.value(of: expression, on: object), text)
    case .function(let function, let expression):
      let value = try Self.single(PredicateEvaluator.value(of: expression, on: object), text)
      guard case .string(let string) = value else { return value == .null ? .null : value }
      switch function {
      case .lowercase: return .string(string.lowercased())
      case .uppercase: return .string(string.uppercased())
      case .canonical: return .string(string.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil))
      }
    }
  }

  private static func single(_ value: PredicateKeyPathValue, _ text: String) throws -> PredicateValue {
    guard case .single(let single) = value else {
      throw ObjectGraphError(
        .invalidValue,
        "Derived attribute expression '\(text)' reaches several values (a to-many); reduce them with @count, @sum, @avg, @min or @max.")
    }
    return single
  }
}
