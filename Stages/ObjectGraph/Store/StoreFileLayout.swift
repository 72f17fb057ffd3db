import Foundation
internal import GRDB

/// What an existing store file says about its own layout: the entity numbers of its `Z_PRIMARYKEY` and the
/// columns of its tables.
///
/// A store is read with the names it has, never with the ones the engine would choose for a new file: Core
/// Data numbers entities in an order of its own and keeps a number for good (a renamed entity keeps its first
/// name in `Z_PRIMARYKEY`), and it numbers join-table columns so that no two are alike in the whole store
/// (`Z_2ARTISTS1`). ``SQLiteSchema`` lays a model out with what this type found ("Files Core Data wrote").
struct StoreFileLayout: Sendable {
  /// One row of `Z_PRIMARYKEY`.
  struct EntityRow: Sendable, Equatable {
    let number: Int64
    let name: String
    /// The superentity's number, 0 for a root.
    let superNumber: Int64
  }

  /// The rows of `Z_PRIMARYKEY` that name an entity, in number order.
  let entityRows: [EntityRow]
  /// The names of the file's tables, as `sqlite_master` spells them.
  let tableNames: Set<String>
  /// The column names of every table, keyed by the table's name in upper case (SQLite's names are
  /// case-insensitive).
  let columns: [String: [String]]

  init(entityRows: [EntityRow], tableNames: Set<String>, columns: [String: [String]]) {
    self.entityRows = entityRows
    self.tableNames = tableNames
    self.columns = columns
  }

  /// Reads the layout of the store open in `db`.
  static func read(in db: Database) throws -> StoreFileLayout {
    var columns: [String: [String]] = [:]
    let tableNames = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
    for table in tableNames {
      let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
      columns[table.uppercased()] = try Row.fetchAll(db, sql: "PRAGMA table_info(\(quoted))").compactMap { $0["name"] as String? }
    }
    var rows: [EntityRow] = []
    if columns["Z_PRIMARYKEY"] != nil {
      // Read as SQLite values: a row edited by hand (text, NULL) is left out, never a trap.
      for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT") {
        guard let number = Int64.fromDatabaseValue(row["Z_ENT"]), let name = String.fromDatabaseValue(row["Z_NAME"]) else { continue }
        rows.append(EntityRow(number: number, name: name, superNumber: Int64.fromDatabaseValue(row["Z_SUPER"]) ?? 0))
      }
    }
    return StoreFileLayout(entityRows: rows, tableNames: Set(tableNames), columns: columns)
  }

  /// The columns of a table, or `nil` when the file has no such table.
  func columns(of table: String) -> [String]? { columns[table.uppercased()] }

  // MARK: - Entity numbers

  /// The number each entity has in this file.
  ///
  /// An entity is found by its name in `Z_PRIMARYKEY`, else by its renaming identifier (Core Data does not
  /// rewrite `Z_NAME` when an entity is renamed); the entities still without a row take the remaining rows
  /// when the order Core Data gives them (`computed`) pairs them one to one with superentities that agree.
  /// Every number must agree with the file's hierarchy (`Z_SUPER`). A file whose `Z_PRIMARYKEY` names no
  /// entity at all (a store whose creation was cut short) takes `computed`, and so does an entity whose row
  /// is missing while its computed number is free (`Z_PRIMARYKEY` is repaired on a read-write open).
  ///
  /// - Throws: ``NSPersistentStoreIncompatibleSchemaError`` when the rows cannot be matched to
  ///   the model: the store would be read and written under other entities' numbers.
  func entityNumbers(for entities: [NSEntityDescription], computed: [String: Int64], url: URL?) throws -> [String: Int64] {
    guard !entityRows.isEmpty else { return computed }
    var numbers: [String: Int64] = [:]
    var taken: Set<Int64> = []
    let byName = Dictionary(entityRows.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    func take(_ entity: NSEntityDescription, _ row: EntityRow) {
      numbers[entity.entityName] = row.number
      taken.insert(row.number)
    }
    for entity in entities { if let row = byName[entity.entityName] { take(entity, row) } }
    for entity in entities where numbers[entity.entityName] == nil {
      if let identifier = entity.renamingIdentifier, identifier != entity.entityName, let row = byName[identifier],
        !taken.contains(row.number), !entities.contains(where: { $0.name == identifier })
      {
        take(entity, row)
      }
    }
    let unmatched = entities.filter { numbers[$0.entityName] == nil }.sorted {
      (computed[$0.entityName] ?? 0) < (computed[$1.entityName] ?? 0)
    }
    let modelNames = Set(entities.map(\.name))
    let freeRows = entityRows.filter { !taken.contains($0.number) && !modelNames.contains($0.name) }
    if !unmatched.isEmpty, unmatched.count == freeRows.count {
      for (entity, row) in zip(unmatched, freeRows) { take(entity, row) }
    } else {
      for entity in unmatched {
        guard let number = computed[entity.entityName], !entityRows.contains(where: { $0.number == number }), !taken.contains(number) else {
          throw mismatch(
            "\(entity.entityName) has no row of its own there (rows: \(describe(entityRows)))", url: url)
        }
        numbers[entity.entityName] = number
        taken.insert(number)
      }
    }
    // The hierarchy must be the file's: a subentity's row names its superentity's number.
    let rowByNumber = Dictionary(entityRows.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
    for entity in entities {
      guard let number = numbers[entity.entityName], let row = rowByNumber[number] else { continue }
      let expected = entity.superentity.flatMap { numbers[$0.entityName] } ?? 0
      guard row.superNumber == expected else {
        throw mismatch(
          "\(entity.entityName) is number \(number) (\(row.name)) there, whose superentity is number \(row.superNumber), but the model makes it \(entity.superentity.map { "a subentity of \($0.entityName) (number \(expected))" } ?? "a root entity")",
          url: url)
      }
    }
    return numbers
  }

  private func describe(_ rows: [EntityRow]) -> String {
    rows.map { "\($0.number) \($0.name)" }.joined(separator: ", ")
  }

  private func mismatch(_ detail: String, url: URL?) -> ObjectGraphError {
    ObjectGraphError(
      .persistentStoreIncompatibleSchema,
      "The store at \(url.storePath) numbers its entities (Z_PRIMARYKEY) in a way this model does not match: \(detail). Reading or saving would mix up entities, so the store was not opened and was left untouched. Open it with the model version that made it, or migrate it with a mapping model.",
      url: url)
  }
}
