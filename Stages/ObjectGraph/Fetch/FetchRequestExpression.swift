import Foundation

/// The expression type of an ``NSFetchRequestExpression`` (Core Data's `NSFetchRequestExpressionType`, 50).
public let NSFetchRequestExpressionType = NSExpression.ExpressionType.fetchRequestExpression

/// What evaluates an ``NSFetchRequestExpression``: a managed object context, which the contexts' layer makes
/// conform (this layer cannot name it).
protocol FetchRequestExpressionEvaluating: AnyObject {
  /// The objects (or rows) `request` fetches, or their count as an `NSNumber` when `countOnly`.
  func valueOfFetch(_ request: Any, countOnly: Bool) throws -> Any
}

/// An object a variable of an ``NSFetchRequestExpression`` may stand for, answering the keys of the variable's
/// path (`$manager.sourceContext`): the migration manager, which the layer above makes conform.
protocol ExpressionKeyAnswering: AnyObject {
  /// The value of `key`, or `nil` when the object has no such key.
  func value(forExpressionKey key: String) -> Any?
}

#if !canImport(Darwin)
  /// An expression whose value is the result of a fetch request run in a context (Core Data's
  /// `NSFetchRequestExpression`).
  ///
  /// ```swift
  /// let recent = NSFetchRequest<Note>(entityName: "Note")
  /// recent.predicate = NSPredicate(format: "createdAt > %@", yesterday as NSDate)
  /// let expression = NSFetchRequestExpression.expression(
  ///   forFetch: NSExpression(forConstantValue: recent), context: NSExpression(forConstantValue: context),
  ///   countOnly: true)
  /// let count = (expression as? NSFetchRequestExpression)?.expressionValue(with: nil, context: nil) as? Int
  /// ```
  ///
  /// Evaluate it on the context's queue, as any use of the context. The request expression must give an
  /// `NSFetchRequest` and the context expression an `NSManagedObjectContext`, each a constant or a variable
  /// of the evaluation's `context` dictionary; the value is the fetched array, or the count as an `NSNumber`
  /// for a count-only expression. When the fetch cannot run, the value is `nil` and the reason is logged
  /// (Core Data raises an exception). A predicate cannot hold one here: fetches refuse it with
  /// `predicateSyntax`.
  public final class NSFetchRequestExpression: NSExpression {
    /// The expression giving the fetch request.
    public let requestExpression: NSExpression
    /// The expression giving the context the request runs in.
    public let contextExpression: NSExpression
    /// Whether evaluating it counts the results (`count(for:)`) instead of fetching them.
    public let isCountOnlyRequest: Bool

    init(request: NSExpression, context: NSExpression, countOnly: Bool) {
      requestExpression = request
      contextExpression = context
      isCountOnlyRequest = countOnly
      super.init(form: .constant(nil))
    }

    /// An expression whose value is the result of running the request `fetch` gives in the context `context`
    /// gives: its results, or with `countOnly` their count.
    public class func expression(forFetch fetch: NSExpression, context: NSExpression, countOnly countFlag: Bool)
      -> NSExpression
    {
      NSFetchRequestExpression(request: fetch, context: context, countOnly: countFlag)
    }

    /// ``NSFetchRequestExpressionType``.
    public override var expressionType: ExpressionType { .fetchRequestExpression }

    /// The two expressions and the flag, for logs.
    public override var description: String {
      "FETCH(\(requestExpression), \(contextExpression), \(isCountOnlyRequest ? "count" : "fetch"))"
    }

    /// Runs the request in the context and gives the results (an array) or their count (an `NSNumber`); `nil`
    /// when the expressions do not give a fetch request and a context, or the fetch fails (logged).
    /// `object` is not used; `context` holds the values of variables the two expressions may be.
    public func expressionValue(with object: Any?, context: NSMutableDictionary?) -> Any? {
      do {
        return try value(variables: context)
      } catch {
        ErrorLog.write("expressionValue(with:context:) of \(self) returned nil", error)
        return nil
      }
    }

    /// The fetch's results or count, or the reason there are none: what ``expressionValue(with:context:)``
    /// gives, with the error it logs thrown instead.
    func value(variables: NSMutableDictionary?) throws -> Any {
      let request = Self.value(of: requestExpression, variables: variables)
      guard let request, let evaluator = Self.value(of: contextExpression, variables: variables) as? any FetchRequestExpressionEvaluating
      else {
        throw ObjectGraphError(
          .invalidValue,
          "its context expression \(contextExpression) gives no managed object context, or its request expression \(requestExpression) gives no request. Give both as constants or variables of the context dictionary."
        )
      }
      return try evaluator.valueOfFetch(request, countOnly: isCountOnlyRequest)
    }

    private static func value(of expression: NSExpression, variables: NSMutableDictionary?) -> Any? {
      switch expression.expressionType {
      case .constantValue: expression.constantValue
      case .variable:
        if case .parsed(.success(.variable(let name, let path)), _) = expression.form {
          // `$manager.sourceContext`: a variable's value, then each key of the path it answers.
          path.reduce(variables?[name]) { value, key in (value as? any ExpressionKeyAnswering)?.value(forExpressionKey: key) }
        } else {
          variables?[expression.variable]
        }
      default: nil
      }
    }
  }
#endif
