import Foundation

/// The collection operators of a to-many key path: those that reduce its values to one
/// (`notes.@sum.wordCount`), and Key-Value Coding's array and set operators, which gather them
/// (`notes.@distinctUnionOfObjects.title`).
enum PredicateCollectionOperator: String, Sendable, CaseIterable {
  case count = "@count"
  case sum = "@sum"
  case avg = "@avg"
  case min = "@min"
  case max = "@max"
  /// The values, each once (`nil` left out).
  case distinctUnionOfObjects = "@distinctUnionOfObjects"
  /// The values, repeats kept (`nil` left out).
  case unionOfObjects = "@unionOfObjects"
  /// The members of the collections the values are, each once: in a key path, whose to-manys are read
  /// member by member, the same as ``distinctUnionOfObjects``.
  case distinctUnionOfArrays = "@distinctUnionOfArrays"
  /// The members of the collections the values are, repeats kept: in a key path, ``unionOfObjects``.
  case unionOfArrays = "@unionOfArrays"
  /// The members of the sets the values are, each once: in a key path, ``distinctUnionOfObjects``.
  case distinctUnionOfSets = "@distinctUnionOfSets"

  /// The operator a key path element names (`"@sum"`, `"@distinctunionofobjects"`), in any case, if it
  /// names one.
  init?(element: String) {
    let lowered = element.lowercased()
    guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == lowered }) else { return nil }
    self = match
  }

  /// The operator `NSExpression`'s aggregate function `name` (`count:`, `sum:`, `average:`, `min:`, `max:`)
  /// applies to a to-many key path (`count:(notes)` is `notes.@count`), if it is one of the five.
  init?(functionName name: String) {
    switch name {
    case "count:": self = .count
    case "sum:": self = .sum
    case "average:": self = .avg
    case "min:": self = .min
    case "max:": self = .max
    default: return nil
    }
  }

  /// `function(path)` as a key path with the operator: `notes.@count` for `count:(notes)`, `notes.@sum.size`
  /// for `sum:(notes.size)`; `nil` for a path too short to hold the operator (`sum:(size)`).
  func keyPath(applyingTo path: [String]) -> [String]? {
    guard !path.isEmpty else { return nil }
    if self == .count { return path + [rawValue] }
    guard path.count >= 2 else { return nil }
    return path.dropLast() + [rawValue, path[path.count - 1]]
  }

  /// Whether the operator gathers the values into a collection rather than reducing them to one.
  var isUnion: Bool {
    switch self {
    case .count, .sum, .avg, .min, .max: false
    default: true
    }
  }

  /// Whether a gathering operator keeps each value once.
  var isDistinct: Bool {
    self == .distinctUnionOfObjects || self == .distinctUnionOfArrays || self == .distinctUnionOfSets
  }
}
