import Foundation
import GRDB

/// The SQL functions the predicate compiler uses where SQLite has no built-in equivalent: string folding
/// for `[c]`/`[d]`, and `MATCHES` (a regular expression that must match the whole string).
enum SQLFunctions {
  static let fold = DatabaseFunction("og_fold", argumentCount: 2, pure: true) { values in
    guard let text = String.fromDatabaseValue(values[0]) else { return nil as String? }
    let flags = Int.fromDatabaseValue(values[1]) ?? 0
    return StringFolding.fold(text, flags: flags)
  }

  static let matches = DatabaseFunction("og_matches", argumentCount: 3, pure: true) { values in
    guard let text = String.fromDatabaseValue(values[0]), let pattern = String.fromDatabaseValue(values[1]) else { return false }
    let flags = Int.fromDatabaseValue(values[2]) ?? 0
    var options: PredicateComparison.Options = []
    if flags & 1 != 0 { options.insert(.caseInsensitive) }
    if flags & 2 != 0 { options.insert(.diacriticInsensitive) }
    // The same matcher the in-memory evaluator uses, so SQL and memory agree.
    return (try? PredicateEvaluator.matches(text, pattern: pattern, options: options)) ?? false
  }

  static func install(in db: Database) {
    db.add(function: fold)
    db.add(function: matches)
  }
}

/// Case and diacritic folding shared by the SQL functions and in-memory comparisons.
enum StringFolding {
  /// `flags`: 1 = case-insensitive, 2 = diacritic-insensitive.
  static func fold(_ text: String, flags: Int) -> String {
    var options: String.CompareOptions = []
    if flags & 1 != 0 { options.insert(.caseInsensitive) }
    if flags & 2 != 0 { options.insert(.diacriticInsensitive) }
    guard !options.isEmpty else { return text }
    return text.folding(options: options, locale: nil)
  }
}
