import Foundation

/// A value that is not a managed object, evaluated by a predicate (`NSPredicate.evaluate(with:)`,
/// `filtered(using:)`): a dictionary answers its keys, any other value is `SELF`.
///
/// Linux has no key-value coding, so other objects' properties cannot be read by name: a key path on one
/// throws ``ObjectGraphUnknownKeyError``.
struct PredicateValueSubject: PredicateEvaluable {
  let value: Any?

  init(_ value: Any?) {
    self.value = value
  }

  func predicateValue(atKeyPath path: [String]) throws -> PredicateKeyPathValue {
    var path = path
    if path.first == "SELF" { path.removeFirst() }
    guard let key = path.first else {
      if let members = Self.members(of: value) { return .many(try members.map { try PredicateValue(argument: $0) }) }
      return .single(try PredicateValue(argument: value))
    }
    let rest = Array(path.dropFirst())
    if let members = Self.members(of: value) {
      if key == "@count" && rest.isEmpty { return .single(.integer(Int64(members.count))) }
      var values: [PredicateValue] = []
      for member in members {
        // A managed object (a to-many's member, validated as a set) answers its own keys.
        let answer =
          try (member as? any PredicateEvaluable)?.predicateValue(atKeyPath: path)
          ?? PredicateValueSubject(member).predicateValue(atKeyPath: path)
        switch answer {
        case .single(let value): values.append(value)
        case .many(let many): values.append(contentsOf: many)
        }
      }
      return .many(values)
    }
    // `length` of a string, as `NSString`'s key-value coding answers it (UTF-16 code units): the key a string
    // attribute's validation predicate reads (`SELF.length >= 3`).
    if key == "length", rest.isEmpty, let text = value as? String { return .single(.integer(Int64(text.utf16.count))) }
    guard let dictionary = Self.dictionary(value) else {
      throw ObjectGraphError(
        .unknownKey,
        "Key path '\(path.joined(separator: "."))' cannot be read on a \(value.map { "\(type(of: $0))" } ?? "nil"): on Linux a predicate reads keys of managed objects and dictionaries only (there is no key-value coding)."
      )
    }
    return try PredicateValueSubject(dictionary[key] ?? nil).predicateValue(atKeyPath: rest)
  }

  func predicateObjects(atKeyPath path: [String]) throws -> [any PredicateEvaluable] {
    var subject = value
    for key in path where key != "SELF" {
      guard let dictionary = Self.dictionary(subject) else {
        throw ObjectGraphError(.predicateSyntax, "SUBQUERY ranges over a collection, and '\(path.joined(separator: "."))' is not one.")
      }
      subject = dictionary[key] ?? nil
    }
    guard let members = Self.members(of: subject) else {
      throw ObjectGraphError(.predicateSyntax, "SUBQUERY ranges over a collection, and '\(path.joined(separator: "."))' is not one.")
    }
    return members.map { member -> any PredicateEvaluable in
      (member as? any PredicateEvaluable) ?? PredicateValueSubject(member)
    }
  }

  private static func dictionary(_ value: Any?) -> [String: Any?]? {
    switch value {
    case let dictionary as [String: Any?]: dictionary
    case let dictionary as [String: Any]: dictionary.mapValues { $0 }
    case let dictionary as NSDictionary:
      Dictionary(dictionary.compactMap { key, value in (key as? String).map { ($0, Optional(value)) } }) { first, _ in first }
    default: nil
    }
  }

  /// The members of an array or set (not of a string, which is one value).
  private static func members(of value: Any?) -> [Any]? {
    switch value {
    case is String, is Data, .none: nil
    case let array as [Any]: array
    case let set as NSSet: set.allObjects
    case let array as NSArray: array.map { $0 }
    case let set as Set<AnyHashable>: Array(set)
    default: nil
    }
  }
}
