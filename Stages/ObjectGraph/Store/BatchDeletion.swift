import Foundation
internal import GRDB

/// A batch delete, with the relationships' delete rules applied in SQL: the rows of one round are
/// grouped by entity; for each relationship, Deny refuses if a related row exists, Cascade adds the
/// related rows to the next round, Nullify clears the references to the deleted rows (raising the
/// versions of the rows it changes), No Action leaves them; then the rows and their join-table rows go.
/// With persistent history, the values of attributes marked `preservesValueInHistoryOnDeletion` are read
/// from each row (cascaded ones too) before it goes, for its tombstone.
struct BatchDeletion {
  let store: NSPersistentStore
  let db: Database
  /// The IDs of every row deleted, in order.
  private(set) var deleted: [NSManagedObjectID] = []
  /// Whether to read tombstones (``HistoryTombstone``) before deleting: the store records history.
  var readsTombstones = false
  /// The tombstones of the rows deleted that have one.
  private(set) var tombstones: [NSManagedObjectID: Data] = [:]
  /// Rows already deleted (or being deleted), by table and key, so that cycles end.
  private var seen: [String: Set<Int64>] = [:]

  init(store: NSPersistentStore, db: Database) {
    self.store = store
    self.db = db
  }

  mutating func delete(_ rows: [(pk: Int64, entity: Int64)]) throws {
    var round = rows
    while !round.isEmpty {
      var next: [(pk: Int64, entity: Int64)] = []
      let groups = Dictionary(grouping: round, by: \.entity)
      for (number, group) in groups.sorted(by: { $0.key < $1.key }) {
        guard let entity = store.schema.entityByNumber[number], let mapping = store.schema.byIdentity[ObjectIdentifier(entity)]
        else { continue }
        let keys = group.map(\.pk).filter { seen[mapping.table, default: []].insert($0).inserted }
        guard !keys.isEmpty else { continue }
        next += try applyDeleteRules(mapping, keys: keys)
        if readsTombstones {
          let ids = keys.compactMap { store.objectID(pk: $0, entityNumber: number) }
          tombstones.merge(try HistoryTombstone.read(ids, of: entity, from: store, db: db)) { $1 }
        }
        try chunked(keys) { list, arguments in
          for storage in mapping.storage {
            if case .joinTable(let join, _) = storage, !join.name.isEmpty {
              try db.execute(sql: "DELETE FROM \(join.name) WHERE \(join.sourceColumn) IN \(list)", arguments: arguments)
            }
          }
          try db.execute(sql: "DELETE FROM \(mapping.table) WHERE Z_PK IN \(list)", arguments: arguments)
        }
        deleted += keys.compactMap { store.objectID(pk: $0, entityNumber: number) }
      }
      round = next
    }
  }

  /// Each relationship's rule for rows `keys` of `mapping`'s entity; returns the rows Cascade adds.
  private func applyDeleteRules(_ mapping: SQLiteSchema.EntityTable, keys: [Int64]) throws -> [(pk: Int64, entity: Int64)] {
    var cascaded: [(pk: Int64, entity: Int64)] = []
    for slot in mapping.entity.layout.slots where slot.isRelationship && !slot.isTransient {
      guard let relationship = slot.relationship, let destination = relationship.destinationEntity,
        let destinationMapping = store.schema.byIdentity[ObjectIdentifier(destination)]
      else { continue }
      // The related rows: how to select them, and how to clear their references to the deleted rows.
      let related: String
      var clear: String?
      switch mapping.storage[slot.index] {
      case .toOne(let column, _):
        related =
          "SELECT d.Z_PK, d.Z_ENT FROM \(destinationMapping.table) d WHERE d.Z_PK IN (SELECT \(column) FROM \(mapping.table) WHERE Z_PK IN %@)"
        if let inverse = relationship.inverseRelationship, let inverseIndex = destination.layout.index(of: inverse.name),
          case .toOne(let inverseColumn, let inverseEntityColumn) = destinationMapping.storage[inverseIndex]
        {
          let entityPart = inverseEntityColumn.map { ", \($0) = NULL" } ?? ""
          clear =
            "UPDATE \(destinationMapping.table) SET \(inverseColumn) = NULL\(entityPart), \(SQLiteSchema.nextVersion) WHERE \(inverseColumn) IN %@"
        }
      case .foreignKeyOnDestination(let column, let orderColumn):
        related = "SELECT d.Z_PK, d.Z_ENT FROM \(destinationMapping.table) d WHERE d.\(column) IN %@"
        let entityColumn: String? =
          relationship.inverseRelationship.flatMap { inverse in
            guard let inverseIndex = destination.layout.index(of: inverse.name),
              case .toOne(_, let entityColumn) = destinationMapping.storage[inverseIndex]
            else { return nil }
            return entityColumn
          }
        let entityPart = (entityColumn.map { ", \($0) = NULL" } ?? "") + (orderColumn.map { ", \($0) = NULL" } ?? "")
        clear = "UPDATE \(destinationMapping.table) SET \(column) = NULL\(entityPart), \(SQLiteSchema.nextVersion) WHERE \(column) IN %@"
      case .joinTable(let join, _) where !join.name.isEmpty:
        related =
          "SELECT d.Z_PK, d.Z_ENT FROM \(join.name) j JOIN \(destinationMapping.table) d ON d.Z_PK = j.\(join.destinationColumn) WHERE j.\(join.sourceColumn) IN %@"
      default:
        continue
      }
      switch relationship.deleteRule {
      case .denyDeleteRule:
        var count = 0
        try chunked(keys) { list, arguments in
          count +=
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(related.replacingOccurrences(of: "%@", with: list)))", arguments: arguments)
            ?? 0
        }
        if count > 0 {
          throw ObjectGraphError(
            .validationRelationshipDeniedDelete,
            "The batch delete was refused: \(count) row(s) still related through \(mapping.entity.entityName).\(slot.name) (delete rule: deny). Nothing was deleted. Delete or reassign them first."
          )
        }
      case .cascadeDeleteRule:
        try chunked(keys) { list, arguments in
          let rows = try Row.fetchCursor(db, sql: related.replacingOccurrences(of: "%@", with: list), arguments: arguments)
          while let row = try rows.next() { cascaded.append((row[0], row[1])) }
        }
      case .nullifyDeleteRule:
        if let clear {
          try chunked(keys) { list, arguments in
            try db.execute(sql: clear.replacingOccurrences(of: "%@", with: list), arguments: arguments)
          }
        }
      case .noActionDeleteRule:
        break
      }
    }
    return cascaded
  }

  /// Runs `body` for the keys in chunks of 500, with `(?, ?, …)` and the keys as arguments.
  private func chunked(_ keys: [Int64], _ body: (String, StatementArguments) throws -> Void) throws {
    for chunk in stride(from: 0, to: keys.count, by: 500) {
      let slice = Array(keys[chunk..<min(chunk + 500, keys.count)])
      try body("(" + Array(repeating: "?", count: slice.count).joined(separator: ", ") + ")", StatementArguments(slice))
    }
  }
}
