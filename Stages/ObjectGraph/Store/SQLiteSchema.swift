import Foundation

/// How a model maps onto SQLite tables, following Core Data's layout so that a learner who opens the
/// file with `sqlite3` sees what an iOS store looks like:
///
/// - one table `Z<ROOTENTITY>` per root entity; subentities share it, told apart by `Z_ENT`;
/// - `Z_PK` (integer primary key), `Z_ENT` (entity number), `Z_OPT` (row version, for optimistic locking);
/// - one column `Z<ATTRIBUTE>` per stored attribute; `Z<RELATIONSHIP>` per to-one (the destination's
///   `Z_PK`), followed by `Z<n>_<RELATIONSHIP>` (the destination row's entity number; `n` is the destination
///   entity's number) when the destination has subentities;
/// - columns in Core Data's order: after `Z_PK`, `Z_ENT`, `Z_OPT`, the integer columns (integer and Boolean
///   attributes, to-ones with their entity and ordering columns), then the 8-byte numbers (floating point,
///   dates, decimals), then the strings, then the blobs; within each group entity by entity in entity-number
///   order, each entity's own attributes by name, then its to-ones by name. Two properties of one table with
///   the same name get `Z<NAME>`, `Z<NAME>1`, … in that order;
/// - one join table `Z_<n><RELATIONSHIP>` per many-to-many pair, with columns `Z_<n><INVERSE>` and
///   `Z_<m><RELATIONSHIP>`;
/// - for an ordered to-many, an ordering column ("foreign order key"): `Z_FOK_<INVERSE>` on the
///   destination's table next to the inverse to-one's column, or `Z_FOK_<m><RELATIONSHIP>` in the join
///   table next to the members' column. It holds each member's position, spaced by 1024 from 1024;
/// - `Z_PRIMARYKEY` (entity numbers, names and the highest `Z_PK` handed out) and `Z_METADATA` (the
///   store's UUID and its metadata, including the model's version hashes, as a binary property list).
///
/// Entity numbers are given in order: roots sorted by name, each followed by its subentities, depth first,
/// so a hierarchy has consecutive numbers.
///
/// Stores the engine wrote before it followed Core Data's rules exactly (format 1, ``Layout/engineV1``) keep
/// their own names: `Z<RELATIONSHIP>_ENT` beside every to-one into a hierarchy, and columns named in the order
/// the model lists properties. The layout a file follows is read from its metadata (``Layout/init(metadata:)``).
struct SQLiteSchema: Sendable {
  /// The naming rules a store file follows.
  enum Layout: Sendable, Equatable {
    /// Core Data's, as Apple's Core Data writes them: what every store made by Core Data, and every store the
    /// engine makes (format 2), follows.
    case coreData
    /// The engine's format 1: entity columns named `Z<RELATIONSHIP>_ENT` and made beside every to-one whose
    /// destination's hierarchy has several entities; columns named in the model's property order.
    case engineV1

    /// The layout of a store described by `metadata`: format 1 for the engine's early stores, Core Data's for
    /// everything else (Core Data's own stores carry no format key).
    init(metadata: [String: any Sendable]) {
      self = (metadata[StoreMetadataKey.formatVersion] as? Int) == 1 ? .engineV1 : .coreData
    }

    /// The format number the engine writes for the layout.
    var formatVersion: Int { self == .engineV1 ? 1 : 2 }
  }

  struct Table: Sendable {
    let name: String
    let rootEntityName: String
    /// Column definitions after Z_PK, Z_ENT, Z_OPT.
    var columns: [(name: String, type: String)]
  }

  struct JoinTable: Sendable {
    let name: String
    /// Column holding the `Z_PK` of the owning side's object.
    let sourceColumn: String
    /// Column holding the `Z_PK` of the destination object.
    let destinationColumn: String
    /// The position of the destination object among the source's members, when the source's side is
    /// ordered (`Z_FOK_` and the destination column's name without its `Z_`).
    var destinationOrderColumn: String? = nil
    /// The position of the source object among the destination's members, when the other side is ordered.
    var sourceOrderColumn: String? = nil

    /// The same table under another name (a migration fills a new join table under a temporary name).
    func renamed(_ name: String) -> JoinTable {
      JoinTable(
        name: name, sourceColumn: sourceColumn, destinationColumn: destinationColumn, destinationOrderColumn: destinationOrderColumn,
        sourceOrderColumn: sourceOrderColumn)
    }

    /// The ordering column's name for a member column: `Z_34ASSETS` -> `Z_FOK_34ASSETS`.
    static func orderColumn(for memberColumn: String) -> String { "Z_FOK_" + memberColumn.dropFirst(2) }
  }

  /// Where one slot of an entity is stored.
  enum SlotStorage: Sendable {
    case column(String)
    case toOne(column: String, entityColumn: String?)
    /// A to-many whose inverse is a to-one: the destination table's foreign key column, and for an
    /// ordered to-many the destination table's column holding each member's position.
    case foreignKeyOnDestination(column: String, orderColumn: String?)
    /// A many-to-many (or inverse-less to-many): a join table; `isOwner` tells which column is ours.
    case joinTable(JoinTable, isOwner: Bool)
    /// Transient or unsupported: not stored.
    case none
  }

  struct EntityMapping: Sendable {
    let entity: EntityDescription
    let number: Int64
    /// The number of the root entity: identifies the table in object IDs.
    let rootNumber: Int64
    let table: String
    /// Entity numbers of this entity and its descendants (for `Z_ENT IN (...)`).
    let numbersIncludingSubentities: [Int64]
    /// One entry per layout slot.
    let storage: [SlotStorage]
  }

  let layout: Layout
  let tables: [String: Table]
  let joinTables: [String: JoinTable]
  let entities: [String: EntityMapping]
  let entityByNumber: [Int64: EntityDescription]
  /// The same mappings by entity identity, for hot paths (no string hashing, no lock to read a name).
  let byIdentity: [ObjectIdentifier: EntityMapping]

  // MARK: - Laying out the tables

  init(entities all: [EntityDescription], layout: Layout) {
    var builder = Builder(entities: all, layout: layout)
    for entity in builder.ordered { builder.map(entity) }
    builder.orderColumns()
    self.layout = layout
    tables = builder.tables
    joinTables = builder.joinTables
    entities = builder.mappings
    entityByNumber = Dictionary(builder.ordered.map { (builder.numbers[$0.name] ?? 0, $0) }, uniquingKeysWith: { a, _ in a })
    byIdentity = Dictionary(builder.mappings.values.map { (ObjectIdentifier($0.entity), $0) }, uniquingKeysWith: { a, _ in a })
  }

  /// Works out the schema entity by entity: numbers, tables, columns and join tables, in Core Data's
  /// layout. Each kind of property has its own step.
  private struct Builder {
    /// Roots by name, each followed by its subentities depth first: the order entities are numbered in.
    let ordered: [EntityDescription]
    /// Entity numbers (`Z_ENT`), from 1 in `ordered`'s order.
    let numbers: [String: Int64]
    let layout: Layout
    /// Core Data's column order of each table (``Layout/coreData``): the keys `column(for:declaredBy:in:)`
    /// uses, in the order names are given out.
    private var columnOrder: [String: [String]] = [:]
    var tables: [String: Table] = [:]
    var joinTables: [String: JoinTable] = [:]
    var mappings: [String: EntityMapping] = [:]
    private var usedColumns: [String: Set<String>] = [:]
    /// Columns already assigned to a property of a hierarchy, keyed by "<table>.<entity that declares it>.<name>".
    private var assigned: [String: String] = [:]

    init(entities all: [EntityDescription], layout: Layout) {
      self.layout = layout
      var ordered: [EntityDescription] = []
      func visit(_ entity: EntityDescription) {
        ordered.append(entity)
        for child in entity.subentities.sorted(by: { $0.name < $1.name }) { visit(child) }
      }
      let included = Set(all.map { ObjectIdentifier($0) })
      for root in all.filter({ $0.superentity == nil || !included.contains(ObjectIdentifier($0.rootEntity)) })
        .sorted(by: { $0.name < $1.name })
      {
        visit(root)
      }
      self.ordered = ordered
      var numbers: [String: Int64] = [:]
      for (index, entity) in ordered.enumerated() { numbers[entity.name] = Int64(index + 1) }
      self.numbers = numbers
      if layout == .coreData { nameColumnsInCoreDataOrder() }
    }

    /// The storage groups of Core Data's column order: integers, 8-byte numbers, strings, blobs.
    private static func group(of type: AttributeType) -> Int {
      switch type {
      case .integer16, .integer32, .integer64, .boolean: 0
      case .double, .float, .date, .decimal: 1
      case .string, .uri: 2
      default: 3
      }
    }

    /// Gives every column its name in Core Data's order (see the type's comment), so that names shared by
    /// several entities of one table are numbered as Core Data numbers them, and records the order of each
    /// table's columns.
    private mutating func nameColumnsInCoreDataOrder() {
      for group in 0..<4 {
        for entity in ordered {
          let table = Self.tableName(entity)
          var attributes: [AttributeDescription] = []
          var toOnes: [RelationshipDescription] = []
          for property in entity.ownProperties {
            switch property {
            case .attribute(let attribute) where !attribute.isTransient && attribute.isSupportedAtRunTime:
              if Self.group(of: attribute.attributeType) == group { attributes.append(attribute) }
            case .relationship(let relationship) where !relationship.isTransient && !relationship.isToMany:
              toOnes.append(relationship)
            default:
              continue
            }
          }
          for attribute in attributes.sorted(by: { $0.name < $1.name }) {
            order(column(for: attribute.name, declaredBy: entity, in: table), in: table)
          }
          guard group == 0 else { continue }
          for relationship in toOnes.sorted(by: { $0.name < $1.name }) {
            let column = column(for: relationship.name, declaredBy: entity, in: table)
            order(column, in: table)
            if let destination = relationship.destinationEntity, let entityColumn = entityColumn(for: column, destination: destination) {
              order(entityColumn, in: table)
            }
            if relationship.inverseRelationship.map({ $0.isToMany && $0.isOrdered }) == true {
              order("Z_FOK_" + column.dropFirst(), in: table)
            }
          }
        }
      }
    }

    private mutating func order(_ column: String, in table: String) {
      if !columnOrder[table, default: []].contains(column) { columnOrder[table, default: []].append(column) }
    }

    /// Puts each table's columns in Core Data's order (``Layout/coreData``); columns outside it keep their
    /// place after the ordered ones.
    mutating func orderColumns() {
      guard layout == .coreData else { return }
      for (name, table) in tables {
        let order = columnOrder[name] ?? []
        let position = Dictionary(order.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
        var sorted = table
        sorted.columns = table.columns.enumerated().sorted { lhs, rhs in
          (position[lhs.element.name] ?? order.count + lhs.offset, lhs.offset) < (
            position[rhs.element.name] ?? order.count + rhs.offset, rhs.offset
          )
        }.map(\.element)
        tables[name] = sorted
      }
    }

    /// The entity column beside a to-one's column: Core Data's `Z<n>_<NAME>` (the destination's entity
    /// number) when the destination has subentities; `nil` when it has none (its rows are all of one entity).
    private func entityColumn(for column: String, destination: EntityDescription) -> String? {
      guard !destination.subentities.isEmpty, let number = numbers[destination.name] else { return nil }
      return "Z\(number)_" + column.dropFirst()
    }

    /// The mapping of one entity: where each of its slots is stored.
    mutating func map(_ entity: EntityDescription) {
      let table = Self.tableName(entity)
      if tables[table] == nil { tables[table] = Table(name: table, rootEntityName: entity.rootEntity.name, columns: []) }
      var storage: [SlotStorage] = []
      for slot in entity.layout.slots {
        let owner = Self.declaringEntity(of: slot.name, in: entity)
        guard slot.isPersistent else {
          storage.append(.none)
          continue
        }
        if let attribute = slot.attribute {
          storage.append(attributeColumn(slot.name, type: attribute.attributeType, owner: owner, table: table))
        } else if let relationship = slot.relationship, let destination = relationship.destinationEntity {
          if !relationship.isToMany {
            storage.append(toOneColumns(slot.name, destination: destination, owner: owner, table: table))
          } else if let inverse = relationship.inverseRelationship, !inverse.isToMany {
            // One-to-many: the foreign key is the inverse to-one's column, on the destination's table.
            let destinationTable = Self.tableName(destination)
            let name = column(for: inverse.name, declaredBy: Self.declaringEntity(of: inverse.name, in: destination), in: destinationTable)
            var orderColumn: String?
            if relationship.isOrdered {
              // Core Data's "foreign order key": Z_FOK_ and the foreign key's name without its Z.
              orderColumn = "Z_FOK_" + name.dropFirst()
              if tables[destinationTable] == nil {
                tables[destinationTable] = Table(name: destinationTable, rootEntityName: destination.rootEntity.name, columns: [])
              }
              addColumn(orderColumn ?? "", type: "INTEGER", to: destinationTable)
            }
            storage.append(.foreignKeyOnDestination(column: name, orderColumn: orderColumn))
          } else {
            storage.append(joinTable(relationship, destination: destination, owner: owner))
          }
        } else {
          storage.append(.none)
        }
      }
      let number = numbers[entity.name] ?? 0
      mappings[entity.name] = EntityMapping(
        entity: entity, number: number, rootNumber: numbers[entity.rootEntity.name] ?? number, table: table,
        numbersIncludingSubentities: entity.selfAndDescendants.compactMap { numbers[$0.name] }, storage: storage)
    }

    /// An attribute: one `Z<NAME>` column of the hierarchy's table.
    private mutating func attributeColumn(_ name: String, type: AttributeType, owner: EntityDescription, table: String) -> SlotStorage {
      let column = column(for: name, declaredBy: owner, in: table)
      addColumn(column, type: SQLiteSchema.sqlType(type), to: table)
      return .column(column)
    }

    /// A to-one: the destination's `Z_PK` in `Z<NAME>`, plus `Z<NAME>_ENT` when the destination has
    /// subentities (the row's entity number then tells which).
    private mutating func toOneColumns(_ name: String, destination: EntityDescription, owner: EntityDescription, table: String)
      -> SlotStorage
    {
      let column = column(for: name, declaredBy: owner, in: table)
      var entityColumn: String?
      switch layout {
      case .coreData:
        entityColumn = self.entityColumn(for: column, destination: destination)
      case .engineV1:
        if destination.rootEntity.selfAndDescendants.count > 1 {
          entityColumn = self.column(for: name + "_ENT", declaredBy: owner, in: table)
        }
      }
      if !(tables[table]?.columns.contains(where: { $0.name == column }) ?? true) {
        tables[table]?.columns.append((column, "INTEGER"))
        if let entityColumn { tables[table]?.columns.append((entityColumn, "INTEGER")) }
      }
      return .toOne(column: column, entityColumn: entityColumn)
    }

    /// A many-to-many (or a to-many without inverse): a join table `Z_<n><RELATIONSHIP>`, named and owned
    /// by the side that sorts first, and seen from the other side with its columns swapped.
    private mutating func joinTable(_ relationship: RelationshipDescription, destination: EntityDescription, owner: EntityDescription)
      -> SlotStorage
    {
      let ownerNumber = numbers[owner.name] ?? 0
      let destinationNumber = numbers[destination.name] ?? 0
      let inverse = relationship.inverseRelationship
      let ours = (owner.name, relationship.name)
      let theirs = (destination.name, inverse?.name ?? "")
      // The side whose entity name sorts first names the table. Between two relationships of one entity,
      // Core Data's store names it after the one whose name sorts last (the engine's format 1, the first).
      let isOwner: Bool
      if inverse == nil {
        isOwner = true
      } else if layout == .coreData && ours.0 == theirs.0 {
        isOwner = ours.1 >= theirs.1
      } else {
        isOwner = ours <= theirs
      }
      let join: JoinTable
      if isOwner {
        let source = "Z_\(ownerNumber)" + SQLiteSchema.sqlName(inverse?.name ?? owner.name)
        var destination = "Z_\(destinationNumber)" + SQLiteSchema.sqlName(relationship.name)
        // A relationship that is its own inverse (friends <-> friends) needs two distinct columns.
        if destination == source { destination += "1" }
        join = JoinTable(
          name: "Z_\(ownerNumber)" + SQLiteSchema.sqlName(relationship.name), sourceColumn: source, destinationColumn: destination,
          destinationOrderColumn: relationship.isOrdered ? JoinTable.orderColumn(for: destination) : nil,
          // A relationship that is its own inverse keeps one row per direction: its one order is enough.
          sourceOrderColumn: inverse?.isOrdered == true && inverse !== relationship ? JoinTable.orderColumn(for: source) : nil)
        joinTables[join.name] = join
      } else if let inverse {
        let inverseOwner = Self.declaringEntity(of: inverse.name, in: destination)
        let inverseNumber = numbers[inverseOwner.name] ?? 0
        // The owner's table, seen from this side: source and destination (and their orders) swap.
        let sourceColumn = "Z_\(ownerNumber)" + SQLiteSchema.sqlName(inverse.name)
        let destinationColumn = "Z_\(inverseNumber)" + SQLiteSchema.sqlName(relationship.name)
        join = JoinTable(
          name: "Z_\(inverseNumber)" + SQLiteSchema.sqlName(inverse.name), sourceColumn: sourceColumn,
          destinationColumn: destinationColumn,
          destinationOrderColumn: relationship.isOrdered ? JoinTable.orderColumn(for: destinationColumn) : nil,
          sourceOrderColumn: inverse.isOrdered ? JoinTable.orderColumn(for: sourceColumn) : nil)
      } else {
        join = JoinTable(name: "", sourceColumn: "", destinationColumn: "")
      }
      return .joinTable(join, isOwner: isOwner)
    }

    /// The column of a property in a table: `Z<NAME>`, numbered when the name is taken, and the same
    /// column for the same property wherever the hierarchy meets it.
    private mutating func column(for property: String, declaredBy owner: EntityDescription, in table: String) -> String {
      let key = "\(table).\(owner.name).\(property)"
      if let existing = assigned[key] { return existing }
      var name = "Z" + SQLiteSchema.sqlName(property)
      var suffix = 1
      while usedColumns[table, default: ["Z_PK", "Z_ENT", "Z_OPT"]].contains(name) {
        name = "Z" + SQLiteSchema.sqlName(property) + "\(suffix)"
        suffix += 1
      }
      usedColumns[table, default: ["Z_PK", "Z_ENT", "Z_OPT"]].insert(name)
      assigned[key] = name
      return name
    }

    private mutating func addColumn(_ name: String, type: String, to table: String) {
      if !(tables[table]?.columns.contains(where: { $0.name == name }) ?? true) { tables[table]?.columns.append((name, type)) }
    }

    private static func tableName(_ entity: EntityDescription) -> String { "Z" + SQLiteSchema.sqlName(entity.rootEntity.name) }

    /// The highest superentity that declares the property: subentities share its column.
    private static func declaringEntity(of name: String, in entity: EntityDescription) -> EntityDescription {
      var current = entity
      while let parent = current.superentity, parent.propertiesByName[name] != nil { current = parent }
      return current
    }
  }

  // MARK: - Names and types

  /// Upper-cased, with anything but letters, digits and `_` dropped, as Core Data names columns.
  static func sqlName(_ name: String) -> String {
    String(name.uppercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "_" }.map(Character.init))
  }

  static func sqlType(_ type: AttributeType) -> String {
    switch type {
    case .string, .uri, .decimal: "VARCHAR"
    case .integer16, .integer32, .integer64, .boolean: "INTEGER"
    case .double, .float: "FLOAT"
    case .date: "TIMESTAMP"
    case .binaryData, .uuid: "BLOB"
    case .transformable, .composite, .objectID, .undefined: "BLOB"
    }
  }

  // MARK: - Statements

  func mapping(for entity: EntityDescription) throws -> EntityMapping {
    guard let mapping = byIdentity[ObjectIdentifier(entity)] else {
      throw ObjectGraphError(.unknownKey, "Entity '\(entity.name)' is not in this store's model.")
    }
    return mapping
  }

  /// The statements that create the schema in an empty database.
  func createStatements() -> [String] {
    var statements: [String] = []
    for table in tables.values.sorted(by: { $0.name < $1.name }) {
      let columns =
        ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
        + table.columns.map { "\($0.name) \($0.type)" }
      statements.append("CREATE TABLE \(table.name) ( \(columns.joined(separator: ", ")) )")
      if entities.values.filter({ $0.table == table.name }).count > 1 {
        // Only a table shared by several entities is ever filtered by Z_ENT.
        statements.append("CREATE INDEX \(table.name)_Z_ENT_INDEX ON \(table.name) (Z_ENT)")
      }
      for column in table.columns where column.type == "INTEGER" && isForeignKey(table: table.name, column: column.name) {
        statements.append("CREATE INDEX \(table.name)_\(column.name)_INDEX ON \(table.name) (\(column.name))")
      }
    }
    for join in joinTables.values.sorted(by: { $0.name < $1.name }) {
      statements.append(Self.createStatement(join))
      statements.append(
        "CREATE INDEX \(join.name)_\(join.destinationColumn)_INDEX ON \(join.name) (\(join.destinationColumn), \(join.sourceColumn))")
    }
    statements += fetchIndexStatements()
    statements.append("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
    statements.append("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
    return statements
  }

  /// `CREATE TABLE` for a join table: the two member columns, the ordering columns of ordered sides, and the
  /// pair as primary key.
  static func createStatement(_ join: JoinTable) -> String {
    let orders = [join.destinationOrderColumn, join.sourceOrderColumn].compactMap { $0 }.map { ", \($0) INTEGER" }.joined()
    return
      "CREATE TABLE \(join.name) ( \(join.sourceColumn) INTEGER, \(join.destinationColumn) INTEGER\(orders), PRIMARY KEY (\(join.sourceColumn), \(join.destinationColumn)) )"
  }

  /// The model's fetch indexes (`EntityDescription.indexes`), then the unique indexes of its uniqueness
  /// constraints (see ``uniqueIndexStatements()``); fetch indexes are named and written as Core Data writes them:
  /// `CREATE INDEX Z_Note_byCreatedAt ON ZNOTE (ZCREATEDAT COLLATE BINARY DESC)`. An element naming a
  /// property without a column of its own (a to-many) is left out; an R-tree index is not created.
  func fetchIndexStatements() -> [String] {
    var statements: [String] = []
    for mapping in entities.values.sorted(by: { $0.number < $1.number }) {
      for index in mapping.entity.indexes where !index.elements.contains(where: { $0.collationType != .binary }) {
        let columns = index.elements.compactMap { element -> String? in
          guard let slot = mapping.entity.layout.indexByName[element.propertyName] else { return nil }
          switch mapping.storage[slot] {
          case .column(let column), .toOne(let column, _):
            return "\(column) COLLATE BINARY \(element.isAscending ? "ASC" : "DESC")"
          default:
            return nil
          }
        }
        guard !columns.isEmpty else { continue }
        statements.append(
          "CREATE INDEX \(Self.fetchIndexName(entity: mapping.entity.name, index: index.name)) ON \(mapping.table) (\(columns.joined(separator: ", ")))"
        )
      }
    }
    return statements + uniqueIndexStatements()
  }

  /// The names of the indexes ``fetchIndexStatements()`` makes: what a new store records as the engine's own.
  var fetchIndexNames: [String] { fetchIndexStatements().compactMap(Self.indexName(in:)) }

  /// `Z_<Entity>_<index>`, with anything but letters, digits and `_` dropped.
  static func fetchIndexName(entity: String, index: String) -> String {
    let clean = { (text: String) in
      String(text.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "_" }.map(Character.init))
    }
    return "Z_\(clean(entity))_\(clean(index))"
  }

  /// Whether an index of the file is a fetch index (named by ``fetchIndexName(entity:index:)``) rather than
  /// one the layout itself makes (`<TABLE>_<COLUMN>_INDEX`).
  static func isFetchIndexName(_ name: String) -> Bool { name.hasPrefix("Z_") && !name.hasSuffix("_INDEX") }

  private func isForeignKey(table: String, column: String) -> Bool {
    entities.values.contains { mapping in
      mapping.table == table
        && mapping.storage.contains { storage in
          if case .toOne(let name, _) = storage { return name == column }
          return false
        }
    }
  }

  /// Rows for Z_PRIMARYKEY: number, name, superentity number.
  func primaryKeyRows() -> [(number: Int64, name: String, superNumber: Int64)] {
    entityByNumber.keys.sorted().compactMap { number in
      guard let entity = entityByNumber[number] else { return nil }
      let superNumber = entity.superentity.flatMap { entities[$0.name]?.number } ?? 0
      return (number, entity.name, superNumber)
    }
  }
}
