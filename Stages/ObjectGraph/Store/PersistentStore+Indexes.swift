import Foundation
internal import GRDB

extension NSPersistentStore {
  /// Brings a store's fetch indexes in line with the model's, when the store is opened read-write.
  ///
  /// Fetch indexes are not part of an entity's version hash (Core Data documents this), so a model that
  /// only adds, removes or changes an index opens the store without a migration; Core Data then updates
  /// the store's indexes, and so does this, touching only what is its own:
  /// - an index the model wants is created unless the file already has one with the same definition (same
  ///   table, uniqueness and columns; `COLLATE BINARY` and `ASC`, SQLite's defaults, may be written or not),
  ///   under any name: Core Data's own index for it counts;
  /// - an index is dropped only when the engine made it (the store's metadata lists the fetch indexes the
  ///   engine created, ``ObjectGraphFetchIndexNamesKey``; in a store of the engine's format 1 every index
  ///   named `Z_…` but not `…_INDEX` is its own) and the model no longer wants it. An index the engine did
  ///   not make (Core Data's, an app's, one for a uniqueness constraint of a subentity) stays.
  ///
  /// R-tree indexes are virtual tables, brought in line first (``reconcileRTreeIndexes(in:schema:url:)``).
  ///
  /// A store whose indexes already match is only read; otherwise the changes (and, in a store the engine
  /// made, the updated list) are written in the open's transaction (``openExisting``), with
  /// `IF NOT EXISTS`/`IF EXISTS`, so another opener having done the same just before is no error.
  static func reconcileFetchIndexes(
    in db: Database, schema: SQLiteSchema, metadata: [String: any Sendable], url: URL?
  ) throws {
    try reconcileRTreeIndexes(in: db, schema: schema, url: url)
    let wanted = try schema.fetchIndexStatements().compactMap { statement in
      SQLiteSchema.indexName(in: statement).map { (name: $0, statement: statement, definition: IndexDefinition(statement)) }
    }
    let wantedNames = Set(wanted.map(\.name))
    let recorded = Set(metadata[ObjectGraphFetchIndexNamesKey] as? [String] ?? [])
    // Only a store the engine made (it carries the engine's format key) records the indexes the engine made;
    // Core Data's metadata gets no key of the engine's.
    let isEngineStore = metadata[ObjectGraphStoreFormatVersionKey] != nil
    let entityPrefixes = schema.entities.keys.map { "Z_" + $0 + "_" }
    do {
      let existing = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
        .compactMap { row -> (name: String, definition: IndexDefinition)? in
          guard let name = String.fromDatabaseValue(row["name"]), let sql = String.fromDatabaseValue(row["sql"]) else { return nil }
          return (name, IndexDefinition(sql))
        }
      let isOurs = { (name: String) in
        recorded.contains(name)
          || (schema.layout == .engineV1 && SQLiteSchema.isFetchIndexName(name) && entityPrefixes.contains { name.hasPrefix($0) })
      }
      let wantedDefinitions = Dictionary(wanted.map { ($0.name, $0.definition) }, uniquingKeysWith: { first, _ in first })
      // Ours and no longer wanted as it is: dropped (a changed one is made again below).
      let stale = existing.filter { isOurs($0.name) && wantedDefinitions[$0.name] != $0.definition }.map(\.name)
      let staleSet = Set(stale)
      let present = existing.filter { !staleSet.contains($0.name) }
      let takenNames = Set(present.map(\.name))
      let missing = wanted.filter { want in
        !present.contains { $0.definition == want.definition } && !takenNames.contains(want.name)
      }
      let created = recorded.subtracting(staleSet).union(missing.map(\.name)).intersection(wantedNames)
      let recordChanges = isEngineStore && schema.layout == .coreData && recorded != created
      guard !stale.isEmpty || !missing.isEmpty || recordChanges else { return }
      // In the open's transaction, and tolerant of another opener having done the same just before.
      for name in stale.sorted() { try db.execute(sql: "DROP INDEX IF EXISTS \(name.quotedDatabaseIdentifier)") }
      for index in missing {
        var statement = index.statement
        for prefix in ["CREATE UNIQUE INDEX ", "CREATE INDEX "] where statement.hasPrefix(prefix) {
          statement = prefix + "IF NOT EXISTS " + statement.dropFirst(prefix.count)
          break
        }
        try db.execute(sql: statement)
      }
      if isEngineStore {
        try StoreMetadata.update(in: db, with: [ObjectGraphFetchIndexNamesKey: created.sorted()], url: url)
      }
    } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
      throw ObjectGraphError.database(
        .persistentStoreOpen, "A uniqueness constraint of the model cannot be indexed in the store at \(url.storePath)", error,
        advice:
          "Rows already in the store repeat values the constraint forbids (a store written without the constraint, or by another program). The store was left as it was; remove the duplicates, or drop the constraint from the model.",
        url: url)
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreOpen, "Updating the fetch indexes of the store at \(url.storePath) failed", error,
        advice: "The store was left as it was; check that the file is writable.", url: url)
    }
  }
}

/// What an index indexes, read from its `CREATE INDEX` statement, so that two spellings of one index compare
/// equal: its table, whether it is unique, and its columns with their collation and order (SQLite's defaults,
/// `BINARY` and `ASC`, written or not), and any `WHERE` clause.
struct IndexDefinition: Equatable, Sendable {
  let table: String
  let isUnique: Bool
  let columns: [String]
  let condition: String

  init(_ statement: String) {
    let text = statement.trimmingCharacters(in: .whitespacesAndNewlines)
    let upper = text.uppercased()
    isUnique = upper.hasPrefix("CREATE UNIQUE INDEX")
    guard let on = upper.range(of: " ON "), let open = upper[on.upperBound...].firstIndex(of: "("),
      let close = upper[open...].firstIndex(of: ")")
    else {
      table = upper
      columns = []
      condition = ""
      return
    }
    table = upper[on.upperBound..<open].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"`[]"))
    columns = upper[upper.index(after: open)..<close].split(separator: ",").map { part in
      var words = part.split(separator: " ").map(String.init)
      if words.count >= 3, words[1] == "COLLATE", words[2] == "BINARY" { words.removeSubrange(1...2) }
      if words.last == "ASC" { words.removeLast() }
      return words.joined(separator: " ").trimmingCharacters(in: CharacterSet(charactersIn: "\"`[]"))
    }
    condition = upper[upper.index(after: close)...].trimmingCharacters(in: .whitespaces)
  }
}
