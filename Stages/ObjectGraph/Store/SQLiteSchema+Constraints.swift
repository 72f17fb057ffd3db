import Foundation
internal import GRDB

extension SQLiteSchema {
  /// One uniqueness constraint as it applies to the rows of one entity: the entity that declares it (the
  /// entity itself or a superentity), the attributes and to-one relationships, their slots in the entity's
  /// layout and their columns.
  struct UniqueConstraint {
    /// What one named property of a constraint is: an attribute of a type, or a to-one relationship (its
    /// value is the destination's primary key, in the relationship's column).
    enum Element: Equatable {
      case attribute(NSAttributeType)
      case toOne
    }

    /// The entity whose `uniquenessConstraints` lists the constraint.
    let declaring: NSEntityDescription
    /// The constraint's position in the declaring entity's list (with `declaring`, its identity).
    let position: Int
    let names: [String]
    /// Slots in the layout of the entity whose rows are checked.
    let slots: [Int]
    let columns: [String]
    let elements: [Element]
    let table: String
    /// The entity numbers whose rows the constraint covers; `nil` when it covers the whole table (it is
    /// declared on the table's root entity).
    let entityNumbers: [Int64]?
  }

  /// The uniqueness constraints that cover `entity`'s rows: its own and its superentities'. A constraint
  /// may name stored attributes and to-one relationships (SwiftData's unique relationships are Core Data
  /// constraints on to-ones); one naming anything else (a to-many, a transient, an unknown name) is not
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
        var elements: [UniqueConstraint.Element] = []
        for name in names {
          guard let slot = entity.layout.indexByName[name] else { break }
          switch (mapping.storage[slot], entity.layout.slots[slot].kind) {
          case (.column(let column), .attribute(let type)):
            columns.append(column)
            elements.append(.attribute(type))
          case (.toOne(let column, _), _):
            columns.append(column)
            elements.append(.toOne)
          default:
            break
          }
          guard columns.count > slots.count else { break }
          slots.append(slot)
        }
        guard slots.count == names.count else { continue }
        result.append(
          UniqueConstraint(
            declaring: declaring, position: position, names: names, slots: slots, columns: columns, elements: elements,
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
      // A constraint naming a to-one is checked by the save only: the engine did not check one before, so a
      // store it wrote may hold rows such an index would refuse at open.
      for constraint in uniqueConstraints(for: entity)
      where constraint.declaring === entity && !constraint.elements.contains(.toOne) {
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
