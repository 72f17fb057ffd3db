import Foundation
internal import GRDB

extension SQLiteSchema {
  /// One uniqueness constraint as it applies to the rows of one entity: the entity that declares it (the
  /// entity itself or a superentity), the attributes, their slots in the entity's layout and their columns.
  struct UniqueConstraint {
    /// The entity whose `uniquenessConstraints` lists the constraint.
    let declaring: NSEntityDescription
    /// The constraint's position in the declaring entity's list (with `declaring`, its identity).
    let position: Int
    let names: [String]
    /// Slots in the layout of the entity whose rows are checked.
    let slots: [Int]
    let columns: [String]
    let types: [NSAttributeType]
    let table: String
    /// The entity numbers whose rows the constraint covers; `nil` when it covers the whole table (it is
    /// declared on the table's root entity).
    let entityNumbers: [Int64]?
  }

  /// The uniqueness constraints that cover `entity`'s rows: its own and its superentities'. A constraint
  /// naming anything but a stored attribute (a relationship, a transient, an unknown name) is not
  /// enforced.
  func uniqueConstraints(for entity: NSEntityDescription) -> [UniqueConstraint] {
    guard let mapping = byIdentity[ObjectIdentifier(entity)] else { return [] }
    var result: [UniqueConstraint] = []
    var current: NSEntityDescription? = entity
    while let declaring = current {
      current = declaring.superentity
      guard let declaringMapping = byIdentity[ObjectIdentifier(declaring)] else { continue }
      for (position, names) in declaring.uniquenessConstraints.enumerated() where !names.isEmpty {
        var slots: [Int] = []
        var columns: [String] = []
        var types: [NSAttributeType] = []
        for name in names {
          guard let slot = entity.layout.indexByName[name], case .column(let column) = mapping.storage[slot],
            case .attribute(let type) = entity.layout.slots[slot].kind
          else { break }
          slots.append(slot)
          columns.append(column)
          types.append(type)
        }
        guard slots.count == names.count else { continue }
        result.append(
          UniqueConstraint(
            declaring: declaring, position: position, names: names, slots: slots, columns: columns, types: types,
            table: mapping.table,
            entityNumbers: declaring.superentity == nil ? nil : declaringMapping.numbersIncludingSubentities))
      }
    }
    return result
  }

  /// A unique index per uniqueness constraint, named `Z_<Entity>_UNIQUE_<attribute>_…` and written as Core
  /// Data writes it: `CREATE UNIQUE INDEX Z_Item_UNIQUE_name ON ZITEM (ZNAME COLLATE BINARY ASC)`. The store
  /// refuses a row that would repeat a constrained set of values even if a save's own check missed it.
  ///
  /// A constraint declared on a subentity is indexed on the hierarchy's table (Core Data's place for it) when
  /// every attribute it names is the subentity's own: other entities' rows hold no value in those columns,
  /// so the index covers exactly the rows the constraint does. One naming an inherited attribute, whose
  /// column other entities' rows share, is checked by the save only. (Stores of the engine's format 1 index
  /// root entities' constraints only.)
  func uniqueIndexStatements() -> [String] {
    var statements: [String] = []
    for mapping in entities.values.sorted(by: { $0.number < $1.number }) {
      let entity = mapping.entity
      if entity.superentity != nil {
        guard layout == .coreData else { continue }
      }
      for constraint in uniqueConstraints(for: entity) where constraint.declaring === entity {
        if entity.superentity != nil {
          let own = Set(entity.ownProperties.map(\.name))
          guard constraint.names.allSatisfy(own.contains) else { continue }
        }
        let name = Self.fetchIndexName(entity: entity.entityName, index: "UNIQUE_" + constraint.names.joined(separator: "_"))
        let columns = constraint.columns.map { "\($0) COLLATE BINARY ASC" }.joined(separator: ", ")
        statements.append("CREATE UNIQUE INDEX \(name) ON \(mapping.table) (\(columns))")
      }
    }
    return statements
  }

  /// The name of the index a `CREATE INDEX` or `CREATE UNIQUE INDEX` statement makes; `nil` for any other
  /// statement.
  static func indexName(in statement: String) -> String? {
    let words = statement.split(separator: " ", maxSplits: 4)
    if words.count > 2, words[0] == "CREATE", words[1] == "INDEX" { return String(words[2]) }
    if words.count > 3, words[0] == "CREATE", words[1] == "UNIQUE", words[2] == "INDEX" { return String(words[3]) }
    return nil
  }
}
