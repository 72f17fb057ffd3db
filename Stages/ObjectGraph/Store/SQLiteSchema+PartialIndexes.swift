import Foundation
internal import GRDB

extension SQLiteSchema {
  /// The `WHERE` clause of a partial fetch index (``NSFetchIndexDescription/partialIndexPredicate``), or `nil`
  /// for an index of every row: the predicate compiled as a fetch compiles it, over the index's own table
  /// without aliases, its values written in as literals (an index's condition can have no parameters).
  ///
  /// - Throws: `persistentStoreOpen` naming the index when the predicate does not parse, or needs what SQLite
  ///   refuses in an index's condition (another table, a subquery) or the engine's own SQL functions (string
  ///   options, predicate functions), which other programs reading the store lack.
  func partialIndexCondition(of index: NSFetchIndexDescription, in mapping: EntityTable) throws -> String? {
    guard let predicate = index.partialIndexPredicate else { return nil }
    let place = "The partial index predicate of fetch index '\(index.name)' of entity '\(mapping.entity.entityName)'"
    // An alias no column or keyword can be taken for, removed once the SQL is written.
    let alias = "partial_index_row"
    var compiler = SQLPredicateCompiler(schema: self, mapping: mapping, alias: alias)
    let sql: String
    do {
      sql = try compiler.compile(try FetchPredicate(predicate).resolvedNode)
    } catch {
      throw ObjectGraphError(
        .persistentStoreOpen, "\(place), \(predicate.formatText), cannot be compiled: \(error)", underlyingError: error)
    }
    let unaliased = sql.replacingOccurrences(of: alias + ".", with: "")
    let needsMore = !compiler.joins.isEmpty || unaliased.range(of: "SELECT", options: .caseInsensitive) != nil
    guard !needsMore, !unaliased.contains("og_"), !compiler.arguments.contains(where: Self.isUnwritable) else {
      throw ObjectGraphError(
        .persistentStoreOpen,
        "\(place), \(predicate.formatText), goes beyond what an index's condition may hold: compare the entity's own attributes with constants, without relationships, subqueries, variables, functions or string options ([c], [d], [l]). Change the predicate, or remove it to index every row."
      )
    }
    var arguments = compiler.arguments.makeIterator()
    var condition = ""
    for character in unaliased {
      if character == "?", let value = arguments.next() {
        condition += Self.literal(value)
      } else {
        condition.append(character)
      }
    }
    return condition
  }

  /// A value as an SQL literal: `NULL`, a number, a quoted string, `X'…'` for bytes.
  private static func literal(_ value: DatabaseValue) -> String {
    switch value.storage {
    case .null: "NULL"
    case .int64(let number): String(number)
    case .double(let number): "\(number)"
    case .string(let text): "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    case .blob(let data): "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
    }
  }

  /// Whether a value has no SQL literal: a number that is not finite.
  private static func isUnwritable(_ value: DatabaseValue) -> Bool {
    if case .double(let number) = value.storage { return !number.isFinite }
    return false
  }
}
