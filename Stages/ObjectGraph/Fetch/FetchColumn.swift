import Foundation

/// One column of a dictionary fetch, as a ``FetchPropertySpecifier`` describes it.
public struct FetchColumn: Sendable {
  enum Kind {
    case keyPath(String)
    case expression(name: String, Result<FetchExpression?, ObjectGraphError>, NSAttributeType)
  }

  let kind: Kind

  /// Whether the column aggregates rows (`sum:(wordCount)`, `count:(title)`), so that its value is one of a
  /// whole fetch or group rather than of a row.
  var aggregates: Bool {
    guard case .expression(_, .success(let expression?), _) = kind, case .computed(_, let aggregates) = expression.kind else {
      return false
    }
    return !aggregates.isEmpty
  }

  /// The key of the column's value in each result dictionary.
  var name: String {
    switch kind {
    case .keyPath(let path): path
    case .expression(let name, _, _): name
    }
  }
}

extension String: FetchPropertySpecifier {
  /// A key path column.
  public var fetchColumn: FetchColumn { FetchColumn(kind: .keyPath(self)) }
}

extension NSAttributeDescription: FetchPropertySpecifier {
  /// The attribute's column.
  public var fetchColumn: FetchColumn { FetchColumn(kind: .keyPath(name)) }
}

extension NSRelationshipDescription: FetchPropertySpecifier {
  /// The relationship's column: its destination's object ID (to-one relationships only).
  public var fetchColumn: FetchColumn { FetchColumn(kind: .keyPath(name)) }
}

extension NSExpressionDescription: FetchPropertySpecifier {
  /// The expression's column, under its name.
  public var fetchColumn: FetchColumn {
    let computed: Result<FetchExpression?, ObjectGraphError>
    do {
      computed = .success(try expression?.fetchExpression())
    } catch {
      let wrapped = ObjectGraphError.wrapping(error)
      // A function the predicate language cannot run is one a dictionary fetch cannot compute either.
      computed = .failure(
        wrapped.code == ObjectGraphError.Code.predicateSyntax.rawValue
          ? ObjectGraphError(.unsupportedFeature, "Expression description '\(name)' cannot be fetched: \(wrapped.message)")
          : wrapped)
    }
    return FetchColumn(kind: .expression(name: name, computed, expressionResultType))
  }
}
