import Foundation
internal import GRDB

/// How a store reads and writes the rows of each entity, worked out once when the store opens so that
/// fetching and saving do no name lookups per row.
struct StorePlans: Sendable {
  /// How to turn a row of `SELECT <table's select list>` into an object's values. A class: it is looked
  /// up for every row a fetch reads, and handing out one reference costs less than copying its fields.
  final class Decode: Sendable {
    enum Column: Sendable {
      case attribute(slot: Int, column: Int, type: NSAttributeType)
      /// An attribute that allows external storage, in a store that tags its values (``ExternalBinaryRecord``).
      case externalRecord(slot: Int, column: Int)
      /// A to-one: the destination's `Z_PK` column, and either the column holding its entity number or
      /// the destination entity's number when it has no subentities.
      case toOne(slot: Int, column: Int, entityColumn: Int?, destinationNumber: Int64)
    }

    let entity: NSEntityDescription
    let rootNumber: Int64
    /// The values a row starts from: `nil`, or a not-yet-loaded marker for stored to-many slots.
    let template: [StoredValue]
    /// Per slot, in slot order: the column its value is read from, or `nil` to take the template's value.
    let slotColumns: [Column?]

    init(entity: NSEntityDescription, rootNumber: Int64, template: [StoredValue], columns: [Column]) {
      self.entity = entity
      self.rootNumber = rootNumber
      self.template = template
      var slotColumns = [Column?](repeating: nil, count: template.count)
      for column in columns {
        switch column {
        case .attribute(let slot, _, _), .externalRecord(let slot, _), .toOne(let slot, _, _, _): slotColumns[slot] = column
        }
      }
      self.slotColumns = slotColumns
    }
  }

  /// How to insert an entity's rows.
  struct Insert: Sendable {
    enum Column: Sendable {
      case attribute(slot: Int, type: NSAttributeType)
      case externalRecord(slot: Int)
      case toOne(slot: Int)
      case toOneEntity(slot: Int)
    }

    let sql: String
    let number: Int64
    let columns: [Column]
    /// Rows per multi-row INSERT: as many as fit in 900 parameters (SQLite's limit is 32766 here).
    let rowsPerStatement: Int
    private let prefix: String
    private let tuple: String
    /// The statement for a full chunk of `rowsPerStatement` rows, built once.
    private let fullSQL: String

    init(table: String, columnNames: [String], number: Int64, columns: [Column]) {
      tuple = "(" + Array(repeating: "?", count: columnNames.count).joined(separator: ", ") + ")"
      prefix = "INSERT INTO \(table) (\(columnNames.joined(separator: ", "))) VALUES "
      sql = prefix + tuple
      self.number = number
      self.columns = columns
      rowsPerStatement = max(1, 900 / columnNames.count)
      fullSQL = prefix + Array(repeating: tuple, count: rowsPerStatement).joined(separator: ", ")
    }

    /// The statement inserting `rows` rows at once.
    func sql(rows: Int) -> String {
      if rows == rowsPerStatement { return fullSQL }
      return rows == 1 ? sql : prefix + Array(repeating: tuple, count: rows).joined(separator: ", ")
    }
  }

  /// The select list of each table, and where each column sits.
  let readers: [String: NSPersistentStore.RowReader]
  /// Indexed by entity number (index 0 unused).
  let decode: [Decode?]
  /// By entity identity.
  let inserts: [ObjectIdentifier: Insert]
  /// The tables that hold the rows of a single entity (no subentities share them): a fetch from one reads
  /// the entity number as a constant, which SQLite computes once, not from every row.
  let tablesOfOneEntity: Set<String>

  init(schema: SQLiteSchema) {
    var readers: [String: NSPersistentStore.RowReader] = [:]
    for table in schema.tables.values { readers[table.name] = Self.reader(table: table) }
    let maxNumber = schema.entityByNumber.keys.max() ?? 0
    var decode = [Decode?](repeating: nil, count: Int(maxNumber) + 1)
    var inserts: [ObjectIdentifier: Insert] = [:]
    for mapping in schema.entities.values {
      let layout = mapping.entity.layout
      let reader = readers[mapping.table] ?? Self.reader(table: SQLiteSchema.Table(name: mapping.table, rootEntityName: "", columns: []))
      var template = [StoredValue](repeating: nil, count: layout.slots.count)
      var columns: [Decode.Column] = []
      var insertColumns: [Insert.Column] = []
      var insertNames = ["Z_PK", "Z_ENT", "Z_OPT"]
      for slot in layout.slots {
        switch mapping.storage[slot.index] {
        case .column(let column):
          guard case .attribute(let type) = slot.kind, let index = reader.columnIndexByName[column] else { continue }
          if schema.tagsExternalRecord(slot) {
            columns.append(.externalRecord(slot: slot.index, column: index))
            insertColumns.append(.externalRecord(slot: slot.index))
          } else {
            columns.append(.attribute(slot: slot.index, column: index, type: type))
            insertColumns.append(.attribute(slot: slot.index, type: type))
          }
          insertNames.append(column)
        case .toOne(let column, let entityColumn):
          guard let index = reader.columnIndexByName[column] else { continue }
          let destination = slot.relationship?.destinationEntity.flatMap { schema.entities[$0.entityName]?.number } ?? 0
          columns.append(
            .toOne(
              slot: slot.index, column: index, entityColumn: entityColumn.flatMap { reader.columnIndexByName[$0] },
              destinationNumber: destination))
          insertColumns.append(.toOne(slot: slot.index))
          insertNames.append(column)
          if let entityColumn {
            insertColumns.append(.toOneEntity(slot: slot.index))
            insertNames.append(entityColumn)
          }
        case .foreignKeyOnDestination, .joinTable:
          template[slot.index] = .unloadedToMany
        case .none:
          template[slot.index] = slot.isToMany ? slot.emptyToMany : nil
        }
      }
      decode[Int(mapping.number)] = Decode(entity: mapping.entity, rootNumber: mapping.rootNumber, template: template, columns: columns)
      inserts[ObjectIdentifier(mapping.entity)] = Insert(
        table: mapping.table, columnNames: insertNames, number: mapping.number, columns: insertColumns)
    }
    self.readers = readers
    self.decode = decode
    self.inserts = inserts
    var entitiesPerTable: [String: Int] = [:]
    for mapping in schema.entities.values { entitiesPerTable[mapping.table, default: 0] += 1 }
    tablesOfOneEntity = Set(entitiesPerTable.filter { $0.value == 1 }.keys)
  }

  private static func reader(table: SQLiteSchema.Table) -> NSPersistentStore.RowReader {
    var index: [String: Int] = [:]
    var columnList = ""
    for (offset, column) in table.columns.enumerated() {
      index[column.name] = offset + 3
      columnList += ", t0.\(column.name)"
    }
    return NSPersistentStore.RowReader(columnList: columnList, columnIndexByName: index)
  }

  func decodePlan(entityNumber: Int64) -> Decode? {
    guard entityNumber > 0, Int(entityNumber) < decode.count else { return nil }
    return decode[Int(entityNumber)]
  }
}

extension NSPersistentStore {
  /// Decodes the current row of a `SELECT <selectList>` statement into an ID and a snapshot.
  func decodeRow(_ row: RawStatement) -> FetchedRow? {
    let pk = row.int64(0)
    let entityNumber = row.int64(1)
    guard let plan = plans.decodePlan(entityNumber: entityNumber), let source = rowSources[Int(entityNumber)] else { return nil }
    let version = row.int64(2)
    // Appended slot by slot into reserved storage: assigning into a prepared array of existentials goes
    // through the generic value-witness path for each element and costs several times more.
    var values: [StoredValue] = []
    values.reserveCapacity(plan.slotColumns.count)
    for (slot, column) in plan.slotColumns.enumerated() {
      switch column {
      case nil:
        values.append(plan.template[slot])
      case .attribute(_, let index, let type)?:
        let index = Int32(index)
        // The most common types first, each asking SQLite for the column's type only when it must.
        switch type {
        case .stringAttributeType:
          values.append(row.stringOrNil(index).map { .string($0) })
          continue
        case .integer64AttributeType:
          values.append(row.int64OrNil(index).map { .int64($0) })
          continue
        case .doubleAttributeType:
          values.append(row.doubleOrNil(index).map { .double($0) })
          continue
        case .dateAttributeType:
          values.append(row.doubleOrNil(index).map { .date(Date(timeIntervalSinceReferenceDate: $0)) })
          continue
        default:
          break
        }
        guard !row.isNull(index) else {
          values.append(nil)
          continue
        }
        switch type {
        case .stringAttributeType: values.append(.string(row.string(index)))
        case .integer64AttributeType: values.append(.int64(row.int64(index)))
        case .integer32AttributeType: values.append(.int32(Int32(truncatingIfNeeded: row.int64(index))))
        case .integer16AttributeType: values.append(.int16(Int16(truncatingIfNeeded: row.int64(index))))
        case .booleanAttributeType: values.append(.bool(row.int64(index) != 0))
        case .doubleAttributeType: values.append(.double(row.double(index)))
        case .floatAttributeType: values.append(.float(Float(row.double(index))))
        case .dateAttributeType: values.append(.date(Date(timeIntervalSinceReferenceDate: row.double(index))))
        case .binaryDataAttributeType: values.append(.data(row.data(index)))
        default: values.append(SQLiteValueCoding.decode(row.databaseValue(index), as: type))
        }
      case .externalRecord(_, let index)?:
        values.append(row.externalRecord(Int32(index), storeURL: url))
      case .toOne(_, let index, let entityColumn, let destinationNumber)?:
        let index = Int32(index)
        guard !row.isNull(index) else {
          values.append(nil)
          continue
        }
        var number = destinationNumber
        if let entityColumn, !row.isNull(Int32(entityColumn)) { number = row.int64(Int32(entityColumn)) }
        values.append(objectID(pk: row.int64(index), entityNumber: number).map { .objectID($0) })
      }
    }
    return FetchedRow(source: source, primaryKey: pk, snapshot: RowSnapshot(version: version, values: values))
  }

  /// Runs a query and calls `body` with the statement on each result row, reading the columns directly.
  func forEachRow(_ db: Database, sql: String, arguments: [DatabaseValue], _ body: (RawStatement) throws -> Void) throws {
    let row = RawStatement(try db.cachedStatement(sql: sql))
    try row.bindAll(arguments)
    // Reset at the end, even after an error, so the statement holds no read lock while it sits in the cache.
    defer { row.finish() }
    while try row.next() { try body(row) }
  }

  /// Writes `count` rows of one entity, inside the caller's transaction, with the entity's multi-row
  /// INSERT: `rowsPerStatement` rows a statement, which spreads the per-statement cost (preparing,
  /// stepping) over many rows. Row `i` is `row(i)`: its primary key and values; `key` gives the key a
  /// relationship value is written as.
  func insertRows(
    _ plan: StorePlans.Insert, count: Int, db: Database, key: (NSManagedObjectID) throws -> Int64,
    row: (Int) -> (primaryKey: Int64, values: [StoredValue])
  ) throws {
    var start = 0
    while start < count {
      let rows = min(plan.rowsPerStatement, count - start)
      let statement = RawStatement(try db.cachedStatement(sql: plan.sql(rows: rows)))
      try statement.reset()
      var parameter: Int32 = 1
      for index in start..<(start + rows) {
        let (primaryKey, values) = row(index)
        try bindInsertRow(plan, primaryKey: primaryKey, values: values, key: key, to: statement, at: &parameter)
      }
      try statement.run()
      start += rows
    }
  }

  /// Binds one row of an entity's INSERT statement, from parameter `parameter` on (which it advances).
  func bindInsertRow(
    _ plan: StorePlans.Insert, primaryKey: Int64, values: [StoredValue], key: (NSManagedObjectID) throws -> Int64,
    to statement: RawStatement, at parameter: inout Int32
  ) throws {
    try statement.bind(primaryKey, at: parameter)
    try statement.bind(plan.number, at: parameter + 1)
    try statement.bind(1, at: parameter + 2)
    parameter += 3
    for column in plan.columns {
      switch column {
      case .attribute(let slot, let type):
        try statement.bind(SQLiteValueCoding.encode(values[slot], as: type), at: parameter)
      case .externalRecord(let slot):
        try statement.bind(Self.externalRecord(values[slot]), at: parameter)
      case .toOne(let slot):
        if let destination = values[slot].objectID {
          try statement.bind(try key(destination), at: parameter)
        } else {
          try statement.bindNull(at: parameter)
        }
      case .toOneEntity(let slot):
        if let number = values[slot].objectID.flatMap({ schema.byIdentity[ObjectIdentifier($0.entity)]?.number }) {
          try statement.bind(number, at: parameter)
        } else {
          try statement.bindNull(at: parameter)
        }
      }
      parameter += 1
    }
  }
}
