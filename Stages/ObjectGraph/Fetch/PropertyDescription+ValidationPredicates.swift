import Foundation

/// Validation predicates: rules of a property written as predicates on its value, each with the message a
/// failed one gives, as Core Data's `setValidationPredicates(_:withValidationWarnings:)` sets them.
///
/// ```swift
/// title.setValidationPredicates(
///   [NSPredicate(format: "SELF BEGINSWITH[c] 'note'"), NSPredicate(format: "NOT SELF CONTAINS '!'")],
///   withValidationWarnings: ["A title starts with 'note'.", "A title has no '!'."])
/// ```
extension NSPropertyDescription {
  /// The property's validation predicates, in the order they were set: Core Data's `validationPredicates`.
  ///
  /// Each is evaluated at validation with the property's value as `SELF` (`SELF > 0`, `SELF MATCHES '[a-z]+'`);
  /// an object whose value fails one does not validate (see ``setValidationPredicates(_:withValidationWarnings:)``).
  public var validationPredicates: [NSPredicate] { validationRules.map(\.predicate) }

  /// The message of each validation predicate, at the same index: Core Data's `validationWarnings`.
  public var validationWarnings: [Any] { validationRules.map(\.warning) }

  /// Sets the property's validation predicates and their warnings: Core Data's
  /// `setValidationPredicates(_:withValidationWarnings:)` (`nil` clears them).
  ///
  /// At validation (a save, or `validateForInsert()`/`validateForUpdate()`), each predicate is evaluated with the
  /// attribute's value as `SELF`, after the model's minimum, maximum and pattern; a value that fails one is
  /// error 1550 (`NSManagedObjectValidationError`) whose message is the predicate's warning, with
  /// `NSValidationPredicateErrorKey` holding the predicate, as well as the object, key and value. A missing
  /// value (`nil`) is not evaluated: whether one is allowed is the property's ``isOptional``.
  ///
  /// Where Apple only says the arrays "should contain the same number of elements": a predicate without a
  /// warning gets one naming it, and warnings beyond the predicates are dropped. A predicate the engine cannot
  /// run (a block predicate, a format that did not parse) fails validation with its reason. A relationship's
  /// predicates are evaluated with its value as `SELF`: a to-one's related object, a to-many's set of members
  /// (`SELF.@count <= 5`, `ALL SELF.title BEGINSWITH 'n'`). A warning that is one of Core Data's validation
  /// codes (a compiled model's, for Xcode's minimum, maximum and pattern) gives that code. Like every
  /// change to a model, setting them once a coordinator uses the model stops the program (Core Data raises an
  /// exception).
  public func setValidationPredicates(_ validationPredicates: [NSPredicate]?, withValidationWarnings validationWarnings: [String]?) {
    let warnings = validationWarnings ?? []
    validationRules = (validationPredicates ?? []).enumerated().map { index, predicate in
      let parsed: FetchPredicate.Parsed = Result { try FetchPredicate(predicate) }.mapError(ObjectGraphError.wrapping)
      let format = FetchPredicate.format(of: predicate)
      return PropertyValidationRule(
        parsed: parsed, given: FormatPredicate(parsed: parsed, format: format),
        warning: index < warnings.count ? warnings[index] : "The value does not satisfy the predicate \(format).")
    }
  }
}

extension CocoaError {
  /// The validation predicate a value failed (`NSValidationPredicateErrorKey`), for an error of
  /// ``NSPropertyDescription/setValidationPredicates(_:withValidationWarnings:)``: Core Data's
  /// `validationPredicate`.
  public var validationPredicate: NSPredicate? { userInfo[NSValidationPredicateErrorKey] as? NSPredicate }
}

extension PropertyValidationRule {
  /// The rule's predicate, parsed: as set in code, or, for one read from a compiled model, parsed from its format
  /// the first time (and kept).
  var fetchPredicate: FetchPredicate.Parsed {
    if let parsed = parsed as? FetchPredicate.Parsed { return parsed }
    guard let archived = parsed as? ArchivedValidationPredicate else {
      return .failure(ObjectGraphError(.invalidValue, "A validation predicate of an unknown kind (\(type(of: parsed))) cannot be run."))
    }
    return archived.parsed.withLock { cached in
      if let done = cached as? FetchPredicate.Parsed { return done }
      let made: FetchPredicate.Parsed = Result { try FetchPredicate(format: archived.format, argumentArray: []) }
        .mapError(ObjectGraphError.wrapping)
      cached = made
      return made
    }
  }

  /// The rule's predicate as an `NSPredicate`: the one given, or one made of an archived rule's format.
  var predicate: NSPredicate {
    if let given { return given }
    let format = (parsed as? ArchivedValidationPredicate)?.format ?? ""
    return FormatPredicate(parsed: fetchPredicate, format: format)
  }
}
