import Foundation

/// A ``PropertyMapping/valueExpression`` once read: the two forms the migration manager evaluates.
enum MappingExpression {
  /// `$source.a.b`: the key path's components.
  case keyPath([String])
  /// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "<mapping>", $source.<keyPath>)`.
  case destinationInstances(mapping: String, keyPath: [String])

  static let selector = "destinationInstancesForEntityMappingNamed:sourceInstances:"

  /// Reads an expression string, or returns `nil` when it is neither form.
  static func parse(_ text: String) -> MappingExpression? {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if let keyPath = sourceKeyPath(trimmed) { return .keyPath(keyPath) }
    guard trimmed.hasPrefix("FUNCTION("), trimmed.hasSuffix(")") else { return nil }
    let arguments = trimmed.dropFirst("FUNCTION(".count).dropLast().split(separator: ",", omittingEmptySubsequences: false)
      .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    guard arguments.count == 4, arguments[0] == "$manager", unquoted(arguments[1]) == selector,
      let mapping = unquoted(arguments[2]), !mapping.isEmpty, let keyPath = sourceKeyPath(arguments[3])
    else { return nil }
    return .destinationInstances(mapping: mapping, keyPath: keyPath)
  }

  /// The components of `$source.a.b`, or `nil`.
  private static func sourceKeyPath(_ text: String) -> [String]? {
    guard text.hasPrefix("$source.") else { return nil }
    let components = text.dropFirst("$source.".count).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    let identifier = { (part: String) in
      guard let first = part.first, first.isLetter || first == "_" else { return false }
      return part.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }
    return components.allSatisfy(identifier) ? components : nil
  }

  /// The text between matching double or single quotes, or `nil`.
  private static func unquoted(_ text: String) -> String? {
    guard text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first else { return nil }
    return String(text.dropFirst().dropLast())
  }
}
