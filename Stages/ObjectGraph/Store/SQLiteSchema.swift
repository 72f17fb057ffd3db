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
///   attributes, to-ones with their entity columns, then the to-ones' ordering columns), then the 8-byte
///   numbers (floating point, dates), then the decimals, then the strings, then the blobs; within each group
///   entity by entity in entity-number order, each entity's own attributes by name, then its to-ones by name.
///   Two properties of one table with the same name get `Z<NAME>`, `Z<NAME>1`, … in that order;
/// - one join table `Z_<n><RELATIONSHIP>` per many-to-many pair, with columns `Z_<n><INVERSE>` and
///   `Z_<m><RELATIONSHIP>`, numbered (`Z_2ARTISTS1`) when another join table of the store has that name;
/// - for an ordered to-many, an ordering column ("foreign order key"): `Z_FOK_<INVERSE>` on the
///   destination's table next to the inverse to-one's column, or `Z_FOK_<m><RELATIONSHIP>` in the join
///   table next to the members' column. It holds each member's position, spaced by 1024 from 1024;
/// - `Z_PRIMARYKEY` (entity numbers, names and the highest `Z_PK` handed out) and `Z_METADATA` (the
///   store's UUID and its metadata, including the model's version hashes, as a binary property list).
///
/// A new file's entity numbers are given in Core Data's order: roots sorted by name without regard to case,
/// each followed by its subentities, depth first, so a hierarchy has consecutive numbers. An existing file is
/// read with the numbers, join tables and join-table columns it has (``init(reading:entities:layout:url:)``).
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
      self = (metadata[ObjectGraphStoreFormatVersionKey] as? Int) == 1 ? .engineV1 : .coreData
    }

    /// The format number the engine writes for the layout whose attributes that allow external storage hold
    /// their values in `form`: 1 for format 1 (always bare), 2 for Core Data's layout with bare values (the
    /// engine's stores before it tagged them), 3 for Core Data's layout with tagged values.
    func formatVersion(_ form: ExternalBinaryRecord.Form) -> Int {
      self == .engineV1 ? 1 : form == .tagged ? 3 : 2
    }
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

  struct EntityTable: Sendable {
    let entity: NSEntityDescription
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
  /// How the columns of attributes that allow external storage hold their values: tagged as Core Data tags
  /// them for every new store and Core Data's own; bare in the engine's stores of format 1 and 2
  /// (``ExternalBinaryRecord``). Set from an existing store's metadata when it is opened.
  var externalRecords: ExternalBinaryRecord.Form
  /// The R-tree indexes (by table name) whose table a store opened read-only lacks or holds with other columns
  /// (``unusableRTreeTables(in:)``): its fetches compare the columns instead of reading them.
  var unusableRTreeTables: Set<String> = []
  let tables: [String: Table]
  let joinTables: [String: JoinTable]
  let entities: [String: EntityTable]
  let entityByNumber: [Int64: NSEntityDescription]
  /// The same mappings by entity identity, for hot paths (no string hashing, no lock to read a name).
  let byIdentity: [ObjectIdentifier: EntityTable]

  /// What could not be found in an existing file (``init(reading:entities:layout:url:)``): each a relationship
  /// whose join table, join-table column or foreign-key column the file lacks. Empty for a new file.
  let unresolved: [String]

  // MARK: - Laying out the tables

  /// The layout of a new file: entities numbered in Core Data's order, names as Core Data gives them.
  init(entities all: [NSEntityDescription], layout: Layout) {
    self.init(builder: Builder(entities: all, layout: layout, numbers: nil, file: nil))
  }

  /// The layout of an existing file: its own entity numbers (``StoreFileLayout/entityNumbers(for:computed:url:)``)
  /// and the join tables and columns it has, whatever names the engine would give a new file.
  ///
  /// - Throws: ``NSPersistentStoreIncompatibleSchemaError`` when the file's `Z_PRIMARYKEY`
  ///   does not match the model.
  init(reading file: StoreFileLayout, entities all: [NSEntityDescription], layout: Layout, url: URL?) throws {
    let numbers = try file.entityNumbers(for: all, computed: Builder.coreDataNumbers(all), url: url)
    self.init(builder: Builder(entities: all, layout: layout, numbers: numbers, file: file))
  }

  private init(builder original: Builder) {
    var builder = original
    builder.planJoinTables()
    for entity in builder.ordered { builder.map(entity) }
    builder.orderColumns()
    self.layout = builder.layout
    externalRecords = builder.layout == .coreData ? .tagged : .bare
    tables = builder.tables
    joinTables = builder.joinTables
    entities = builder.mappings
    unresolved = builder.unresolved
    entityByNumber = Dictionary(builder.ordered.map { (builder.numbers[$0.entityName] ?? 0, $0) }, uniquingKeysWith: { a, _ in a })
    byIdentity = Dictionary(builder.mappings.values.map { (ObjectIdentifier($0.entity), $0) }, uniquingKeysWith: { a, _ in a })
  }

  /// Whether the column of `slot` holds its values tagged (``ExternalBinaryRecord``): an attribute that allows
  /// external storage, in a store of the tagged form.
  func tagsExternalRecord(_ slot: EntityLayout.Slot) -> Bool {
    externalRecords == .tagged && Self.allowsExternalRecord(slot)
  }

  /// Whether `slot` is a Binary Data or Transformable attribute that allows external storage.
  static func allowsExternalRecord(_ slot: EntityLayout.Slot) -> Bool {
    guard case .attribute(let type) = slot.kind, type == .binaryDataAttributeType || type == .transformableAttributeType
    else { return false }
    return slot.attribute?.allowsExternalBinaryDataStorage == true
  }

  /// Core Data's order of entity names: without regard to case (`SyncableSettingsMetadata` before
  /// `SyncFeatureEntity`, as Core Data's own stores number them), names equal but for case by their bytes.
  static func coreDataOrder(_ lhs: String, _ rhs: String) -> Bool {
    let (left, right) = (lhs.lowercased(), rhs.lowercased())
    return left != right ? left < right : lhs < rhs
  }

  /// Works out the schema entity by entity: numbers, tables, columns and join tables, in Core Data's
  /// layout. Each kind of property has its own step.
  private struct Builder {
    /// The entities in number order: for a new file, roots in Core Data's order of names, each followed by
    /// its subentities depth first.
    let ordered: [NSEntityDescription]
    /// Entity numbers (`Z_ENT`): from 1 in Core Data's order for a new file, the file's own for an existing one.
    let numbers: [String: Int64]
    let layout: Layout
    /// The existing file being read, or `nil` for a new one.
    let file: StoreFileLayout?
    /// The join table of each many-to-many pair (and inverse-less to-many), keyed by ``joinKey(_:_:)`` of the
    /// side that names it; planned before the entities are mapped (``planJoinTables()``).
    private var joinPlans: [String: JoinTable] = [:]
    /// Inverse-less to-manys that an existing Core Data file keeps as a `Z<n><NAME>` column on the
    /// destination's table, keyed by ``joinKey(_:_:)``.
    private var destinationColumns: [String: String] = [:]
    /// Join-table column names already given: Core Data keeps them unique across the store (`Z_2ARTISTS1`).
    private var joinColumnNames: Set<String> = []
    /// The relationships whose join table was planned or looked for (by ``joinKey(_:_:)``).
    private var triedPairs: Set<String> = []
    /// What an existing file lacks (``SQLiteSchema/unresolved``).
    var unresolved: [String] = []
    /// Core Data's column order of each table (``Layout/coreData``): the keys `column(for:declaredBy:in:)`
    /// uses, in the order names are given out.
    private var columnOrder: [String: [String]] = [:]
    var tables: [String: Table] = [:]
    var joinTables: [String: JoinTable] = [:]
    var mappings: [String: EntityTable] = [:]
    private var usedColumns: [String: Set<String>] = [:]
    /// Columns already assigned to a property of a hierarchy, keyed by "<table>.<entity that declares it>.<name>".
    private var assigned: [String: String] = [:]

    init(entities all: [NSEntityDescription], layout: Layout, numbers given: [String: Int64]?, file: StoreFileLayout?) {
      self.layout = layout
      self.file = file
      let computed = Self.coreDataOrdered(all)
      let numbers = given ?? Self.coreDataNumbers(all)
      self.numbers = numbers
      ordered = computed.enumerated().sorted { lhs, rhs in
        (numbers[lhs.element.entityName] ?? 0, lhs.offset) < (numbers[rhs.element.entityName] ?? 0, rhs.offset)
      }.map(\.element)
      if layout == .coreData { nameColumnsInCoreDataOrder() }
    }

    /// Roots in Core Data's order of names (``SQLiteSchema/coreDataOrder(_:_:)``), each followed by its
    /// subentities depth first, in the same order: the order Core Data numbers a new store's entities in.
    static func coreDataOrdered(_ all: [NSEntityDescription]) -> [NSEntityDescription] {
      var ordered: [NSEntityDescription] = []
      func visit(_ entity: NSEntityDescription) {
        ordered.append(entity)
        for child in entity.subentities.sorted(by: { SQLiteSchema.coreDataOrder($0.entityName, $1.entityName) }) { visit(child) }
      }
      let included = Set(all.map { ObjectIdentifier($0) })
      for root in all.filter({ $0.superentity == nil || !included.contains(ObjectIdentifier($0.rootEntity)) })
        .sorted(by: { SQLiteSchema.coreDataOrder($0.entityName, $1.entityName) })
      {
        visit(root)
      }
      return ordered
    }

    /// The numbers Core Data gives the entities of a new store: 1, 2, … in ``coreDataOrdered(_:)``'s order.
    static func coreDataNumbers(_ all: [NSEntityDescription]) -> [String: Int64] {
      var numbers: [String: Int64] = [:]
      for (index, entity) in coreDataOrdered(all).enumerated() { numbers[entity.entityName] = Int64(index + 1) }
      return numbers
    }

    /// The storage groups of Core Data's column order: integers, 8-byte numbers (floating point, dates),
    /// decimals, strings, blobs (Artsy's store: `ZUPDATEDAT TIMESTAMP, ZDEPTH DECIMAL, ZAVAILABILITY VARCHAR`).
    private static func group(of type: NSAttributeType) -> Int {
      switch type {
      case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType: 0
      case .doubleAttributeType, .floatAttributeType, .dateAttributeType: 1
      case .decimalAttributeType: 2
      case .stringAttributeType, .URIAttributeType: 3
      default: 4
      }
    }

    /// Gives every column its name in Core Data's order (see the type's comment), so that names shared by
    /// several entities of one table are numbered as Core Data numbers them, and records the order of each
    /// table's columns.
    private mutating func nameColumnsInCoreDataOrder() {
      for group in 0..<5 {
        for entity in ordered {
          let table = Self.tableName(entity)
          var attributes: [NSAttributeDescription] = []
          var toOnes: [NSRelationshipDescription] = []
          for property in entity.ownProperties {
            switch property.kind {
            case .attribute(let attribute) where !attribute.isTransient && attribute.isSupportedAtRunTime:
              // A composite's elements' columns follow the ordered ones, in the order of its elements.
              if Self.group(of: attribute.attributeType) == group, attribute.attributeType != .compositeAttributeType {
                attributes.append(attribute)
              }
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
          // The ordering columns of ordered to-manys come after all the entity's to-ones (DuckDuckGo's
          // Bookmarks store: ZFAVORITEFOLDER, ZPARENT, Z_FOK_FAVORITEFOLDER, Z_FOK_PARENT).
          var orderColumns: [String] = []
          for relationship in toOnes.sorted(by: { $0.name < $1.name }) {
            let column = column(for: relationship.name, declaredBy: entity, in: table)
            order(column, in: table)
            if let destination = relationship.destinationEntity, let entityColumn = entityColumn(for: column, destination: destination) {
              order(entityColumn, in: table)
            }
            if relationship.inverseRelationship.map({ $0.isToMany && $0.isOrdered }) == true {
              orderColumns.append("Z_FOK_" + column.dropFirst())
            }
          }
          for column in orderColumns { order(column, in: table) }
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
    private func entityColumn(for column: String, destination: NSEntityDescription) -> String? {
      guard !destination.subentities.isEmpty, let number = numbers[destination.entityName] else { return nil }
      return "Z\(number)_" + column.dropFirst()
    }

    /// The mapping of one entity: where each of its slots is stored.
    mutating func map(_ entity: NSEntityDescription) {
      let table = Self.tableName(entity)
      if tables[table] == nil { tables[table] = Table(name: table, rootEntityName: entity.rootEntity.entityName, columns: []) }
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
                tables[destinationTable] = Table(name: destinationTable, rootEntityName: destination.rootEntity.entityName, columns: [])
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
      let number = numbers[entity.entityName] ?? 0
      mappings[entity.entityName] = EntityTable(
        entity: entity, number: number, rootNumber: numbers[entity.rootEntity.entityName] ?? number, table: table,
        numbersIncludingSubentities: entity.selfAndDescendants.compactMap { numbers[$0.entityName] }, storage: storage)
    }

    /// An attribute: one `Z<NAME>` column of the hierarchy's table.
    private mutating func attributeColumn(_ name: String, type: NSAttributeType, owner: NSEntityDescription, table: String) -> SlotStorage {
      let column = column(for: name, declaredBy: owner, in: table)
      addColumn(column, type: SQLiteSchema.sqlType(type), to: table)
      return .column(column)
    }

    /// A to-one: the destination's `Z_PK` in `Z<NAME>`, plus `Z<NAME>_ENT` when the destination has
    /// subentities (the row's entity number then tells which).
    private mutating func toOneColumns(_ name: String, destination: NSEntityDescription, owner: NSEntityDescription, table: String)
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

    /// The key of a relationship in ``joinPlans``: the entity that declares it and its name.
    private static func joinKey(_ entity: NSEntityDescription, _ relationship: String) -> String { entity.entityName + "." + relationship }

    /// Plans the join table of every many-to-many pair and inverse-less to-many, before any entity is
    /// mapped, in Core Data's order: entity by entity in number order, each entity's own relationships in
    /// Core Data's order of names. A new file gets Core Data's names, join-table columns numbered so that no
    /// two in the store are alike (`Z_2ARTISTS`, then `Z_2ARTISTS1`); an existing file is read with the
    /// tables and columns it has (``resolve(_:alternativeName:relationship:)``).
    mutating func planJoinTables() {
      // Pass 1 plans each pair from the side that names its table; pass 2 any pair an inheritance left
      // without one (each side's rule looked at another entity), from the first side met.
      for pass in 0..<2 {
        planJoinTables(pass: pass)
      }
      for plan in joinPlans.values { joinTables[plan.name] = plan }
    }

    private mutating func planJoinTables(pass: Int) {
      for entity in ordered {
        var relationships: [NSRelationshipDescription] = []
        for case let relationship as NSRelationshipDescription in entity.ownProperties
        where relationship.isToMany && !relationship.isTransient {
          relationships.append(relationship)
        }
        for relationship in relationships.sorted(by: { SQLiteSchema.coreDataOrder($0.name, $1.name) }) {
          guard let destination = relationship.destinationEntity else { continue }
          let inverse = relationship.inverseRelationship
          if let inverse, !inverse.isToMany { continue }  // one-to-many: the inverse to-one's column
          let key = Self.joinKey(entity, relationship.name)
          guard !triedPairs.contains(key), pass == 0 || inverse != nil else { continue }
          if let inverse {
            let inverseOwner = Self.declaringEntity(of: inverse.name, in: destination)
            // The pair is planned once, from the side that names the table.
            let inverseKey = Self.joinKey(inverseOwner, inverse.name)
            guard joinPlans[inverseKey] == nil, !triedPairs.contains(inverseKey),
              pass == 1 || isJoinOwner(relationship, of: entity, inverse: inverse, in: destination)
            else { continue }
          }
          triedPairs.insert(key)
          let ownerNumber = numbers[entity.entityName] ?? 0
          let destinationNumber = numbers[destination.entityName] ?? 0
          let table = "Z_\(ownerNumber)" + SQLiteSchema.sqlName(relationship.name)
          let sourceStem = "Z_\(ownerNumber)" + SQLiteSchema.sqlName(inverse?.name ?? entity.entityName)
          let destinationStem = "Z_\(destinationNumber)" + SQLiteSchema.sqlName(relationship.name)
          let hasInverseOrder = inverse.map { $0.isOrdered && $0 !== relationship } ?? false
          guard let file else {
            let source = uniqueJoinColumn(sourceStem)
            let destination = uniqueJoinColumn(destinationStem)
            joinPlans[key] = JoinTable(
              name: table, sourceColumn: source, destinationColumn: destination,
              destinationOrderColumn: relationship.isOrdered ? JoinTable.orderColumn(for: destination) : nil,
              // A relationship that is its own inverse keeps one row per direction: its one order is enough.
              sourceOrderColumn: hasInverseOrder ? JoinTable.orderColumn(for: source) : nil)
            continue
          }
          let alternative = inverse.map { inverse -> String in
            let inverseOwner = Self.declaringEntity(of: inverse.name, in: destination)
            return "Z_\(numbers[inverseOwner.entityName] ?? 0)" + SQLiteSchema.sqlName(inverse.name)
          }
          if let found = Self.resolve(
            file: file, table: table, alternativeName: alternative, sourceStem: sourceStem, destinationStem: destinationStem,
            ordered: relationship.isOrdered, inverseOrdered: hasInverseOrder)
          {
            joinPlans[key] = found
          } else if inverse == nil,
            let column = destinationColumn(ownerNumber: ownerNumber, relationship: relationship, destination: destination)
          {
            destinationColumns[key] = column
          } else {
            let names = ([table] + (alternative.map { [$0] } ?? [])).joined(separator: " or ")
            unresolved.append(
              "\(entity.entityName).\(relationship.name) (join table \(names) with columns \(sourceStem)… and \(destinationStem)…\(inverse == nil ? ", or a column Z\(ownerNumber)\(SQLiteSchema.sqlName(relationship.name)) on \(Self.tableName(destination))" : ""))"
            )
          }
        }
      }
    }

    /// Whether `relationship` (declared by `owner`) names the join table of its pair: the side whose entity
    /// comes first in Core Data's order of names; between two relationships of one entity, the one whose
    /// name comes last (Xcode's documentation index store shows it; the engine's format 1: the first).
    private func isJoinOwner(
      _ relationship: NSRelationshipDescription, of owner: NSEntityDescription, inverse: NSRelationshipDescription,
      in destination: NSEntityDescription
    ) -> Bool {
      if owner.name == destination.name {
        return layout == .coreData ? relationship.name >= inverse.name : relationship.name <= inverse.name
      }
      if owner.entityName.lowercased() != destination.entityName.lowercased() {
        return SQLiteSchema.coreDataOrder(owner.entityName, destination.entityName)
      }
      return (owner.entityName, relationship.name) <= (destination.entityName, inverse.name)
    }

    /// A join-table column name no other join table of the store has: `stem`, else `stem1`, `stem2`, …
    private mutating func uniqueJoinColumn(_ stem: String) -> String {
      var name = stem
      var suffix = 1
      while joinColumnNames.contains(name) {
        name = stem + "\(suffix)"
        suffix += 1
      }
      joinColumnNames.insert(name)
      return name
    }

    /// The join table an existing file has for a pair: the table named by either side, its member columns
    /// found by their stems (a stem, or a stem with Core Data's number after it), and the ordering columns
    /// the relationships need. `nil` when the file lacks any of them.
    private static func resolve(
      file: StoreFileLayout, table: String, alternativeName: String?, sourceStem: String, destinationStem: String,
      ordered: Bool, inverseOrdered: Bool
    ) -> JoinTable? {
      for name in [table] + (alternativeName.map { [$0] } ?? []) {
        guard let columns = file.columns(of: name) else { continue }
        let members = columns.filter { !$0.uppercased().hasPrefix("Z_FOK_") }
        func matches(_ stem: String) -> [String] {
          members.filter { column in
            let upper = column.uppercased()
            return upper.hasPrefix(stem) && upper.dropFirst(stem.count).allSatisfy(\.isNumber)
          }.sorted { ($0.count, $0) < ($1.count, $1) }
        }
        let sources = matches(sourceStem)
        var destinations = matches(destinationStem)
        guard let source = sources.first else { continue }
        // A relationship that is its own inverse: the first of the two columns is the source.
        if sourceStem == destinationStem { destinations.removeAll { $0 == source } }
        guard let destination = destinations.first else { continue }
        let has = { (column: String) in columns.contains { $0.uppercased() == column.uppercased() } }
        let destinationOrder = JoinTable.orderColumn(for: destination)
        let sourceOrder = JoinTable.orderColumn(for: source)
        if ordered && !has(destinationOrder) || inverseOrdered && !has(sourceOrder) { continue }
        return JoinTable(
          name: name, sourceColumn: source, destinationColumn: destination, destinationOrderColumn: ordered ? destinationOrder : nil,
          sourceOrderColumn: inverseOrdered ? sourceOrder : nil)
      }
      return nil
    }

    /// Core Data's column for a to-many without an inverse, in an existing file that has it: `Z<n><NAME>` on
    /// the destination's table, `n` the number of the entity that declares the relationship, holding the
    /// owner's `Z_PK` (Artsy's store: `ZDOCUMENT.Z1DOCUMENTS`). Unordered only: no store found shows an
    /// ordered one.
    private func destinationColumn(ownerNumber: Int64, relationship: NSRelationshipDescription, destination: NSEntityDescription) -> String?
    {
      guard !relationship.isOrdered, let file, let columns = file.columns(of: Self.tableName(destination)) else { return nil }
      let name = "Z\(ownerNumber)" + SQLiteSchema.sqlName(relationship.name)
      return columns.first { $0.uppercased() == name }
    }

    /// A many-to-many (or a to-many without inverse): the join table planned for the pair, seen from this
    /// side (the other side sees it with its columns swapped), or Core Data's column on the destination's
    /// table for an inverse-less to-many an existing file keeps so.
    private func joinTable(_ relationship: NSRelationshipDescription, destination: NSEntityDescription, owner: NSEntityDescription)
      -> SlotStorage
    {
      let key = Self.joinKey(owner, relationship.name)
      if let plan = joinPlans[key] { return .joinTable(plan, isOwner: true) }
      if let column = destinationColumns[key] { return .foreignKeyOnDestination(column: column, orderColumn: nil) }
      if let inverse = relationship.inverseRelationship,
        let plan = joinPlans[Self.joinKey(Self.declaringEntity(of: inverse.name, in: destination), inverse.name)]
      {
        return .joinTable(
          JoinTable(
            name: plan.name, sourceColumn: plan.destinationColumn, destinationColumn: plan.sourceColumn,
            destinationOrderColumn: plan.sourceOrderColumn
              ?? (relationship.isOrdered ? JoinTable.orderColumn(for: plan.sourceColumn) : nil),
            sourceOrderColumn: plan.destinationOrderColumn),
          isOwner: false)
      }
      return .joinTable(JoinTable(name: "", sourceColumn: "", destinationColumn: ""), isOwner: false)
    }

    /// The column of a property in a table: `Z<NAME>`, numbered when the name is taken, and the same
    /// column for the same property wherever the hierarchy meets it.
    private mutating func column(for property: String, declaredBy owner: NSEntityDescription, in table: String) -> String {
      let key = "\(table).\(owner.entityName).\(property)"
      if let existing = assigned[key] { return existing }
      // A composite's element (`location.latitude`) gets `ZLOCATION_LATITUDE`: the engine's choice of name.
      let base = SQLiteSchema.sqlName(property.replacingOccurrences(of: ".", with: "_"))
      var name = "Z" + base
      var suffix = 1
      while usedColumns[table, default: ["Z_PK", "Z_ENT", "Z_OPT"]].contains(name) {
        name = "Z" + base + "\(suffix)"
        suffix += 1
      }
      usedColumns[table, default: ["Z_PK", "Z_ENT", "Z_OPT"]].insert(name)
      assigned[key] = name
      return name
    }

    private mutating func addColumn(_ name: String, type: String, to table: String) {
      if !(tables[table]?.columns.contains(where: { $0.name == name }) ?? true) { tables[table]?.columns.append((name, type)) }
    }

    private static func tableName(_ entity: NSEntityDescription) -> String { "Z" + SQLiteSchema.sqlName(entity.rootEntity.entityName) }

    /// The highest superentity that declares the property: subentities share its column.
    private static func declaringEntity(of slotName: String, in entity: NSEntityDescription) -> NSEntityDescription {
      // A composite's element is declared where its composite is.
      let name = slotName.split(separator: ".", maxSplits: 1).first.map(String.init) ?? slotName
      var current = entity
      while let parent = current.superentity, parent.propertiesByName[name] != nil { current = parent }
      return current
    }
  }

  // MARK: - Names and types

  /// Upper-cased, with anything but letters, digits and `_` dropped, as Core Data names columns.
  /// The assignment that counts a row's optimistic-locking version (`Z_OPT`) up by one at each change. At
  /// the end of SQLite's 64-bit range, or on a value that is not an integer (a row edited by hand), it starts
  /// again at 1: `Z_OPT + 1` would turn the largest integer into a REAL, which no later save's version check
  /// (`Z_OPT = ?`) would match again. Only equality is ever asked of a version, so starting over is safe.
  static let nextVersion = "Z_OPT = CASE WHEN typeof(Z_OPT) = 'integer' AND Z_OPT < 9223372036854775807 THEN Z_OPT + 1 ELSE 1 END"

  static func sqlName(_ name: String) -> String {
    String(name.uppercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "_" }.map(Character.init))
  }

  static func sqlType(_ type: NSAttributeType) -> String {
    switch type {
    case .stringAttributeType, .URIAttributeType, .decimalAttributeType: "VARCHAR"
    case .integer16AttributeType, .integer32AttributeType, .integer64AttributeType, .booleanAttributeType: "INTEGER"
    case .doubleAttributeType, .floatAttributeType: "FLOAT"
    case .dateAttributeType: "TIMESTAMP"
    case .binaryDataAttributeType, .UUIDAttributeType: "BLOB"
    case .transformableAttributeType, .compositeAttributeType, .objectIDAttributeType, .undefinedAttributeType: "BLOB"
    }
  }

  // MARK: - Statements

  func mapping(for entity: NSEntityDescription) throws -> EntityTable {
    guard let mapping = byIdentity[ObjectIdentifier(entity)] else {
      throw ObjectGraphError(.unknownKey, "Entity '\(entity.entityName)' is not in this store's model.")
    }
    return mapping
  }

  /// The statements that create the schema in an empty database.
  func createStatements() throws -> [String] {
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
    statements += try fetchIndexStatements()
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

  /// The model's fetch indexes (`NSEntityDescription.indexes`), then the unique indexes of its uniqueness
  /// constraints (see ``uniqueIndexStatements()``); fetch indexes are named and written as Core Data writes them:
  /// `CREATE INDEX Z_Note_byCreatedAt ON ZNOTE (ZCREATEDAT COLLATE BINARY DESC)`. An element naming a
  /// property without a column of its own (a to-many) is left out; an R-tree index is a virtual table instead
  /// (``rTreeIndexes``).
  /// A partial index (one with ``NSFetchIndexDescription/partialIndexPredicate``) ends in its `WHERE` clause.
  /// - Throws: what ``partialIndexCondition(of:in:)`` throws for a predicate an index cannot hold.
  func fetchIndexStatements() throws -> [String] {
    var statements: [String] = []
    for mapping in entities.values.sorted(by: { $0.number < $1.number }) {
      for index in mapping.entity.indexes where !index.elements.contains(where: { $0.collationType != .binary }) {
        let columns = index.elements.compactMap { element -> String? in
          indexedColumn(element, in: mapping).map { "\($0) COLLATE BINARY \(element.isAscending ? "ASC" : "DESC")" }
        }
        guard !columns.isEmpty else { continue }
        let condition = try partialIndexCondition(of: index, in: mapping).map { " WHERE " + $0 } ?? ""
        statements.append(
          "CREATE INDEX \(Self.fetchIndexName(entity: mapping.entity.entityName, index: index.name)) ON \(mapping.table) (\(columns.joined(separator: ", ")))\(condition)"
        )
      }
    }
    return statements + uniqueIndexStatements()
  }

  /// The column of `mapping`'s table that an index element names: an attribute's, or a to-one relationship's
  /// key; `nil` for a property with no column of its own (a to-many), which an index leaves out.
  func indexedColumn(_ element: NSFetchIndexElementDescription, in mapping: EntityTable) -> String? {
    guard let slot = mapping.entity.layout.indexByName[element.indexedPropertyName] else { return nil }
    switch mapping.storage[slot] {
    case .column(let column), .toOne(let column, _): return column
    default: return nil
    }
  }

  /// The names of the indexes ``fetchIndexStatements()`` makes: what a new store records as the engine's own.
  var fetchIndexNames: [String] { get throws { try fetchIndexStatements().compactMap(Self.indexName(in:)) } }

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
      let superNumber = entity.superentity.flatMap { entities[$0.entityName]?.number } ?? 0
      return (number, entity.entityName, superNumber)
    }
  }
}
