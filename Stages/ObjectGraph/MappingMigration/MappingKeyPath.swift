import Foundation

/// A key path of a mapping expression (`countries.@distinctUnionOfSets.moods`): keys and Key-Value Coding's
/// collection operators, which Core Data's expressions evaluate with `valueForKeyPath:`.
struct MappingKeyPath: Equatable {
  /// One element of the path.
  enum Step: Equatable {
    case key(String)
    case collection(MappingCollectionOperator)
  }

  var steps: [Step]

  /// The path as written.
  var text: String {
    steps.map { step in
      switch step {
      case .key(let key): key
      case .collection(let collectionOperator): collectionOperator.rawValue
      }
    }.joined(separator: ".")
  }
}

/// Key-Value Coding's collection operators, as Apple's "Using Collection Operators" describes them: each
/// takes the collection at its left and the key path at its right, evaluated for each member.
enum MappingCollectionOperator: String, CaseIterable {
  /// The number of members (the right key path is ignored).
  case count = "@count"
  /// The sum of the right key path's values (nil counts as 0).
  case sum = "@sum"
  /// Their average (nil counts as 0).
  case avg = "@avg"
  /// The smallest value (nil ignored).
  case min = "@min"
  /// The largest value (nil ignored).
  case max = "@max"
  /// The values, duplicates kept (nil ignored).
  case unionOfObjects = "@unionOfObjects"
  /// The values, each once (nil ignored).
  case distinctUnionOfObjects = "@distinctUnionOfObjects"
  /// The members of the collections the values are, duplicates kept.
  case unionOfArrays = "@unionOfArrays"
  /// The members of the collections the values are, each once.
  case distinctUnionOfArrays = "@distinctUnionOfArrays"
  /// The members of the sets the values are, duplicates kept.
  case unionOfSets = "@unionOfSets"
  /// The members of the sets the values are, each once.
  case distinctUnionOfSets = "@distinctUnionOfSets"

  /// The operator a key path element names (`distinctUnionOfSets`, without the `@`), compared as Key-Value
  /// Coding does: exactly.
  init?(name: String) {
    self.init(rawValue: "@" + name)
  }

  /// Whether the operator gives one value (`@count`, `@sum`, `@avg`, `@min`, `@max`) rather than a collection.
  var isAggregate: Bool {
    switch self {
    case .count, .sum, .avg, .min, .max: true
    default: false
    }
  }

  /// Whether the values of the right key path must be collections, whose members are gathered.
  var flattens: Bool {
    switch self {
    case .unionOfArrays, .distinctUnionOfArrays, .unionOfSets, .distinctUnionOfSets: true
    default: false
    }
  }

  /// Whether each member is kept once.
  var isDistinct: Bool {
    self == .distinctUnionOfObjects || self == .distinctUnionOfArrays || self == .distinctUnionOfSets
  }
}
