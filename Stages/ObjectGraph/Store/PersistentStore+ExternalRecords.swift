import Foundation
internal import GRDB

/// Bringing the values of attributes that allow external storage into Core Data's tagged form
/// (``ExternalBinaryRecord``) in a store the engine wrote before it tagged them.
extension NSPersistentStore {
  /// The columns of attributes that allow external storage, each once (a subentity shares its superentity's
  /// column), as `(table, column)`, in table and column order.
  static func externalRecordColumns(of schema: SQLiteSchema) -> [(table: String, column: String)] {
    var found: Set<String> = []
    var columns: [(table: String, column: String)] = []
    for mapping in schema.entities.values {
      for slot in mapping.entity.layout.slots where SQLiteSchema.allowsExternalRecord(slot) {
        guard case .column(let column) = mapping.storage[slot.index], found.insert(mapping.table + "." + column).inserted else {
          continue
        }
        columns.append((mapping.table, column))
      }
    }
    return columns.sorted { ($0.table, $0.column) < ($1.table, $1.column) }
  }

  /// In the caller's transaction: when `metadata` is that of a store of Core Data's layout whose values are
  /// bare (the engine's format 2), prefixes every value of an attribute that allows external storage with the
  /// in-row tag and records format 3. Values already in the row stay byte for byte what they were after the
  /// tag, so nothing is lost; a failure rolls the caller's transaction back. Returns whether it wrote.
  static func tagExternalRecords(in db: Database, schema: SQLiteSchema, metadata: [String: any Sendable], url: URL?) throws -> Bool {
    guard schema.layout == .coreData, ExternalBinaryRecord.Form(metadata: metadata) == .bare else { return false }
    // Blobs (and text, as its bytes); a number left by hand is no value of the attribute and stays as it is.
    try rewriteExternalRecords(in: db, schema: schema, where: { "\($0) IS NOT NULL" }) { ExternalBinaryRecord.tagged($0) }
    try StoreMetadata.update(
      in: db, with: [ObjectGraphStoreFormatVersionKey: schema.layout.formatVersion(.tagged)], url: url)
    return true
  }

  /// In the caller's transaction: for every column of an attribute that allows external storage, the value of
  /// each row that `condition` (the SQL of a condition on the column named, with `arguments`) selects, read as
  /// bytes and written back as `rewrite` makes it; a value that is no bytes, or that `rewrite` answers `nil`
  /// for, stays.
  private static func rewriteExternalRecords(
    in db: Database, schema: SQLiteSchema, where condition: (String) -> String, arguments: StatementArguments = [],
    _ rewrite: (Data) -> Data?
  ) throws {
    for (table, column) in externalRecordColumns(of: schema) {
      let rows = try Row.fetchAll(db, sql: "SELECT Z_PK, \(column) FROM \(table) WHERE \(condition(column))", arguments: arguments)
      let update = try db.makeStatement(sql: "UPDATE \(table) SET \(column) = ? WHERE Z_PK = ?")
      for row in rows {
        guard let bytes = Data.fromDatabaseValue(row[1]), let rewritten = rewrite(bytes) else { continue }
        try update.execute(arguments: [rewritten, row[0] as Int64])
      }
    }
  }
}

extension NSPersistentStore {
  /// The column's value for an attribute that allows external storage: its bytes in the row, tagged. Core
  /// Data decides value by value whether a value goes to a file; the engine keeps every value in its row.
  static func externalRecord(_ value: StoredValue) -> DatabaseValue {
    guard case .data(let data)? = value else { return .null }
    return ExternalBinaryRecord.tagged(data).databaseValue
  }
}

extension RawStatement {
  /// The value of an attribute that allows external storage from its tagged column `column` of a store at
  /// `storeURL`: the bytes in the row, or those of the file it names (``ExternalBinaryRecord/value(of:storeURL:)``).
  func externalRecord(_ column: Int32, storeURL: URL?) -> StoredValue {
    guard !isNull(column) else { return nil }
    return ExternalBinaryRecord.value(of: data(column), storeURL: storeURL).map { .data($0) }
  }
}

extension SQLiteSchema {
  /// The column's value for `value` of the attribute in `slot`: tagged for an attribute that allows external
  /// storage in a store that tags them, as Core Data stores any other value otherwise.
  func columnValue(_ value: StoredValue, of slot: EntityLayout.Slot, type: NSAttributeType) -> DatabaseValue {
    tagsExternalRecord(slot) ? NSPersistentStore.externalRecord(value) : SQLiteValueCoding.encode(value, as: type)
  }
}

extension NSPersistentStore {
  /// In the caller's transaction on a copy of this store's rows: puts the bytes of every value kept in a file of
  /// the store's external data folder into its row (tagged in-row), so that the copy, wherever it goes (another
  /// file, a binary store, memory), holds every value itself. A file that cannot be read leaves its reference
  /// (with the warning reading it gives).
  func inlineExternalRecords(in db: Database) throws {
    guard schema.externalRecords == .tagged, let url else { return }
    let inFile: StatementArguments = [Data([ExternalBinaryRecord.inFile])]
    try Self.rewriteExternalRecords(in: db, schema: schema, where: { "substr(\($0), 1, 1) = ?" }, arguments: inFile) { column in
      guard ExternalBinaryRecord.fileName(column) != nil else { return nil }
      return ExternalBinaryRecord.value(of: column, storeURL: url).map(ExternalBinaryRecord.tagged)
    }
  }

  /// Makes the external data of the store at `destination` what the store at `source` has: the destination's
  /// support folder is replaced by a copy of the source's (or removed when the source has none), after the
  /// store itself was copied, so the rows that name files find them.
  static func copyExternalData(from source: URL, to destination: URL) throws {
    let from = ExternalBinaryRecord.supportFolder(for: source)
    let to = ExternalBinaryRecord.supportFolder(for: destination)
    let manager = FileManager.default
    guard from.standardizedFileURL.path != to.standardizedFileURL.path else { return }
    do {
      if manager.fileExists(atPath: to.path) { try manager.removeItem(at: to) }
      if manager.fileExists(atPath: from.path) { try manager.copyItem(at: from, to: to) }
    } catch {
      throw ObjectGraphError(
        .persistentStoreOperation,
        "The store at \(source.path) was copied to \(destination.path), but its external data folder (\(from.path)) could not be copied to \(to.path): \(error.localizedDescription). Values kept in files read as nil from the copy; check the folder's permissions and replace the store again.",
        url: destination, underlyingError: error)
    }
  }
}
