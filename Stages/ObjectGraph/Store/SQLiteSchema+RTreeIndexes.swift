import Foundation

extension SQLiteSchema {
  /// A fetch index whose elements are R-tree ones (``NSFetchIndexElementType/rTree``), as a SQLite store keeps
  /// it: an R*Tree virtual table named as Core Data names it, `Z_<Entity>_<Index>`, with the entity row's `Z_PK`
  /// and one `<COLUMN>_MIN`, `<COLUMN>_MAX` pair per element in the index's order (each row a point: both hold
  /// the column's value), kept in step with the entity's table by three triggers, `<name>_INSERT`,
  /// `<name>_UPDATE` and `<name>_DELETE`, the names Core Data gives them.
  ///
  /// SQLite's R*Tree has no `NULL` coordinate: a row whose value is `NULL` in one column spans that dimension
  /// whole (from minus to plus infinity), so that a lookup on another column still finds it (the comparison of
  /// the `NULL` column itself never matches, and the caller compares the columns too); a row whose indexed
  /// values are all `NULL` is not in the R-tree, as no comparison with a constant can match it.
  struct RTreeIndex: Sendable, Equatable {
    /// The virtual table's name: `Z_Region_byLocation`.
    let name: String
    /// The fetch index's name in the model.
    let indexName: String
    /// The entity that declares the index.
    let entityName: String
    /// The entity's table: `ZREGION`.
    let table: String
    /// The indexed columns of the entity's table, in the index's order: `ZLATITUDE`, `ZLONGITUDE`.
    let columns: [String]
    /// The indexed properties (by name, a composite's element as `location.latitude`), beside ``columns``.
    let properties: [String]

    /// The virtual table's columns, as `PRAGMA table_info` lists them: `Z_PK`, then each column's pair.
    var tableColumns: [String] { ["Z_PK"] + columns.flatMap { [$0 + "_MIN", $0 + "_MAX"] } }

    /// `CREATE VIRTUAL TABLE IF NOT EXISTS Z_Region_byLocation USING RTREE (Z_PK INTEGER PRIMARY KEY, ZLATITUDE_MIN,
    /// ZLATITUDE_MAX, …)`: Core Data's statement (its columns carry no type: an R*Tree's are numbers).
    var createStatement: String {
      let pairs = columns.map { "\($0)_MIN, \($0)_MAX" }.joined(separator: ", ")
      return "CREATE VIRTUAL TABLE IF NOT EXISTS \(name) USING RTREE (Z_PK INTEGER PRIMARY KEY, \(pairs))"
    }

    /// The names of the three triggers that keep the table in step.
    var triggerNames: [String] { ["_INSERT", "_UPDATE", "_DELETE"].map { name + $0 } }

    /// A column's minimum and maximum: its value twice, or minus and plus infinity for `NULL`.
    private static func bounds(of column: String) -> String {
      "ifnull(\(column), -9e999), ifnull(\(column), 9e999)"
    }

    /// The triggers on the entity's table: a new row is added (when one of its values is set), a row whose
    /// indexed columns change is taken out and added again, a deleted row is taken out.
    var triggerStatements: [String] {
      let pairs = columns.map { "\($0)_MIN, \($0)_MAX" }.joined(separator: ", ")
      let values = columns.map { Self.bounds(of: "NEW." + $0) }.joined(separator: ", ")
      let set = columns.map { "NEW.\($0) NOT NULL" }.joined(separator: " OR ")
      let add = "INSERT OR REPLACE INTO \(name) (Z_PK, \(pairs)) SELECT NEW.Z_PK, \(values) WHERE \(set)"
      return [
        "CREATE TRIGGER IF NOT EXISTS \(name)_INSERT AFTER INSERT ON \(table) FOR EACH ROW BEGIN \(add) ; END",
        "CREATE TRIGGER IF NOT EXISTS \(name)_UPDATE AFTER UPDATE OF \(columns.joined(separator: ", ")) ON \(table) FOR EACH ROW BEGIN DELETE FROM \(name) WHERE Z_PK = OLD.Z_PK ; \(add) ; END",
        "CREATE TRIGGER IF NOT EXISTS \(name)_DELETE AFTER DELETE ON \(table) FOR EACH ROW BEGIN DELETE FROM \(name) WHERE Z_PK = OLD.Z_PK ; END",
      ]
    }

    /// Fills the table from the rows the entity's table holds (those with an indexed value set).
    var fillStatement: String {
      let pairs = columns.map { "\($0)_MIN, \($0)_MAX" }.joined(separator: ", ")
      let values = columns.map { Self.bounds(of: $0) }.joined(separator: ", ")
      let set = columns.map { "\($0) NOT NULL" }.joined(separator: " OR ")
      return "INSERT OR REPLACE INTO \(name) (Z_PK, \(pairs)) SELECT Z_PK, \(values) FROM \(table) WHERE \(set)"
    }

    /// The column of the indexed property `property`, or `nil` when the index does not hold it.
    func column(for property: String) -> String? {
      properties.firstIndex(of: property).map { columns[$0] }
    }
  }

  /// The model's R-tree fetch indexes, entity by entity in number order: each fetch index of which an element
  /// is ``NSFetchIndexElementType/rTree``, over the elements that have a column of their own (an attribute,
  /// a composite's element, a to-one's key); an index left with none is left out.
  var rTreeIndexes: [RTreeIndex] {
    entities.values.sorted(by: { $0.number < $1.number }).flatMap { mapping in
      mapping.entity.indexes.compactMap { index in rTreeIndex(index, in: mapping) }
    }
  }

  /// The names of the model's R-tree indexes whose virtual table `file` lacks, or holds with other columns: what
  /// a store opened read-only (which changes nothing in its file) cannot read.
  func unusableRTreeTables(in file: StoreFileLayout) -> Set<String> {
    Set(
      rTreeIndexes.filter { index in
        file.columns(of: index.name)?.map { $0.uppercased() } != index.tableColumns.map { $0.uppercased() }
      }.map(\.name))
  }

  /// The R-tree index `name` that a fetch of `entity` may read: the entity's own, or one a superentity
  /// declares (a subentity's rows are in its table too); `nil` when there is none of that name.
  func rTreeIndex(named name: String, for entity: NSEntityDescription) -> RTreeIndex? {
    var current: NSEntityDescription? = entity
    while let candidate = current {
      if let mapping = entities[candidate.entityName],
        let index = candidate.indexes.first(where: { $0.name == name }).flatMap({ rTreeIndex($0, in: mapping) })
      {
        return index
      }
      current = candidate.superentity
    }
    return nil
  }

  private func rTreeIndex(_ index: NSFetchIndexDescription, in mapping: EntityTable) -> RTreeIndex? {
    guard index.elements.contains(where: { $0.collationType == .rTree }) else { return nil }
    var columns: [String] = []
    var properties: [String] = []
    for element in index.elements {
      guard let column = indexedColumn(element, in: mapping) else { continue }
      columns.append(column)
      properties.append(element.indexedPropertyName)
    }
    guard !columns.isEmpty else { return nil }
    return RTreeIndex(
      name: Self.fetchIndexName(entity: mapping.entity.entityName, index: index.name), indexName: index.name,
      entityName: mapping.entity.entityName, table: mapping.table, columns: columns, properties: properties)
  }
}
