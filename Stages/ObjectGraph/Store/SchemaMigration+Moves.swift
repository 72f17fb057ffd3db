import Foundation
internal import GRDB

/// Rows that an inferred migration moves from one table to another: an entity that joins or leaves an
/// inheritance hierarchy, a parent entity added or removed, an entity moved under another parent. Core
/// Data's SQLite layout keeps a hierarchy in one table (`Z_ENT` telling the entity), so such a change moves
/// the entity's rows.
///
/// The move runs inside the migration's plan and transaction, in four parts:
///
/// 1. **Keys** (phase 1). Each new table that takes moved rows gets a key table `Z_MIGRATING_KEYS<n>`
///    (`NEWPK`, `OLDTABLE`, `OLDPK`). When the new table also keeps rows in place, or takes rows from more
///    than one old table, the moved rows get new keys above every key the table's rows have or its
///    `Z_PRIMARYKEY` row handed out, in the old key order; otherwise they keep their keys. A key that only
///    history remembers (a deleted object's change) gets a new key as well, so no history row ever names a
///    live object it was not about.
/// 2. **Staging** (phase 1, before anything is dropped): each moved entity's rows are copied into
///    `Z_MIGRATING_M<n>` in the new table's columns: attributes that keep their identifier and type keep their
///    values, a new attribute gets its default (a required one without default refuses the migration when
///    there are rows), to-ones keep their old key (remapped below). The pairs of its to-manys kept in an old
///    join table other than the one the new join table is made from are staged in `Z_MIGRATING_P<n>`.
/// 3. **Insert and remap** (phase 4, once every table has its final shape): the staged rows are inserted into
///    their new table (a uniqueness constraint they break fails the migration, which rolls back); every
///    to-one column, to-many foreign key and join-table column that pointed at moved rows takes their new
///    keys; the staged join pairs are inserted; the history's changes (`ACHANGE`) follow the moved rows
///    (and every entity's new number).
/// 4. **Bookkeeping** (phase 5): entity columns of to-ones (`Z<n>_<NAME>`) are filled again from their
///    destination's row, `Z_PRIMARYKEY`'s `Z_MAX` covers the keys the move gave, and the key tables go.
extension SchemaMigration {
  /// The rows of one old entity that move to another table.
  struct MovedEntity {
    let old: SQLiteSchema.EntityTable
    let new: SQLiteSchema.EntityTable
    /// The staging table and the columns filled there: column name and the `SELECT` expression on the old
    /// row (`S`), with its arguments.
    let staging: String
    var columns: [(name: String, value: String, arguments: [DatabaseValue])] = []
  }

  /// Where the keys of the rows that moved into one new table are kept during the migration.
  struct KeyTable {
    let name: String
    /// Whether moved rows get new keys (else they keep their own).
    let renumbers: Bool
    /// The old table migrated in place into this table, if any.
    let inPlace: String?
  }

  /// Pairs of a moved entity's to-many, staged from an old join table the new one is not made from.
  struct StagedPairs {
    let staging: String
    let join: SQLiteSchema.JoinTable
    /// Whether the moved entity's side is the join table's source column.
    let movedIsSource: Bool
    /// The old tables each side's keys belong to, and the new tables they belong to now.
    let moved: (oldTable: String, newTable: String)
    let other: (oldTable: String, newTable: String)
  }

  /// Everything the migration moves between tables.
  struct MovePlan {
    var entities: [MovedEntity] = []
    /// New table → its key table.
    var keyTables: [String: KeyTable] = [:]
    var pairs: [StagedPairs] = []
    /// Whether the store has the engine's history, whose changes follow the moved rows.
    var historyTracked = false
    var isEmpty: Bool { entities.isEmpty }
  }

  // MARK: - Planning

  /// Finds the rows that move between tables and plans their columns, keys and join pairs.
  /// - Throws: 134140 for a relationship of a moved entity that was an attribute; 134110 for a required
  ///   value moved rows do not have and that has no default.
  mutating func planMoves(inPlace: [String: String], joins: [JoinPlan], db: Database) throws {
    var moved: [(old: SQLiteSchema.EntityTable, new: SQLiteSchema.EntityTable)] = []
    for old in source.entities.values.sorted(by: { $0.number < $1.number }) {
      guard let target = mapping.destination(of: old.entity), let new = destination.byIdentity[ObjectIdentifier(target)],
        inPlace[new.table] != old.table
      else { continue }
      moved.append((old, new))
    }
    // The engine's history follows every migration's entity numbers, moved rows or not.
    moves.historyTracked =
      try db.tableExists("ACHANGE") && !NSPersistentStore.hasCoreDataHistory(in: db)
      && Set(try db.columns(in: "ACHANGE").map(\.name)).isSuperset(of: ["ZENTITY", "ZENTITYPK"])
    guard !moved.isEmpty else { return }
    for table in Set(moved.map(\.new.table)).sorted() {
      let origins = Set(moved.filter { $0.new.table == table }.map(\.old.table))
      moves.keyTables[table] = KeyTable(
        name: nextTemporaryName("KEYS"), renumbers: inPlace[table] != nil || origins.count > 1, inPlace: inPlace[table])
    }
    for (old, new) in moved {
      var entity = MovedEntity(old: old, new: new, staging: nextTemporaryName("M"))
      try planMovedColumns(of: &entity, db: db)
      moves.entities.append(entity)
      try planPairs(of: entity, joins: joins)
    }
  }

  /// The columns of the new table a moved entity's rows fill, and their values on the old row.
  private func planMovedColumns(of moved: inout MovedEntity, db: Database) throws {
    guard let pair = mapping.mapping(of: moved.new.entity) else { return }
    let rows = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM \(moved.old.table) WHERE Z_ENT = ?", arguments: [moved.old.number]) ?? 0
    let oldColumns = Set(source.tables[moved.old.table]?.columns.map(\.name) ?? [])
    var handled: Set<String> = []
    var fromOldColumn: [String: String] = [:]
    for slot in moved.new.entity.layout.slots {
      let oldSlot = pair.sourceSlots[slot.index]
      let oldStorage = oldSlot.map { moved.old.storage[$0.index] } ?? .none
      switch moved.new.storage[slot.index] {
      case .column(let column):
        guard handled.insert(column).inserted else { continue }
        let defaultValue =
          slot.attribute.map {
            destination.columnValue(moved.new.entity.layout.initialValues[slot.index], of: slot, type: $0.attributeType)
          }
          ?? .null
        if case .column(let old) = oldStorage {
          fromOldColumn[column] = old
          if !slot.isOptional, oldSlot?.isOptional ?? true {
            if !defaultValue.isNull {
              moved.columns.append((column, "COALESCE(S.\(old), ?)", [defaultValue]))
              continue
            }
            let missing =
              try Int64.fetchOne(
                db, sql: "SELECT COUNT(*) FROM \(moved.old.table) WHERE Z_ENT = ? AND \(old) IS NULL", arguments: [moved.old.number]) ?? 0
            if missing > 0 { throw required(slot, of: moved.new.entity, rows: missing, why: "became required") }
          }
          moved.columns.append((column, "S.\(old)", []))
        } else if !defaultValue.isNull {
          moved.columns.append((column, "?", [defaultValue]))
        } else if !slot.isOptional, slot.attribute != nil, rows > 0 {
          throw required(slot, of: moved.new.entity, rows: rows, why: "is new and required")
        }
      case .toOne(let column, _):
        guard handled.insert(column).inserted else { continue }
        switch oldStorage {
        case .toOne(let old, _):
          fromOldColumn[column] = old
          moved.columns.append((column, "S.\(old)", []))
        case .none:
          if !slot.isOptional, rows > 0 { throw required(slot, of: moved.new.entity, rows: rows, why: "is a new required relationship") }
        case .joinTable(let join, let isOwner):
          // A to-many that became a to-one keeps the member with the lowest key (as in place).
          let (mine, theirs) = isOwner ? (join.sourceColumn, join.destinationColumn) : (join.destinationColumn, join.sourceColumn)
          moved.columns.append((column, "(SELECT MIN(J.\(theirs)) FROM \(join.name) AS J WHERE J.\(mine) = S.Z_PK)", []))
        case .foreignKeyOnDestination(let foreignKey, _):
          guard let oldTarget = oldTargetTable(of: oldSlot) else { continue }
          moved.columns.append(
            (
              column,
              "(SELECT MIN(X.Z_PK) FROM \(oldTarget.table) AS X WHERE X.\(foreignKey) = S.Z_PK AND X.Z_ENT IN (\(oldTarget.numbersIncludingSubentities.map(String.init).joined(separator: ", "))))",
              []
            ))
        case .column:
          throw reshaped(slot, of: moved)
        }
      case .joinTable:
        // A to-one or to-many kept elsewhere that became a join table: its pairs are staged (planPairs).
        if case .column = oldStorage { throw reshaped(slot, of: moved) }
        continue
      case .foreignKeyOnDestination, .none:
        continue
      }
    }
    // The ordering columns (`Z_FOK_…`) of ordered to-manys whose inverse is one of the moved to-ones.
    for column in destination.tables[moved.new.table]?.columns ?? [] where column.name.hasPrefix("Z_FOK_") {
      guard let old = fromOldColumn["Z" + column.name.dropFirst("Z_FOK_".count)] else { continue }
      let oldOrder = "Z_FOK_" + old.dropFirst()
      if oldColumns.contains(oldOrder) { moved.columns.append((column.name, "S.\(oldOrder)", [])) }
    }
  }

  /// The old table (and entity numbers) of the destination of the relationship an old slot held.
  private func oldTargetTable(of oldSlot: EntityLayout.Slot?) -> SQLiteSchema.EntityTable? {
    oldSlot?.relationship?.destinationEntity.flatMap { source.byIdentity[ObjectIdentifier($0)] }
  }

  /// The refusal of a moved entity's relationship whose old storage is an attribute's column (a kind change
  /// the inferred mapping does not make).
  private func reshaped(_ slot: EntityLayout.Slot, of moved: MovedEntity) -> ObjectGraphError {
    ObjectGraphError(
      .migrationMissingMappingModel,
      "Cannot infer a mapping model: the rows of \(moved.old.entity.entityName) move from \(moved.old.table) to \(moved.new.table), and \(moved.new.entity.entityName).\(slot.name) was an attribute's column in the store's version. Keep the attribute and add the relationship under another name, or migrate with a mapping model. The store at \(url.storePath) was left as it was.",
      url: url)
  }

  /// Stages the pairs of a moved entity's to-manys kept in a join table that the new join table is not made
  /// from: an old join table of the moved entity's own relationship, now inherited or shared; or a to-one
  /// column, or the foreign key of a to-many on its members' table, when the relationship or its inverse also
  /// changed between a to-one and a to-many (each to-one value, or each member, becomes one pair). Pairs the
  /// new join table's own plan also copies are inserted once (the join table's key ignores the second).
  private mutating func planPairs(of moved: MovedEntity, joins: [JoinPlan]) throws {
    guard let pair = mapping.mapping(of: moved.new.entity) else { return }
    for slot in moved.new.entity.layout.slots {
      guard case .joinTable(let join, let isOwner) = moved.new.storage[slot.index], let oldSlot = pair.sourceSlots[slot.index],
        !moves.pairs.contains(where: { $0.join.name == join.name && $0.moved.oldTable == moved.old.table }),
        let newTarget = slot.relationship?.destinationEntity,
        let newTargetTable = destination.byIdentity[ObjectIdentifier(newTarget)]?.table,
        let oldTarget = oldTargetTable(of: oldSlot)
      else { continue }
      let select: String
      switch moved.old.storage[oldSlot.index] {
      case .joinTable(let oldJoin, let oldIsOwner):
        guard joins.first(where: { $0.table.name == join.name })?.sourceJoin != oldJoin.name else { continue }
        let mine = oldIsOwner ? oldJoin.sourceColumn : oldJoin.destinationColumn
        let theirs = oldIsOwner ? oldJoin.destinationColumn : oldJoin.sourceColumn
        select =
          "SELECT J.\(mine) AS MINE, J.\(theirs) AS THEIRS FROM \(oldJoin.name) AS J WHERE J.\(mine) IN (SELECT Z_PK FROM \(moved.old.table) WHERE Z_ENT = ?)"
      case .toOne(let column, _):
        select =
          "SELECT Z_PK AS MINE, \(column) AS THEIRS FROM \(moved.old.table) WHERE Z_ENT = ? AND \(column) IS NOT NULL"
      case .foreignKeyOnDestination(let foreignKey, _):
        select =
          "SELECT X.\(foreignKey) AS MINE, X.Z_PK AS THEIRS FROM \(oldTarget.table) AS X WHERE X.\(foreignKey) IN (SELECT Z_PK FROM \(moved.old.table) WHERE Z_ENT = ?) AND X.Z_ENT IN (\(oldTarget.numbersIncludingSubentities.map(String.init).joined(separator: ", ")))"
      case .column, .none:
        continue
      }
      let staging = nextTemporaryName("P")
      add("CREATE TABLE \(staging) AS \(select)", [moved.old.number], weight: rowCounts[moved.old.table] ?? 1)
      moves.pairs.append(
        StagedPairs(
          staging: staging, join: join, movedIsSource: isOwner, moved: (moved.old.table, moved.new.table),
          other: (oldTarget.table, newTargetTable)))
    }
  }

  // MARK: - Phase 1: keys and staging

  /// Phase 1 (first): the key tables, the moved rows' keys, and the moved rows in their staging tables. The
  /// staged join pairs were added while planning (``planPairs(of:joins:)``), before these: they read only the
  /// old tables.
  mutating func stageMovedRows() {
    guard !moves.isEmpty else { return }
    for keys in moves.keyTables.values.sorted(by: { $0.name < $1.name }) {
      add("CREATE TABLE \(keys.name) (NEWPK INTEGER PRIMARY KEY, OLDTABLE TEXT, OLDPK INTEGER)")
      add("CREATE UNIQUE INDEX \(keys.name)_OLD ON \(keys.name) (OLDTABLE, OLDPK)")
      guard keys.renumbers else { continue }
      // The first new key: above every key of the table kept in place, and every key its entities handed out.
      var base = "0"
      if let inPlace = keys.inPlace {
        let numbers = source.entities.values.filter { $0.table == inPlace }.map(\.rootNumber)
        base =
          "MAX(COALESCE((SELECT MAX(Z_MAX) FROM Z_PRIMARYKEY WHERE Z_ENT IN (\(Set(numbers).sorted().map(String.init).joined(separator: ", ")))), 0), COALESCE((SELECT MAX(Z_PK) FROM \(inPlace)), 0))"
      }
      add("INSERT INTO \(keys.name) (NEWPK, OLDTABLE, OLDPK) VALUES (\(base), '', NULL)")
    }
    for moved in moves.entities {
      guard let keys = moves.keyTables[moved.new.table] else { continue }
      let weight = rowCounts[moved.old.table] ?? 1
      if keys.renumbers {
        add(
          "INSERT INTO \(keys.name) (OLDTABLE, OLDPK) SELECT ?, Z_PK FROM \(moved.old.table) WHERE Z_ENT = ? ORDER BY Z_PK",
          [moved.old.table, moved.old.number], weight: weight)
        if moves.historyTracked {
          add(
            "INSERT INTO \(keys.name) (OLDTABLE, OLDPK) SELECT DISTINCT ?, ZENTITYPK FROM ACHANGE WHERE ZENTITY = ? AND ZENTITYPK NOT IN (SELECT OLDPK FROM \(keys.name) WHERE OLDTABLE = ? AND OLDPK IS NOT NULL) ORDER BY ZENTITYPK",
            [moved.old.table, moved.old.number, moved.old.table])
        }
      } else {
        add(
          "INSERT INTO \(keys.name) (NEWPK, OLDTABLE, OLDPK) SELECT Z_PK, ?, Z_PK FROM \(moved.old.table) WHERE Z_ENT = ?",
          [moved.old.table, moved.old.number], weight: weight)
      }
      let values = moved.columns.map { "\($0.value) AS \($0.name)" }
      add(
        "CREATE TABLE \(moved.staging) AS SELECT K.NEWPK AS Z_PK, \(moved.new.number) AS Z_ENT, S.Z_OPT AS Z_OPT\(values.map { ", " + $0 }.joined()) FROM \(moved.old.table) AS S JOIN \(keys.name) AS K ON K.OLDTABLE = '\(moved.old.table)' AND K.OLDPK = S.Z_PK WHERE S.Z_ENT = \(moved.old.number)",
        StatementArguments(moved.columns.flatMap(\.arguments)), weight: weight)
    }
  }

  // MARK: - Phase 4: insert and remap

  /// The key a value that pointed at a row of `oldTable` takes, now that the row is in `newTable`: the
  /// value itself when no row of `oldTable` moved there with a new key.
  private func remapped(_ value: String, from oldTable: String, to newTable: String) -> String {
    guard let keys = moves.keyTables[newTable], keys.renumbers,
      moves.entities.contains(where: { $0.old.table == oldTable && $0.new.table == newTable })
    else { return value }
    return "COALESCE((SELECT K.NEWPK FROM \(keys.name) AS K WHERE K.OLDTABLE = '\(oldTable)' AND K.OLDPK = \(value)), \(value))"
  }

  /// Whether some rows of `oldTable` moved to `newTable` with new keys.
  private func renumbers(from oldTable: String, to newTable: String) -> Bool {
    remapped("V", from: oldTable, to: newTable) != "V"
  }

  /// Phase 4 (after the values are rewritten in place): inserts the moved rows, points every link at their
  /// new keys, inserts the staged join pairs and moves the history.
  mutating func insertMovedRows(joins: [JoinPlan]) {
    guard !moves.isEmpty else {
      moveHistory()
      return
    }
    for moved in moves.entities {
      let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + moved.columns.map(\.name)
      let list = columns.joined(separator: ", ")
      add("INSERT INTO \(moved.new.table) (\(list)) SELECT \(list) FROM \(moved.staging)", weight: rowCounts[moved.old.table] ?? 1)
      add("DROP TABLE \(moved.staging)")
    }
    remapToOnes()
    remapJoins(joins)
    for staged in moves.pairs {
      let mine = remapped("P.MINE", from: staged.moved.oldTable, to: staged.moved.newTable)
      let theirs = remapped("P.THEIRS", from: staged.other.oldTable, to: staged.other.newTable)
      let (source, destination) = staged.movedIsSource ? (mine, theirs) : (theirs, mine)
      add(
        "INSERT OR IGNORE INTO \(staged.join.name) (\(staged.join.sourceColumn), \(staged.join.destinationColumn)) SELECT \(source), \(destination) FROM \(staged.staging) AS P WHERE P.MINE IS NOT NULL AND P.THEIRS IS NOT NULL"
      )
      add("DROP TABLE \(staged.staging)")
    }
    moveHistory()
  }

  /// To-one columns, and the columns of to-manys kept on their members' table, that pointed at moved rows.
  private mutating func remapToOnes() {
    var done: Set<String> = []
    for entity in destination.entities.values.sorted(by: { $0.number < $1.number }) {
      guard let pair = mapping.mapping(of: entity.entity) else { continue }
      for slot in entity.entity.layout.slots {
        guard let relationship = slot.relationship, let newTarget = relationship.destinationEntity,
          let newTargetMapping = destination.byIdentity[ObjectIdentifier(newTarget)]
        else { continue }
        let oldTarget = pair.sourceSlots[slot.index]?.relationship?.destinationEntity ?? mapping.mapping(of: newTarget)?.source
        switch entity.storage[slot.index] {
        case .toOne(let column, _):
          guard let oldTarget, let oldTable = source.byIdentity[ObjectIdentifier(oldTarget)]?.table,
            renumbers(from: oldTable, to: newTargetMapping.table), done.insert("\(entity.table).\(column).\(entity.number)").inserted
          else { continue }
          add(
            "UPDATE \(entity.table) SET \(column) = \(remapped("\(entity.table).\(column)", from: oldTable, to: newTargetMapping.table)) WHERE Z_ENT = ? AND \(column) IS NOT NULL",
            [entity.number], weight: rowCounts.values.max() ?? 1)
        case .foreignKeyOnDestination(let column, _) where relationship.inverseRelationship == nil:
          // A to-many without an inverse kept on its members' table (Core Data's `Z<n><NAME>`): the column
          // holds the owner's key. (With an inverse, the column is the inverse to-one's, remapped above.)
          guard let oldOwner = oldTable(of: entity.entity), renumbers(from: oldOwner, to: entity.table),
            done.insert("\(newTargetMapping.table).\(column)").inserted
          else { continue }
          add(
            "UPDATE \(newTargetMapping.table) SET \(column) = \(remapped("\(newTargetMapping.table).\(column)", from: oldOwner, to: entity.table)) WHERE \(column) IS NOT NULL",
            weight: rowCounts.values.max() ?? 1)
        default:
          continue
        }
      }
    }
  }

  /// Join tables whose pairs name moved rows: each side through negative keys first, so that no pair
  /// collides with one not yet remapped.
  private mutating func remapJoins(_ joins: [JoinPlan]) {
    for join in joins {
      guard let oldOwner = oldTable(of: join.owner.entity) else { continue }
      let oldTarget = mapping.mapping(of: join.owner.entity)?.sourceSlots[join.slot.index]?.relationship?.destinationEntity
      var sides: [(column: String, oldTable: String, newTable: String)] = [(join.table.sourceColumn, oldOwner, join.owner.table)]
      if let oldTarget, let oldTargetTable = source.byIdentity[ObjectIdentifier(oldTarget)]?.table,
        let newTarget = join.slot.relationship?.destinationEntity,
        let newTargetTable = destination.byIdentity[ObjectIdentifier(newTarget)]?.table
      {
        sides.append((join.table.destinationColumn, oldTargetTable, newTargetTable))
      }
      for side in sides where renumbers(from: side.oldTable, to: side.newTable) {
        guard let keys = moves.keyTables[side.newTable] else { continue }
        let name = join.table.name
        add(
          "UPDATE \(name) SET \(side.column) = -(SELECT K.NEWPK FROM \(keys.name) AS K WHERE K.OLDTABLE = '\(side.oldTable)' AND K.OLDPK = \(name).\(side.column)) WHERE \(side.column) IN (SELECT OLDPK FROM \(keys.name) WHERE OLDTABLE = '\(side.oldTable)')",
          weight: rowCounts.values.max() ?? 1)
        add("UPDATE \(name) SET \(side.column) = -\(side.column) WHERE \(side.column) < 0")
      }
    }
  }

  /// The history's changes (`ACHANGE`, the engine's history) follow the objects: moved rows' changes take
  /// their new keys, then every change takes its entity's new number (in every migration that renumbers
  /// entities, rows moved or not).
  private mutating func moveHistory() {
    guard moves.historyTracked else { return }
    for moved in moves.entities {
      guard let keys = moves.keyTables[moved.new.table], keys.renumbers else { continue }
      add(
        "UPDATE ACHANGE SET ZENTITYPK = COALESCE((SELECT K.NEWPK FROM \(keys.name) AS K WHERE K.OLDTABLE = ? AND K.OLDPK = ACHANGE.ZENTITYPK), ZENTITYPK) WHERE ZENTITY = ?",
        [moved.old.table, moved.old.number])
    }
    let renumbered = carried.filter { $0.sourceNumber != $0.number }
    guard !renumbered.isEmpty else { return }
    add(
      "UPDATE ACHANGE SET ZENTITY = CASE ZENTITY \(renumbered.map { "WHEN \($0.sourceNumber) THEN \($0.number)" }.joined(separator: " ")) ELSE ZENTITY END"
    )
  }

  // MARK: - Phase 4 (last): entity columns

  /// Fills the entity column (`Z<n>_<NAME>`) of every to-one again from its destination's row, when rows
  /// moved: a moved row's links and the rows it points at may both have changed.
  mutating func fillEntityColumnsAfterMoves() {
    guard !moves.isEmpty else { return }
    var done: Set<String> = []
    for entity in destination.entities.values.sorted(by: { $0.number < $1.number }) {
      for slot in entity.entity.layout.slots {
        guard case .toOne(let column, let entityColumn?) = entity.storage[slot.index],
          let target = slot.relationship?.destinationEntity, let targetTable = destination.byIdentity[ObjectIdentifier(target)]?.table,
          done.insert("\(entity.table).\(entityColumn)").inserted
        else { continue }
        add(
          "UPDATE \(entity.table) SET \(entityColumn) = (SELECT X.Z_ENT FROM \(targetTable) AS X WHERE X.Z_PK = \(entity.table).\(column))",
          weight: rowCounts.values.max() ?? 1)
      }
    }
  }
}
