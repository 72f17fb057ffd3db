import Foundation

/// The collection operators that reduce a to-many's values to one (`notes.@sum.wordCount`).
enum PredicateCollectionOperator: String, Sendable, CaseIterable {
  case count = "@count"
  case sum = "@sum"
  case avg = "@avg"
  case min = "@min"
  case max = "@max"

  /// The operator a key path element names (`"@sum"`), if it names one.
  init?(element: String) {
    self.init(rawValue: element.lowercased())
  }
}
