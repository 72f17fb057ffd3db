import Foundation

/// A function of `NSExpression`'s predefined list that a predicate computes, named as Apple names it
/// (`init(forFunction:arguments:)`): `sqrt:(x)`, `raise:toPower:(x, y)`, `now()`.
///
/// Each is computed by ``PredicateFunctionEvaluation``, in memory and in SQL alike (the store calls the
/// same code through `og_function` and the `og_median`, `og_mode`, `og_stddev` aggregates), so both give the
/// same answer; the bitwise ones are SQLite's own operators, which the evaluator copies. `nil` in gives `nil`
/// out; a result that is not a number (the square root or logarithm of a negative number) is `nil`, as
/// SQLite stores it.
enum PredicateFunction: String, Sendable, Equatable, CaseIterable {
  case sqrt = "sqrt:"
  /// The base-10 logarithm (Apple: "log:").
  case log = "log:"
  /// The natural logarithm.
  case ln = "ln:"
  case exp = "exp:"
  case floor = "floor:"
  case ceiling = "ceiling:"
  case abs = "abs:"
  case trunc = "trunc:"
  /// `raise:toPower:(x, y)`, also written `x ** y`.
  case raise = "raise:toPower:"
  case modulus = "modulus:by:"
  case lowercase = "lowercase:"
  case uppercase = "uppercase:"
  /// The current date, read when the fetch runs (in SQL, bound once for the whole statement).
  case now = "now"
  /// The median of a collection of numbers (the mean of the middle two for an even count).
  case median = "median:"
  /// The most frequent numbers of a collection: a collection itself, as Apple's `mode:` returns an array.
  case mode = "mode:"
  /// The standard deviation of a collection of numbers (of the population: divided by their count).
  case stddev = "stddev:"
  case bitwiseAnd = "bitwiseAnd:with:"
  case bitwiseOr = "bitwiseOr:with:"
  case bitwiseXor = "bitwiseXor:with:"
  case leftShift = "leftshift:by:"
  case rightShift = "rightshift:by:"
  case onesComplement = "onesComplement:"
  /// An index hint for the store (`noindex:(title)`): its value is its argument's.
  case noindex = "noindex:"
  /// Core Data's hint that a comparison may use an R-tree fetch index (`indexed:by:(latitude, "byLocation")`):
  /// its value is its first argument's; the second names the entity's fetch index.
  case indexedBy = "indexed:by:"

  /// How many arguments the function takes.
  var arity: Int {
    switch self {
    case .now: 0
    case .raise, .modulus, .indexedBy, .bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftShift, .rightShift: 2
    default: 1
    }
  }

  /// Whether the function takes a collection (a to-many's values, an aggregate, an array argument) and
  /// reduces it: `median:`, `mode:`, `stddev:`.
  var takesCollection: Bool { self == .median || self == .mode || self == .stddev }

  /// Whether the function's value is a collection (`mode:`), which is compared as a to-many's values are.
  var givesCollection: Bool { self == .mode }

  /// Whether the function works on whole numbers, bit by bit.
  var isBitwise: Bool {
    switch self {
    case .bitwiseAnd, .bitwiseOr, .bitwiseXor, .leftShift, .rightShift, .onesComplement: true
    default: false
    }
  }

  /// Whether the function takes and gives strings (`lowercase:`, `uppercase:`).
  var isString: Bool { self == .lowercase || self == .uppercase }

  /// The function a name in a format string or given to `NSExpression(forFunction:arguments:)` stands
  /// for: Apple's selector-style name (`"raise:toPower:"`) or the bare word a format writes (`raise`).
  init?(name: String) {
    if let exact = Self(rawValue: name) {
      self = exact
      return
    }
    let word = name.split(separator: ":").first.map(String.init) ?? name
    guard let match = Self.allCases.first(where: { $0.word == word }) else { return nil }
    self = match
  }

  /// The first word of the name: `raise` for `raise:toPower:`.
  var word: String { rawValue.split(separator: ":").first.map(String.init) ?? rawValue }

  /// Apple's functions that a predicate cannot compute here, with why: each name to its reason.
  static let refused: [String: String] = [
    "random":
      "gives a different number at every call, so the store and the in-memory check of unsaved objects could never agree on which objects match; pick the random value before the fetch and pass it as an argument",
    "random:":
      "picks a random member at every call, so the store and the in-memory check of unsaved objects could never agree on which objects match; pick the member before the fetch and pass it as an argument",
    "randomn:":
      "gives a different number at every call, so the store and the in-memory check of unsaved objects could never agree on which objects match; pick the random value before the fetch and pass it as an argument",
  ]
}
