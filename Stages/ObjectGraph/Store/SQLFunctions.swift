import Foundation
internal import GRDB

/// The SQL functions the predicate compiler uses where SQLite has no built-in equivalent: string folding
/// for `[c]`/`[d]`, and `MATCHES` (a regular expression that must match the whole string). Both call the
/// in-memory evaluator's own code, so SQL and memory agree. Their last argument is the comparison's
/// options as a number (`PredicateComparison.Options.rawValue`: 1 = `[c]`, 2 = `[d]`).
enum SQLFunctions {
  static let fold = DatabaseFunction("og_fold", argumentCount: 2, pure: true) { values in
    guard let text = String.fromDatabaseValue(values[0]) else { return nil as String? }
    return PredicateEvaluator.fold(text, options(values[1]))
  }

  static let matches = DatabaseFunction("og_matches", argumentCount: 3, pure: true) { values in
    guard let text = String.fromDatabaseValue(values[0]), let pattern = String.fromDatabaseValue(values[1]) else { return false }
    return (try? PredicateEvaluator.matches(text, pattern: pattern, options: options(values[2]))) ?? false
  }

  private static func options(_ value: DatabaseValue) -> PredicateComparison.Options {
    PredicateComparison.Options(rawValue: Int.fromDatabaseValue(value) ?? 0)
  }

  /// One collation per sort comparison other than `compare:` (which is SQLite's `BINARY`), named
  /// `og_` and the comparison's name, calling the comparison the in-memory sort uses.
  static let collations: [FetchSortDescriptor.Comparison: DatabaseCollation] = Dictionary(
    uniqueKeysWithValues: FetchSortDescriptor.Comparison.allCases.filter { $0 != .compare }.map { comparison in
      (comparison, DatabaseCollation(collationName(comparison)) { comparison.order($0, $1) })
    })

  /// `og_localizedStandardCompare` for `.localizedStandardCompare`.
  static func collationName(_ comparison: FetchSortDescriptor.Comparison) -> String {
    "og_" + comparison.rawValue.dropLast()
  }

  static func install(in db: Database) {
    db.add(function: fold)
    db.add(function: matches)
    for collation in collations.values { db.add(collation: collation) }
  }
}
