import Foundation
internal import GRDB

/// The SQL that turns a store file laid out for one model version into the layout of the next, in place,
/// following an ``InferredMapping``.
///
/// The plan is worked out inside the migration's transaction (it counts rows to weigh its steps) and runs
/// in five phases, so that no step reads what an earlier one destroyed and no rename collides with a name
/// still in use:
///
/// 1. **Copy what changes shape**: a relationship that moves between a column and a join table (to-one ↔
///    to-many) is copied into a new structure under a temporary name, read from the old layout.
/// 2. **Drop**: indexes that will not survive, rows of entities that are gone, tables and join tables
///    nothing maps to, columns nothing maps to.
/// 3. **Rename and create**: tables and columns to temporary names, then to their final names; new
///    columns and new tables.
/// 4. **Rewrite values**, one `UPDATE` pass per table, in chunks of rows (so progress moves): entity numbers
///    (`Z_ENT`, which shift when an entity is added or removed before others in name order), defaults of
///    new attributes, defaults for rows without a value in an attribute that became required, entity
///    columns of to-one relationships.
/// 5. **Indexes and bookkeeping**: missing indexes, `Z_PRIMARYKEY`, the metadata, the model kept in the
///    store (`Z_MODELCACHE`).
///
/// Rows that move to another table (an entity joining or leaving a hierarchy, a parent added or removed, an
/// entity moved under another parent) are copied there with their new `Z_ENT` and, where the table already
/// has keys, new `Z_PK`s, and every link to them follows (see `SchemaMigration+Moves.swift`).
///
/// Whatever the plan, no entity that exists in both versions loses or gains a row: ``carried`` lists every
/// entity of the new model that takes the rows of an old one, and the transaction that runs the plan counts
/// their rows before (``countRowsIn(_:)``) and after (``checkRowsOut(against:db:from:)``), refusing with
/// 134110 and writing nothing when a count differs.
struct SchemaMigration {
  /// One unit of work, weighed in rows for progress.
  struct Step {
    enum Action {
      case sql(String, StatementArguments)
      /// `UPDATE <table> SET <assignments>` in chunks of `Z_PK` ranges.
      case chunkedUpdate(table: String, assignments: String, arguments: StatementArguments)
    }
    let action: Action
    let weight: Int64
    /// The statement recorded instead, when the migration is deferred (`nil`: the step always runs now).
    var deferred: String? = nil
  }

  /// An entity of the new model that takes the rows of an entity of the old one: where its rows are
  /// before the migration (table and `Z_ENT`) and where they must all be after it.
  struct CarriedEntity {
    let source: String
    let sourceTable: String
    let sourceNumber: Int64
    let destination: String
    let table: String
    let number: Int64
  }

  private(set) var steps: [Step] = []
  /// Every entity whose rows the migration carries over, in the new model's entity-number order.
  private(set) var carried: [CarriedEntity] = []
  let source: SQLiteSchema
  let destination: SQLiteSchema
  let mapping: InferredMapping
  let url: URL?
  var rowCounts: [String: Int64] = [:]
  private var temporaryNames = 0
  /// The rows that move to another table, and how (`SchemaMigration+Moves.swift`).
  var moves = MovePlan()
  /// The cleanup a deferred lightweight migration leaves for later, in the order it runs: the statements of
  /// the steps marked deferrable, recorded in the metadata (``ObjectGraphDeferredMigrationTasksKey``).
  private(set) var deferredTasks: [String] = []

  /// The total weight of the plan (never 0).
  var totalWeight: Int64 { max(steps.reduce(0) { $0 + $1.weight }, 1) }

  /// Plans the migration of the store open in `db` from `source`'s layout to `destination`'s.
  /// - Throws: 134140 for a relationship whose new destination excludes objects the store links to, or a
  ///   moved entity's relationship that was an attribute; 134110 for a required value that rows do not have
  ///   and that has no default (checked before anything is written).
  init(
    source: SQLiteSchema, destination: SQLiteSchema, mapping: InferredMapping, primaryKeyMaxima: [Int64: Int64],
    metadata: Data, model: Data, url: URL?, deferring: Bool = false, db: Database
  ) throws {
    self.source = source
    self.destination = destination
    self.mapping = mapping
    self.url = url
    for table in source.tables.keys.sorted() {
      rowCounts[table] = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
    }
    for entity in destination.entities.values.sorted(by: { $0.number < $1.number }) {
      guard let old = mapping.mapping(of: entity.entity)?.source, let oldMapping = source.byIdentity[ObjectIdentifier(old)] else {
        continue
      }
      carried.append(
        CarriedEntity(
          source: old.entityName, sourceTable: oldMapping.table, sourceNumber: oldMapping.number, destination: entity.entity.entityName,
          table: entity.table, number: entity.number))
    }
    try checkNarrowedRelationships(db: db)
    let pairs = pairTables()
    var tablePlans: [TablePlan] = []
    for (destinationTable, sourceTable) in pairs.inPlace.sorted(by: { $0.key < $1.key }) {
      tablePlans.append(try planColumns(of: destinationTable, from: sourceTable, db: db))
    }
    let joins = planJoinTables()
    try planMoves(inPlace: pairs.inPlace, joins: joins, db: db)
    try planPhases(tablePlans: tablePlans, joins: joins, pairs: pairs, db: db)
    if deferring {
      deferredTasks = steps.compactMap(\.deferred)
      steps.removeAll { $0.deferred != nil }
    }
    planBookkeeping(
      tablePlans: tablePlans, primaryKeyMaxima: primaryKeyMaxima, metadata: try Self.recording(deferredTasks, in: metadata))
    for statement in StoreModelCache.replaceStatements { add(statement, statement.contains("?") ? [model] : []) }
  }

  // MARK: - Rows in, rows out

  /// The rows of each ``carried`` entity before the migration, counted by the old entity's `Z_ENT` in the
  /// old table (its own rows, not its subentities': each of those is carried, and counted, on its own).
  func countRowsIn(_ db: Database) throws -> [Int64] {
    try carried.map {
      try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0.sourceTable) WHERE Z_ENT = ?", arguments: [$0.sourceNumber]) ?? 0
    }
  }

  /// Counts the rows of each ``carried`` entity after the migration's steps, in the new table under the new
  /// `Z_ENT`, and refuses (134110) when a count differs from `rowsIn`: the transaction rolls back and the
  /// store keeps every row.
  func checkRowsOut(against rowsIn: [Int64], db: Database, from origin: String) throws {
    for (entity, before) in zip(carried, rowsIn) {
      let after = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM \(entity.table) WHERE Z_ENT = ?", arguments: [entity.number]) ?? 0
      guard after != before else { continue }
      let renamed = entity.source == entity.destination ? "" : " (\(entity.source) in the store's version)"
      throw ObjectGraphError(
        .migration,
        "The migration of the store at \(url.storePath) from \(origin) would leave \(entity.destination)\(renamed) with \(after) row(s) where the store has \(before): an inferred migration never drops or adds rows of an entity both versions have. Nothing was written. Check the store's rows (\(entity.sourceTable).Z_ENT) against its Z_PRIMARYKEY, and report the models and the store if they agree.",
        url: url)
    }
  }

  // MARK: - Narrowed relationships

  /// Refuses (134140) a relationship whose destination changed (narrowed to a subentity, or another entity:
  /// see ``InferredMapping/EntityPair/narrowedSlots``) when the store has links to members that are not of
  /// the new destination: such a link has no place after the migration, and is never dropped silently.
  private func checkNarrowedRelationships(db: Database) throws {
    for entityMapping in mapping.entities {
      guard let oldOwner = entityMapping.source.flatMap({ source.byIdentity[ObjectIdentifier($0)] }) else { continue }
      for index in entityMapping.narrowedSlots.sorted() {
        let slot = entityMapping.destination.layout.slots[index]
        guard let old = entityMapping.sourceSlots[index], let oldTarget = old.relationship?.destinationEntity,
          let oldTargetMapping = source.byIdentity[ObjectIdentifier(oldTarget)],
          let newTarget = slot.relationship?.destinationEntity
        else { continue }
        let accepted = source.entities.values.filter { candidate in
          mapping.destination(of: candidate.entity).map { $0.isKind(of: newTarget) } ?? false
        }.map(\.number)
        let outside = accepted.isEmpty ? "1" : "X.Z_ENT NOT IN (\(accepted.sorted().map(String.init).joined(separator: ", ")))"
        let targets = oldTargetMapping.numbersIncludingSubentities.map(String.init).joined(separator: ", ")
        let sql: String
        switch oldOwner.storage[old.index] {
        case .toOne(let column, _):
          let owners = oldOwner.numbersIncludingSubentities.map(String.init).joined(separator: ", ")
          sql =
            "SELECT COUNT(*) FROM \(oldOwner.table) AS T JOIN \(oldTargetMapping.table) AS X ON X.Z_PK = T.\(column) WHERE T.Z_ENT IN (\(owners)) AND X.Z_ENT IN (\(targets)) AND \(outside)"
        case .foreignKeyOnDestination(let column, _):
          sql =
            "SELECT COUNT(*) FROM \(oldTargetMapping.table) AS X WHERE X.\(column) IS NOT NULL AND X.Z_ENT IN (\(targets)) AND \(outside)"
        case .joinTable(let join, _):
          sql =
            "SELECT COUNT(*) FROM \(join.name) AS J JOIN \(oldTargetMapping.table) AS X ON X.Z_PK = J.\(join.destinationColumn) WHERE X.Z_ENT IN (\(targets)) AND \(outside)"
        case .column, .none:
          continue
        }
        let links = try Int64.fetchOne(db, sql: sql) ?? 0
        guard links > 0 else { continue }
        throw ObjectGraphError(
          .migrationMissingMappingModel,
          "Cannot infer a mapping model: \(entityMapping.destination.entityName).\(slot.name) pointed to \(oldTarget.entityName) and now points to \(newTarget.entityName), but \(links) of its links in the store at \(url.storePath) point to objects that are not \(newTarget.entityName). A lightweight migration cannot carry them and does not drop them. Migrate with a mapping model, or remove those links with the old version first. The store was left as it was.",
          url: url)
      }
    }
  }

  // MARK: - Tables

  struct TablePairs {
    /// Destination table → the source table it is migrated from, in place.
    var inPlace: [String: String] = [:]
    /// Destination tables that start empty (or take only rows that move in).
    var new: [String] = []
  }

  /// Pairs each table of the new layout with the old table it is migrated from in place, if any: the old
  /// table of the same name when the new root's rows come from it, else the old table of the new root's rows,
  /// else the first old table any of its entities' rows come from. An old table is migrated in place into one
  /// new table at most; the rows of an old entity whose new table is not its old table's partner move
  /// (``planMoves(inPlace:joins:db:)``).
  private func pairTables() -> TablePairs {
    var pairs = TablePairs()
    let tables = destination.tables.keys.sorted()
    var sources: [String: [String]] = [:]
    var rootSources: [String: String] = [:]
    for table in tables {
      let entities = destination.entities.values.filter { $0.table == table }
      sources[table] = Set(entities.compactMap { oldTable(of: $0.entity) }).sorted()
      if let root = entities.first(where: { $0.number == $0.rootNumber }) { rootSources[table] = oldTable(of: root.entity) }
    }
    var claimed: Set<String> = []
    func claim(_ table: String, _ source: String?) {
      guard pairs.inPlace[table] == nil, let source, !claimed.contains(source) else { return }
      pairs.inPlace[table] = source
      claimed.insert(source)
    }
    for table in tables where rootSources[table] == table { claim(table, table) }
    for table in tables { claim(table, rootSources[table]) }
    for table in tables { claim(table, sources[table]?.first { !claimed.contains($0) }) }
    pairs.new = tables.filter { pairs.inPlace[$0] == nil }
    return pairs
  }

  /// The old table the rows of a new entity come from, or `nil` for a new entity.
  func oldTable(of entity: NSEntityDescription) -> String? {
    mapping.mapping(of: entity)?.source.flatMap { source.byIdentity[ObjectIdentifier($0)]?.table }
  }

  // MARK: - Columns

  /// What happens to one table that is migrated in place.
  private struct TablePlan {
    let table: String
    let sourceTable: String
    /// Old column → new column, for columns whose values are kept.
    var kept: [String: String] = [:]
    /// New columns filled in phase 1 from the old layout: temporary name, final name, type, value.
    var copied: [(temporary: String, final: String, type: String, value: String)] = []
    /// New columns, added in phase 3.
    var added: [(name: String, type: String)] = []
    /// `column = value` assignments of phase 4, evaluated on the old row (old entity numbers).
    var assignments: [(String, [DatabaseValue])] = []
    /// Entity columns of to-one relationships filled from the destination row's entity in phase 4.
    var entityColumns: [(column: String, keyColumn: String, destinationTable: String)] = []
    /// Entity numbers whose rows are deleted (their entity is gone).
    var deletedNumbers: [Int64] = []
  }

  private mutating func planColumns(of table: String, from sourceTable: String, db: Database) throws -> TablePlan {
    var plan = TablePlan(table: table, sourceTable: sourceTable)
    let sourceEntities = source.entities.values.filter { $0.table == sourceTable }.sorted { $0.number < $1.number }
    // Entity numbers: old → new; rows of entities that are gone are deleted.
    var renumbered: [(Int64, Int64)] = []
    for entity in sourceEntities {
      // Rows of entities that are gone are deleted; rows that move to another table are copied there first
      // (phase 1), then deleted here.
      guard let target = mapping.destination(of: entity.entity), let targetMapping = destination.byIdentity[ObjectIdentifier(target)],
        targetMapping.table == table
      else {
        plan.deletedNumbers.append(entity.number)
        continue
      }
      if targetMapping.number != entity.number { renumbered.append((entity.number, targetMapping.number)) }
    }
    if !renumbered.isEmpty {
      plan.assignments.append(
        ("Z_ENT = CASE Z_ENT \(renumbered.map { "WHEN \($0.0) THEN \($0.1)" }.joined(separator: " ")) ELSE Z_ENT END", []))
    }
    // Entities whose rows stay in this table come first, so that a column several entities share (one a new
    // parent declares, that a child had before) keeps the old column's values.
    let entities = destination.entities.values.filter { $0.table == table }.sorted { lhs, rhs in
      let (left, right) = (oldTable(of: lhs.entity) == sourceTable, oldTable(of: rhs.entity) == sourceTable)
      return left != right ? left : lhs.number < rhs.number
    }
    var handled: Set<String> = []
    for entity in entities {
      guard let entityMapping = mapping.mapping(of: entity.entity) else { continue }
      // An entity whose rows move in from another table has no old column here: its columns are new to this
      // table (its rows' values come with them: SchemaMigration+Moves.swift).
      let sourceMapping = entityMapping.source.flatMap { source.byIdentity[ObjectIdentifier($0)] }.flatMap {
        $0.table == sourceTable ? $0 : nil
      }
      for slot in entity.entity.layout.slots {
        let oldSlot = entityMapping.sourceSlots[slot.index]
        let oldStorage = oldSlot.flatMap { old in sourceMapping.map { $0.storage[old.index] } } ?? .none
        switch entity.storage[slot.index] {
        case .column(let column):
          guard handled.insert(column).inserted else { continue }
          try planAttribute(
            slot, column: column, oldSlot: oldSlot, oldStorage: oldStorage, entity: entity.entity, in: &plan, db: db)
        case .toOne(let column, let entityColumn):
          guard handled.insert(column).inserted else { continue }
          try planToOne(
            slot, column: column, entityColumn: entityColumn, oldStorage: oldStorage, entity: entity, in: &plan, db: db)
        case .none where slot.isComposite && slot.compositeOwner == nil && !slot.isOptional && !slot.isTransient:
          guard handled.insert(slot.name).inserted else { continue }
          try checkNewRequiredComposite(slot, entity: entity, sourceSlots: entityMapping.sourceSlots, plan: plan, db: db)
        case .foreignKeyOnDestination, .joinTable, .none:
          continue
        }
      }
    }
    planOrderColumns(in: &plan)
    return plan
  }

  /// The ordering columns (`Z_FOK_…`) of ordered to-manys stored in this table: each keeps the old column
  /// of the same relationship (found through its foreign key's old column) or is added empty, so that the
  /// members of a relationship that becomes ordered read in primary-key order until it is next saved.
  private func planOrderColumns(in plan: inout TablePlan) {
    let oldColumns = Set(source.tables[plan.sourceTable]?.columns.map(\.name) ?? [])
    for column in destination.tables[plan.table]?.columns ?? [] where column.name.hasPrefix("Z_FOK_") {
      let foreignKey = "Z" + column.name.dropFirst("Z_FOK_".count)
      let oldForeignKey = plan.kept.first(where: { $0.value == foreignKey })?.key
      let oldColumn = oldForeignKey.map { "Z_FOK_" + $0.dropFirst() }
      if let oldColumn, oldColumns.contains(oldColumn), plan.kept[oldColumn] == nil {
        plan.kept[oldColumn] = column.name
      } else {
        plan.added.append((column.name, column.type))
      }
    }
  }

  /// Old numbers of the entities of `table` that hold `column` (they or a superentity declare it), for
  /// conditions on the old rows; `nil` when every surviving row of the table holds it.
  private func holders(of column: String, in plan: TablePlan) -> [Int64]? {
    var numbers: [Int64] = []
    var all = true
    for entity in destination.entities.values where entity.table == plan.table {
      let holds = entity.storage.contains { storage in
        switch storage {
        case .column(let name), .toOne(let name, _): return name == column
        default: return false
        }
      }
      // Entities that are new, or whose rows move in from another table, have no rows here yet.
      guard let old = mapping.mapping(of: entity.entity)?.source.flatMap({ source.byIdentity[ObjectIdentifier($0)] }),
        old.table == plan.sourceTable
      else { continue }
      if holds { numbers.append(old.number) } else { all = false }
    }
    return all ? nil : numbers.sorted()
  }

  /// A required composite new in this version: its element columns are added with the elements' defaults,
  /// and, as for a new required attribute, the migration is refused when rows of the store would be left without
  /// a value for it (no element has a default) or for one of its required elements (one without a default).
  private func checkNewRequiredComposite(
    _ slot: EntityLayout.Slot, entity: SQLiteSchema.EntityTable, sourceSlots: [EntityLayout.Slot?], plan: TablePlan,
    db: Database
  ) throws {
    let layout = entity.entity.layout
    let elements = layout.slots.filter { $0.compositeOwner == slot.index && !$0.isComposite }
    guard !elements.contains(where: { sourceSlots[$0.index] != nil }),
      case .column(let column)? = elements.first.map({ entity.storage[$0.index] })
    else { return }
    let defaults = layout.initialValues
    let missing =
      elements.allSatisfy { defaults[$0.index] == nil }
      ? slot
      : elements.first { slot.compositeChildren.contains($0.index) && $0.isRequiredElement && defaults[$0.index] == nil }
    guard let missing else { return }
    let rows =
      try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM \(plan.sourceTable) WHERE \(condition(holders(of: column, in: plan)))") ?? 0
    if rows > 0 { throw required(missing, of: entity.entity, rows: rows, why: "is new and required") }
  }

  private func condition(_ holders: [Int64]?) -> String {
    guard let holders else { return "1" }
    return holders.isEmpty ? "0" : "Z_ENT IN (\(holders.map(String.init).joined(separator: ", ")))"
  }

  private mutating func planAttribute(
    _ slot: EntityLayout.Slot, column: String, oldSlot: EntityLayout.Slot?, oldStorage: SQLiteSchema.SlotStorage,
    entity: NSEntityDescription, in plan: inout TablePlan, db: Database
  ) throws {
    guard let attribute = slot.attribute else { return }
    let holders = holders(of: column, in: plan)
    let defaultValue = destination.columnValue(entity.layout.initialValues[slot.index], of: slot, type: attribute.attributeType)
    if case .column(let old) = oldStorage, plan.kept[old] == nil {
      plan.kept[old] = column
      guard !slot.isOptional, oldSlot?.isOptional ?? true else { return }
      // Optional → required: rows without a value get the default, or the migration cannot go on.
      if !defaultValue.isNull {
        plan.assignments.append(
          ("\(column) = CASE WHEN \(condition(holders)) THEN COALESCE(\(column), ?) ELSE \(column) END", [defaultValue]))
      } else {
        let missing =
          try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM \(plan.sourceTable) WHERE \(old) IS NULL AND \(condition(holders))") ?? 0
        if missing > 0 { throw required(slot, of: entity, rows: missing, why: "became required") }
      }
      return
    }
    plan.added.append((column, SQLiteSchema.sqlType(attribute.attributeType)))
    if !defaultValue.isNull {
      plan.assignments.append(("\(column) = CASE WHEN \(condition(holders)) THEN ? ELSE NULL END", [defaultValue]))
    } else if !slot.isOptional {
      let rows = try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM \(plan.sourceTable) WHERE \(condition(holders))") ?? 0
      if rows > 0 { throw required(slot, of: entity, rows: rows, why: "is new and required") }
    }
  }

  private mutating func planToOne(
    _ slot: EntityLayout.Slot, column: String, entityColumn: String?, oldStorage: SQLiteSchema.SlotStorage,
    entity: SQLiteSchema.EntityTable, in plan: inout TablePlan, db: Database
  ) throws {
    guard let target = slot.relationship?.destinationEntity, let targetMapping = destination.byIdentity[ObjectIdentifier(target)]
    else { return }
    var value: String?
    switch oldStorage {
    case .toOne(let old, let oldEntityColumn) where plan.kept[old] == nil:
      plan.kept[old] = column
      if let entityColumn {
        if let oldEntityColumn, plan.kept[oldEntityColumn] == nil {
          plan.kept[oldEntityColumn] = entityColumn
          let map = source.entities.values.compactMap { old -> (Int64, Int64)? in
            guard let new = mapping.destination(of: old.entity), let number = destination.byIdentity[ObjectIdentifier(new)]?.number,
              number != old.number
            else { return nil }
            return (old.number, number)
          }
          if !map.isEmpty {
            plan.assignments.append(
              (
                "\(entityColumn) = CASE \(entityColumn) \(map.map { "WHEN \($0.0) THEN \($0.1)" }.joined(separator: " ")) ELSE \(entityColumn) END",
                []
              ))
          }
        } else {
          plan.added.append((entityColumn, "INTEGER"))
          plan.entityColumns.append((entityColumn, column, targetMapping.table))
        }
      }
      return
    case .joinTable(let join, _):
      value = "(SELECT MIN(J.\(join.destinationColumn)) FROM \(join.name) AS J WHERE J.\(join.sourceColumn) = T.Z_PK)"
    case .foreignKeyOnDestination(let foreignKey, _):
      if let oldTarget = oldDestination(ofSlotMappedTo: slot, in: entity),
        let oldTargetMapping = source.byIdentity[ObjectIdentifier(oldTarget)]
      {
        value =
          "(SELECT MIN(X.Z_PK) FROM \(oldTargetMapping.table) AS X WHERE X.\(foreignKey) = T.Z_PK AND X.Z_ENT IN (\(oldTargetMapping.numbersIncludingSubentities.map(String.init).joined(separator: ", "))))"
      }
    default:
      value = ownerFromInverse(of: slot, in: plan)
    }
    if let value {
      let temporary = nextTemporaryName("C")
      plan.copied.append((temporary, column, "INTEGER", value))
    } else {
      plan.added.append((column, "INTEGER"))
      if !slot.isOptional {
        let rows =
          try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM \(plan.sourceTable) WHERE \(condition(holders(of: column, in: plan)))") ?? 0
        if rows > 0 { throw required(slot, of: entity.entity, rows: rows, why: "is a new required relationship") }
      }
    }
    if let entityColumn {
      plan.added.append((entityColumn, "INTEGER"))
      plan.entityColumns.append((entityColumn, column, targetMapping.table))
    }
  }

  /// The owner of a row for a to-one that is new in this version but whose inverse to-many was there
  /// without an inverse (Artsy's `Document.album`, the new inverse of v1.5's `Album.documents`): the
  /// members the old to-many held, from its column on this table (Core Data's `Z<n><NAME>`) or its join
  /// table (the engine's), as Core Data's migration fills the inverse when it sets the to-many. `nil` when
  /// the inverse was not there either.
  private func ownerFromInverse(of slot: EntityLayout.Slot, in plan: TablePlan) -> String? {
    guard let inverse = slot.relationship?.inverseRelationship, inverse.isToMany, let owner = slot.relationship?.destinationEntity,
      let ownerMapping = mapping.mapping(of: owner), let inverseIndex = owner.layout.index(of: inverse.name),
      let oldInverse = ownerMapping.sourceSlots[inverseIndex], oldInverse.relationship?.inverseRelationship == nil,
      let oldOwner = ownerMapping.source, let oldOwnerMapping = source.byIdentity[ObjectIdentifier(oldOwner)]
    else { return nil }
    switch oldOwnerMapping.storage[oldInverse.index] {
    case .foreignKeyOnDestination(let column, _):
      // The column is on the old members' table (found there when the store was read).
      guard let oldMember = oldInverse.relationship?.destinationEntity,
        source.byIdentity[ObjectIdentifier(oldMember)]?.table == plan.sourceTable
      else { return nil }
      return "T.\(column)"
    case .joinTable(let join, true) where !join.name.isEmpty:
      return "(SELECT MIN(J.\(join.sourceColumn)) FROM \(join.name) AS J WHERE J.\(join.destinationColumn) = T.Z_PK)"
    default:
      return nil
    }
  }

  /// The old destination entity of the relationship the destination slot was mapped from.
  private func oldDestination(ofSlotMappedTo slot: EntityLayout.Slot, in entity: SQLiteSchema.EntityTable) -> NSEntityDescription? {
    mapping.mapping(of: entity.entity)?.sourceSlots[slot.index]?.relationship?.destinationEntity
  }

  func required(_ slot: EntityLayout.Slot, of entity: NSEntityDescription, rows: Int64, why: String) -> ObjectGraphError {
    ObjectGraphError(
      .migration,
      "The store at \(url.storePath) cannot be migrated: \(entity.entityName).\(slot.name) \(why) and has no default value, but \(rows) row(s) of the store have no value for it. Give it a default value in the new model version, or keep it optional. The store was left as it was.",
      url: url)
  }

  mutating func nextTemporaryName(_ kind: String) -> String {
    temporaryNames += 1
    return "Z_MIGRATING_\(kind)\(temporaryNames)"
  }

  // MARK: - Join tables

  struct JoinPlan {
    let table: SQLiteSchema.JoinTable
    /// The entity that owns the join table, and the slot of its relationship.
    let owner: SQLiteSchema.EntityTable
    let slot: EntityLayout.Slot
    /// The old join table its pairs come from, if they come from one.
    var sourceJoin: String?
    /// Reuse an old join table, renaming it and its columns.
    var reused: SQLiteSchema.JoinTable?
    /// Or fill a new one from the old layout with this `SELECT` of (source, destination) pairs.
    var pairs: String?
    var temporary: String?
  }

  private mutating func planJoinTables() -> [JoinPlan] {
    var plans: [JoinPlan] = []
    var reused: Set<String> = []
    for entity in destination.entities.values.sorted(by: { $0.number < $1.number }) {
      for slot in entity.entity.layout.slots {
        guard case .joinTable(let join, true) = entity.storage[slot.index], !plans.contains(where: { $0.table.name == join.name }),
          let entityMapping = mapping.mapping(of: entity.entity)
        else { continue }
        var plan = JoinPlan(table: join, owner: entity, slot: slot)
        let sourceMapping = entityMapping.source.flatMap { source.byIdentity[ObjectIdentifier($0)] }
        if let oldSlot = entityMapping.sourceSlots[slot.index], let sourceMapping {
          switch sourceMapping.storage[oldSlot.index] {
          case .joinTable(let old, _) where !reused.contains(old.name):
            reused.insert(old.name)
            plan.reused = old
            plan.sourceJoin = old.name
          case .joinTable(let old, _):
            plan.pairs = "SELECT \(old.sourceColumn), \(old.destinationColumn) FROM \(old.name)"
            plan.sourceJoin = old.name
          case .toOne(let column, _):
            plan.pairs =
              "SELECT Z_PK, \(column) FROM \(sourceMapping.table) WHERE \(column) IS NOT NULL AND Z_ENT IN (\(sourceMapping.numbersIncludingSubentities.map(String.init).joined(separator: ", ")))"
          case .foreignKeyOnDestination(let foreignKey, _):
            if let oldTarget = oldSlot.relationship?.destinationEntity, let targetMapping = source.byIdentity[ObjectIdentifier(oldTarget)] {
              plan.pairs =
                "SELECT \(foreignKey), Z_PK FROM \(targetMapping.table) WHERE \(foreignKey) IS NOT NULL AND Z_ENT IN (\(targetMapping.numbersIncludingSubentities.map(String.init).joined(separator: ", ")))"
            }
          case .column, .none:
            break
          }
        }
        if plan.reused == nil { plan.temporary = nextTemporaryName("J") }
        plans.append(plan)
      }
    }
    return plans
  }

  // MARK: - Phases

  mutating func add(_ sql: String, _ arguments: StatementArguments = [], weight: Int64 = 1, deferred: String? = nil) {
    steps.append(Step(action: .sql(sql, arguments), weight: max(weight, 1), deferred: deferred))
  }

  /// `metadata` with the deferred tasks recorded (both keys set), or without the keys when there are none
  /// (a migration runs what an earlier one deferred first).
  private static func recording(_ tasks: [String], in metadata: Data) throws -> Data {
    guard var decoded = StoreMetadata.decode(metadata) else { return metadata }
    decoded[NSPersistentStoreDeferredLightweightMigrationOptionKey] = tasks.isEmpty ? nil : true
    decoded[ObjectGraphDeferredMigrationTasksKey] = tasks.isEmpty ? nil : tasks
    return try StoreMetadata.encode(decoded)
  }

  /// Plans the migration's steps, in five phases that run in this order.
  private mutating func planPhases(tablePlans: [TablePlan], joins: [JoinPlan], pairs: TablePairs, db: Database) throws {
    let creates = try destination.createStatements()
    // R-tree indexes' triggers would block dropping or renaming columns: dropped, made again on open.
    for statement in try NSPersistentStore.rTreeDropStatements(in: db) { add(statement) }
    let survivingIndexes = survivingIndexNames(tablePlans: tablePlans, joins: joins, creates: creates)
    stageMovedRows()
    copyWhatChangesShape(tablePlans: tablePlans, joins: joins)
    try dropWhatDoesNotSurvive(tablePlans: tablePlans, joins: joins, pairs: pairs, survivingIndexes: survivingIndexes, db: db)
    renameAndCreate(tablePlans: tablePlans, joins: joins, pairs: pairs, creates: creates)
    rewriteValues(tablePlans: tablePlans, joins: joins)
    createNewIndexes(tablePlans: tablePlans, creates: creates, survivingIndexes: survivingIndexes)
  }

  /// Phase 1: copies what changes shape (a column whose values change type, a join table rebuilt), from
  /// the old layout, into temporary columns and tables.
  private mutating func copyWhatChangesShape(tablePlans: [TablePlan], joins: [JoinPlan]) {
    for plan in tablePlans {
      for copy in plan.copied {
        add("ALTER TABLE \(plan.sourceTable) ADD COLUMN \(copy.temporary) \(copy.type)")
        add(
          "UPDATE \(plan.sourceTable) AS T SET \(copy.temporary) = \(copy.value)",
          weight: rowCounts[plan.sourceTable] ?? 1)
      }
    }
    for join in joins {
      guard let temporary = join.temporary else { continue }
      let table = join.table
      add(SQLiteSchema.createStatement(table.renamed(temporary)))
      if let pairs = join.pairs {
        add(
          "INSERT OR IGNORE INTO \(temporary) (\(table.sourceColumn), \(table.destinationColumn)) \(pairs)",
          weight: rowCounts.values.max() ?? 1)
      }
    }
  }

  /// Phase 2: drops the indexes that will not survive, then the rows, tables and columns nothing maps to.
  private mutating func dropWhatDoesNotSurvive(
    tablePlans: [TablePlan], joins: [JoinPlan], pairs: TablePairs, survivingIndexes: Set<String>, db: Database
  ) throws {
    // Only indexes of the tables the migration rewrites: one on another table (Core Data's history tables,
    // an app's own) is not the engine's to drop.
    let rewritten = Set(source.tables.keys).union(source.joinTables.keys)
    // A deferred migration leaves non-unique indexes for later (a unique one could refuse rows the new model
    // allows, so it goes now).
    for index in try existingIndexes(db: db, on: rewritten) where !survivingIndexes.contains(index.name) {
      add("DROP INDEX \(index.name)", deferred: index.isUnique ? nil : "DROP INDEX IF EXISTS \(index.name)")
    }
    for plan in tablePlans where !plan.deletedNumbers.isEmpty {
      add(
        "DELETE FROM \(plan.sourceTable) WHERE Z_ENT IN (\(plan.deletedNumbers.map(String.init).joined(separator: ", ")))",
        weight: rowCounts[plan.sourceTable] ?? 1)
    }
    let keptTables = Set(pairs.inPlace.values)
    // A table the new layout does not name may wait for a deferred migration's finish.
    let newNames = Set(destination.tables.keys).union(destination.joinTables.keys)
    for table in source.tables.keys.sorted() where !keptTables.contains(table) {
      add("DROP TABLE \(table)", deferred: newNames.contains(table) ? nil : "DROP TABLE IF EXISTS \(table)")
    }
    let reusedJoins = Set(joins.compactMap { $0.reused?.name })
    for join in source.joinTables.keys.sorted() where !reusedJoins.contains(join) { add("DROP TABLE \(join)") }
    for plan in tablePlans {
      let columns = source.tables[plan.sourceTable]?.columns.map(\.name) ?? []
      // A column the new table does not name may wait for a deferred migration's finish (by the table's new
      // name); one the table takes again, under another meaning, goes now.
      let newColumns = Set(destination.tables[plan.table]?.columns.map(\.name) ?? [])
      for column in columns where plan.kept[column] == nil {
        add(
          "ALTER TABLE \(plan.sourceTable) DROP COLUMN \(column)", weight: rowCounts[plan.sourceTable] ?? 1,
          deferred: newColumns.contains(column) ? nil : "ALTER TABLE \(plan.table) DROP COLUMN \(column)")
      }
    }
  }

  /// Phase 3: renames tables and columns (through temporary names, so that no name is taken twice) and
  /// creates the new tables.
  private mutating func renameAndCreate(tablePlans: [TablePlan], joins: [JoinPlan], pairs: TablePairs, creates: [String]) {
    var finalNames: [(temporary: String, final: String)] = []
    for plan in tablePlans {
      var current = plan.sourceTable
      if plan.table != plan.sourceTable {
        current = nextTemporaryName("T")
        add("ALTER TABLE \(plan.sourceTable) RENAME TO \(current)")
        finalNames.append((current, plan.table))
      }
      var columnFinals: [(String, String)] = []
      for (old, new) in plan.kept.sorted(by: { $0.key < $1.key }) where old != new {
        let temporary = nextTemporaryName("C")
        add("ALTER TABLE \(current) RENAME COLUMN \(old) TO \(temporary)")
        columnFinals.append((temporary, new))
      }
      columnFinals += plan.copied.map { ($0.temporary, $0.final) }
      for (temporary, final) in columnFinals { add("ALTER TABLE \(current) RENAME COLUMN \(temporary) TO \(final)") }
      for column in plan.added { add("ALTER TABLE \(current) ADD COLUMN \(column.name) \(column.type)") }
    }
    for join in joins {
      if let old = join.reused {
        let temporary = nextTemporaryName("J")
        add("ALTER TABLE \(old.name) RENAME TO \(temporary)")
        var columns = [(old.sourceColumn, join.table.sourceColumn), (old.destinationColumn, join.table.destinationColumn)]
        // Ordering columns: kept when both layouts order that side, dropped or added when one does.
        for (from, to) in [
          (old.destinationOrderColumn, join.table.destinationOrderColumn), (old.sourceOrderColumn, join.table.sourceOrderColumn),
        ] {
          if let from, let to {
            columns.append((from, to))
          } else if let from {
            add("ALTER TABLE \(temporary) DROP COLUMN \(from)")
          }
        }
        var renamed: [(String, String)] = []
        for (from, to) in columns where from != to {
          let column = nextTemporaryName("C")
          add("ALTER TABLE \(temporary) RENAME COLUMN \(from) TO \(column)")
          renamed.append((column, to))
        }
        for (from, to) in renamed { add("ALTER TABLE \(temporary) RENAME COLUMN \(from) TO \(to)") }
        for (from, to) in [
          (old.destinationOrderColumn, join.table.destinationOrderColumn), (old.sourceOrderColumn, join.table.sourceOrderColumn),
        ] where from == nil {
          if let to { add("ALTER TABLE \(temporary) ADD COLUMN \(to) INTEGER") }
        }
        finalNames.append((temporary, join.table.name))
      } else if let temporary = join.temporary {
        finalNames.append((temporary, join.table.name))
      }
    }
    for (temporary, final) in finalNames { add("ALTER TABLE \(temporary) RENAME TO \(final)") }
    for table in pairs.new {
      if let statement = creates.first(where: { $0.hasPrefix("CREATE TABLE \(table) (") }) { add(statement) }
    }
  }

  /// Phase 4: rewrites values, table by table, in chunks.
  private mutating func rewriteValues(tablePlans: [TablePlan], joins: [JoinPlan]) {
    for plan in tablePlans where !plan.assignments.isEmpty {
      steps.append(
        Step(
          action: .chunkedUpdate(
            table: plan.table, assignments: plan.assignments.map(\.0).joined(separator: ", "),
            arguments: StatementArguments(plan.assignments.flatMap(\.1))),
          weight: max(rowCounts[plan.sourceTable] ?? 1, 1)))
    }
    insertMovedRows(joins: joins)
    for plan in tablePlans {
      for fill in plan.entityColumns {
        add(
          "UPDATE \(plan.table) AS T SET \(fill.column) = (SELECT X.Z_ENT FROM \(fill.destinationTable) AS X WHERE X.Z_PK = T.\(fill.keyColumn)) WHERE T.\(fill.keyColumn) IS NOT NULL",
          weight: rowCounts[plan.sourceTable] ?? 1)
      }
    }
    fillEntityColumnsAfterMoves()
  }

  /// Phase 5: creates the indexes the new layout has and the file does not.
  private mutating func createNewIndexes(tablePlans: [TablePlan], creates: [String], survivingIndexes: Set<String>) {
    let sizes = Dictionary(tablePlans.map { ($0.table, rowCounts[$0.sourceTable] ?? 0) }, uniquingKeysWith: { a, _ in a })
    for statement in creates {
      guard let name = SQLiteSchema.indexName(in: statement), !survivingIndexes.contains(name) else { continue }
      let table = statement.components(separatedBy: " ON ").dropFirst().first?.split(separator: " ").first.map(String.init) ?? ""
      let deferred = statement.hasPrefix("CREATE INDEX ") ? "CREATE INDEX IF NOT EXISTS " + statement.dropFirst("CREATE INDEX ".count) : nil
      add(statement, weight: sizes[table] ?? 1, deferred: deferred)
    }
  }

  /// Indexes of the old file that the new layout keeps exactly: same name, same definition, on a table and
  /// columns that keep their names and values.
  private func survivingIndexNames(tablePlans: [TablePlan], joins: [JoinPlan], creates: [String]) -> Set<String> {
    // The old model's statements fail only for a partial index predicate no store could have been opened with:
    // then no index survives, and the new layout's are all created.
    let oldStatements = Set(((try? source.createStatements()) ?? []).filter { SQLiteSchema.indexName(in: $0) != nil })
    var stable: Set<String> = []
    for plan in tablePlans where plan.table == plan.sourceTable {
      for (old, new) in plan.kept where old == new { stable.insert("\(plan.table).\(old)") }
      stable.insert("\(plan.table).Z_ENT")
    }
    for join in joins {
      guard let old = join.reused, old.name == join.table.name, old.sourceColumn == join.table.sourceColumn,
        old.destinationColumn == join.table.destinationColumn
      else { continue }
      stable.insert("\(old.name).\(old.sourceColumn)")
      stable.insert("\(old.name).\(old.destinationColumn)")
    }
    var names: Set<String> = []
    for statement in creates where oldStatements.contains(statement) {
      guard let name = SQLiteSchema.indexName(in: statement) else { continue }
      let parts = statement.replacingOccurrences(of: "CREATE UNIQUE INDEX ", with: "CREATE INDEX ").split(separator: " ").map(String.init)
      guard parts.count > 4, let open = statement.firstIndex(of: "("), let close = statement.lastIndex(of: ")") else { continue }
      let table = parts[4]
      let columns = statement[statement.index(after: open)..<close].split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? ""
      }
      // Entity-number renumbering rewrites Z_ENT but keeps the index valid (it is updated with the rows).
      if columns.allSatisfy({ stable.contains("\(table).\($0)") }) { names.insert(name) }
    }
    return names
  }

  private func existingIndexes(db: Database, on tables: Set<String>) throws -> [(name: String, isUnique: Bool)] {
    try Row.fetchAll(db, sql: "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
      .filter { tables.contains($0["tbl_name"]) }
      .map { ($0["name"], ($0["sql"] as String).uppercased().hasPrefix("CREATE UNIQUE")) }
  }

  // MARK: - Bookkeeping

  private mutating func planBookkeeping(tablePlans: [TablePlan], primaryKeyMaxima: [Int64: Int64], metadata: Data) {
    add("DELETE FROM Z_PRIMARYKEY")
    for row in destination.primaryKeyRows() {
      guard let entity = destination.entityByNumber[row.number], let mapping = destination.byIdentity[ObjectIdentifier(entity)] else {
        continue
      }
      var maximum: Int64 = 0
      if mapping.rootNumber == row.number {
        // The root's row hands out the keys of its whole table: above every key any old entity of the
        // table handed out, and above every row.
        for plan in tablePlans where plan.table == mapping.table {
          for old in source.entities.values where old.table == plan.sourceTable {
            maximum = max(maximum, primaryKeyMaxima[old.number] ?? 0)
          }
        }
        // Keys handed out by the old tables rows moved in from, and the keys the move gave.
        for move in moves.entities where move.new.table == mapping.table {
          maximum = max(maximum, primaryKeyMaxima[move.old.rootNumber] ?? 0)
        }
        let given = moves.keyTables[mapping.table].map { "COALESCE((SELECT MAX(NEWPK) FROM \($0.name)), 0)" } ?? "0"
        add(
          "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, MAX(?, COALESCE((SELECT MAX(Z_PK) FROM \(mapping.table)), 0), \(given)))",
          [row.number, row.name, row.superNumber, maximum])
      } else {
        add("INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)", [row.number, row.name, row.superNumber])
      }
    }
    for keys in moves.keyTables.values.sorted(by: { $0.name < $1.name }) { add("DROP TABLE \(keys.name)") }
    add("UPDATE Z_METADATA SET Z_PLIST = ?", [metadata])
    // Every migration moves SQLite's schema_version, even one that changes only rows (entity numbers, the
    // metadata): other coordinators of the store check it before each write (NSPersistentStore+ModelGuard).
    add("CREATE INDEX Z_OBJECTGRAPH_MIGRATED ON Z_PRIMARYKEY (Z_MAX)")
    add("DROP INDEX Z_OBJECTGRAPH_MIGRATED")
  }
}
