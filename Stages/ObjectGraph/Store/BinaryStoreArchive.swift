import Foundation
internal import GRDB

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#else
  import Darwin
#endif

/// The file of a binary store (``NSPersistentStore/StoreType/binary``): an `NSKeyedArchiver` archive, written as a binary
/// property list (by ``KeyedArchiveWriter``), of the store's metadata and of every row of its tables.
///
/// The archive's root is a dictionary:
/// - `NSStoreMetadata`: the store's metadata, as ``NSPersistentStore/metadata`` reports it (`NSStoreType`
///   `"Binary"`, `NSStoreUUID`, the model version hashes, the app's own keys);
/// - `ObjectGraphBinaryStoreFormat`: 1, this layout's number;
/// - `ObjectGraphTables`: per table of the store's Core Data layout (`ZNOTE`, `Z_3TAGS`, `Z_PRIMARYKEY`, …),
///   a dictionary with `columns` (the column names) and `rows` (each an array of values in that order:
///   integer, real, string, data, or `NSNull` for NULL).
///
/// The object graph is kept in the same tables and columns as a SQLite store's, so a binary store loads into
/// an in-memory SQLite database and behaves exactly as the other store types. Apple's own binary store
/// format is private, and no file Core Data wrote was at hand to compare with: these files are ObjectGraph's,
/// not Apple's (see "Binary stores" in Docs/ObjectGraph.md).
///
/// Reading goes through the engine's own property-list and keyed-archive readers, which check every
/// reference, so a damaged or foreign file is a thrown error, never a trap.
enum BinaryStoreArchive {
  /// The key of the store's metadata in the archive's root dictionary.
  static let metadataKey = "NSStoreMetadata"
  /// The key of this layout's number in the archive's root dictionary.
  static let formatKey = "ObjectGraphBinaryStoreFormat"
  /// The key of the tables in the archive's root dictionary.
  static let tablesKey = "ObjectGraphTables"
  /// The layout this engine writes and reads.
  static let format = 1
  /// Tables not archived: the metadata has its own key, and the model copy is made again from the model the
  /// store is opened with (a binary store is not migrated, so it never needs the model it was made with).
  static let unarchivedTables: Set<String> = ["Z_METADATA", "Z_MODELCACHE"]

  /// One table's rows as the archive holds them.
  struct Table {
    let name: String
    let columns: [String]
    let rows: [[DatabaseValue]]
  }

  /// What a binary store file holds.
  struct Contents {
    let metadata: [String: any Sendable]
    let tables: [Table]
  }

  // MARK: - Writing

  /// The archive of the store open in `db`, as the caller's transaction sees it.
  static func encode(from db: Database) throws -> Data {
    var archive = KeyedArchiveWriter()
    let metadata = archivedValue(try StoreMetadata.read(in: db), into: &archive) ?? archive.dictionary([])
    let names = try String.fetchAll(
      db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name")
    var tables: [(key: String, value: KeyedArchiveWriter.Reference)] = []
    // An R-tree fetch index is not archived: loading the rows fills it again through its triggers.
    let rTrees = Set(try NSPersistentStore.rTreeTables(in: db)).union(try NSPersistentStore.rTreeShadowTables(in: db))
    for name in names where !unarchivedTables.contains(name) && !rTrees.contains(name) {
      let columns = try db.columns(in: name).map(\.name)
      var rows: [KeyedArchiveWriter.Reference] = []
      let list = columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
      // Read (and, below, written) through SQLite's C interface, which gives a text's length: GRDB cuts a
      // text at a NUL character.
      let prepared = try db.makeStatement(sql: "SELECT \(list) FROM \(name.quotedDatabaseIdentifier)")
      try withExtendedLifetime(prepared) {
        let statement = RawStatement(prepared)
        defer { statement.finish() }
        while try statement.next() {
          rows.append(archive.array((0..<Int32(columns.count)).map { cell(statement.databaseValue($0), into: &archive) }))
        }
      }
      let columnList = archive.array(columns.map { archive.plain(.string($0)) })
      tables.append((name, archive.dictionary([("columns", columnList), ("rows", archive.array(rows))])))
    }
    let root = archive.dictionary([
      (metadataKey, metadata), (formatKey, archive.plain(.integer(Int64(format)))), (tablesKey, archive.dictionary(tables)),
    ])
    return archive.encoded(root: root)
  }

  private static func cell(_ value: DatabaseValue, into archive: inout KeyedArchiveWriter) -> KeyedArchiveWriter.Reference {
    switch value.storage {
    case .null: archive.null()
    case .int64(let number): archive.plain(.integer(number))
    case .double(let number): archive.plain(.real(number))
    case .string(let text): archive.plain(.string(text))
    case .blob(let data): archive.plain(.data(data))
    }
  }

  /// A metadata value archived (`nil` for a value a property list cannot hold, which is left out).
  private static func archivedValue(_ value: Any, into archive: inout KeyedArchiveWriter) -> KeyedArchiveWriter.Reference? {
    switch value {
    case let text as String: return archive.plain(.string(text))
    case let flag as Bool: return archive.plain(.bool(flag))
    case let number as Int: return archive.plain(.integer(Int64(number)))
    case let number as Int64: return archive.plain(.integer(number))
    case let number as Double: return archive.plain(.real(number))
    case let data as Data: return archive.plain(.data(data))
    case let date as Date: return archive.date(date)
    case let list as [Any]: return archive.array(list.compactMap { archivedValue($0, into: &archive) })
    case let dictionary as [String: Any]:
      let entries = dictionary.sorted { $0.key < $1.key }.compactMap { key, entry in
        archivedValue(entry, into: &archive).map { (key: key, value: $0) }
      }
      return archive.dictionary(entries)
    default: return nil
    }
  }

  /// A metadata value as a Foundation object, for reading it back as a SQLite store's metadata is read
  /// (`nil` for a value a property list cannot hold).
  private static func foundationObject(_ value: Any) -> NSObject? {
    switch value {
    case let text as String: return NSString(string: text)
    case let flag as Bool: return NSNumber(value: flag)
    case let number as Int: return NSNumber(value: number)
    case let number as Int64: return NSNumber(value: number)
    case let number as Double: return NSNumber(value: number)
    case let data as Data: return NSData(data: data)
    case let date as Date: return NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
    case let list as [Any]: return NSArray(array: list.compactMap { foundationObject($0) })
    case let dictionary as [String: Any]:
      let result = NSMutableDictionary()
      for (key, entry) in dictionary { result[NSString(string: key)] = foundationObject(entry) }
      return result
    default: return nil
    }
  }

  /// Why writing a binary store's file failed: the step and the C library's error number.
  struct WriteFailure: Error {
    /// What could not be done, as in "create /folder/.Store.bin.saving-…".
    let step: String
    let code: Int32

    /// The step and the system's words for the error.
    var reason: String { "could not \(step) (\(String(cString: strerror(code))))" }
    /// The error as a POSIX error, for ``ObjectGraphError/underlyingError``.
    var posixError: POSIXError { POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO) }
  }

  /// Replaces the file at `url` with `data` atomically: the bytes go to a new file in the same folder, which
  /// is flushed to disk and then renamed over the old one, so the file is at every moment either the old
  /// archive or the new one, whole. A file that was there keeps its permissions.
  /// - Throws: ``WriteFailure`` naming the step that failed; the old file is then left as it was and the new
  ///   one removed.
  static func writeAtomically(_ data: Data, to url: URL) throws {
    let target = url.resolvingSymlinksInPath()
    let temporary = target.deletingLastPathComponent().appendingPathComponent(
      ".\(target.lastPathComponent).saving-\(UUID().uuidString)")
    var mode: mode_t = 0o644
    var status = stat()
    if stat(target.path, &status) == 0 { mode = status.st_mode & 0o7777 }
    let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard descriptor >= 0 else { throw WriteFailure(step: "create \(temporary.path)", code: errno) }
    var written = false
    defer { if !written { unlink(temporary.path) } }
    do {
      defer { close(descriptor) }
      try data.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
          let count = write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
          if count < 0 && errno == EINTR { continue }
          guard count > 0 else { throw WriteFailure(step: "write \(temporary.path)", code: errno) }
          offset += count
        }
      }
      _ = fchmod(descriptor, mode)
      guard fsync(descriptor) == 0 else { throw WriteFailure(step: "flush \(temporary.path) to disk", code: errno) }
    }
    guard rename(temporary.path, target.path) == 0 else {
      throw WriteFailure(step: "rename \(temporary.path) over \(target.path)", code: errno)
    }
    written = true
    // The rename itself reaches the disk when the folder is flushed; a folder that cannot be is no error.
    let folder = open(target.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
    if folder >= 0 {
      _ = fsync(folder)
      close(folder)
    }
  }

  // MARK: - Reading

  /// Reads the binary store file at `url` without changing it.
  /// - Throws: ``NSPersistentStoreOpenError`` when the file cannot be read,
  ///   ``NSPersistentStoreInvalidTypeError`` when it is not a binary store.
  static func read(url: URL) throws -> Contents {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw ObjectGraphError(
        .persistentStoreOpen, "Cannot read \(url.path): \(error.localizedDescription). The file was left untouched.",
        url: url, underlyingError: error)
    }
    return try decode(data, url: url)
  }

  /// Reads a binary store's metadata without changing the file.
  static func readMetadata(url: URL) throws -> [String: any Sendable] {
    try read(url: url).metadata
  }

  /// Decodes the bytes of a binary store file.
  static func decode(_ data: Data, url: URL) throws -> Contents {
    guard BinaryPropertyList.isBinaryPropertyList(data) else {
      let sqlite = data.starts(with: Array("SQLite format 3\u{0}".utf8))
      throw refusal(
        url,
        sqlite
          ? "it is a SQLite database. Add it with type .sqlite"
          : "it is not a binary property list (a binary store is an NSKeyedArchiver archive, which starts with 'bplist00')")
    }
    do {
      let archive = try KeyedArchive(BinaryPropertyList.read(data))
      let root = try archive.object(at: archive.rootIndex, "the archive's root")
      guard root.isKind(of: "NSDictionary") else { throw KeyedArchive.Malformed(reason: "its root is not a dictionary") }
      var entries: [String: PropertyListValue] = [:]
      for (key, value) in try archive.entries(.uid(UInt64(archive.rootIndex)), "the archive's root") {
        if let name = try archive.string(key, "a key of the archive's root") { entries[name] = value }
      }
      guard let metadataValue = entries[metadataKey],
        let plain = try archive.plainValue(metadataValue, "the store's metadata") as? [String: any Sendable],
        let metadata = normalized(plain),
        metadata[NSStoreTypeKey] as? String == NSPersistentStore.StoreType.binary.rawValue,
        metadata[NSStoreModelVersionHashesKey] is [String: Data]
      else {
        throw KeyedArchive.Malformed(
          reason: "it is a keyed archive but not a binary store's (no metadata with NSStoreType \"Binary\" and model version hashes)")
      }
      let format = try archive.resolve(entries[formatKey], "the format number")?.integer
      guard format == Int64(Self.format) else {
        throw KeyedArchive.Malformed(
          reason: "it is a binary store of format \(format.map(String.init) ?? "none"), not \(Self.format), the one this "
            + "engine reads (a store Apple's Core Data wrote, or a newer ObjectGraph's)")
      }
      return Contents(metadata: metadata, tables: try tables(archive, entries[tablesKey]))
    } catch let error as KeyedArchive.Malformed {
      throw refusal(url, error.reason)
    } catch let error as BinaryPropertyList.Malformed {
      throw refusal(url, "it is not a readable binary property list: \(error.reason)")
    }
  }

  private static func refusal(_ url: URL, _ reason: String) -> ObjectGraphError {
    ObjectGraphError(
      .persistentStoreInvalidType,
      "\(url.path) is not a binary store that ObjectGraph can read: \(reason). The file was left untouched. Point the store at another file, or add this one with the type it has.",
      url: url)
  }

  private static func tables(_ archive: KeyedArchive, _ value: PropertyListValue?) throws -> [Table] {
    var tables: [Table] = []
    for (key, entry) in try archive.entries(value, "the tables") {
      guard let name = try archive.string(key, "a table name") else { continue }
      var fields: [String: PropertyListValue] = [:]
      for (field, value) in try archive.entries(entry, "table \(name)") {
        if let key = try archive.string(field, "a key of table \(name)") { fields[key] = value }
      }
      let columns = try archive.members(fields["columns"], "the columns of \(name)").map {
        guard let column = try archive.string($0, "a column of \(name)") else {
          throw KeyedArchive.Malformed(reason: "a column of \(name) has no name")
        }
        return column
      }
      var rows: [[DatabaseValue]] = []
      for (number, row) in try archive.members(fields["rows"], "the rows of \(name)").enumerated() {
        let cells = try archive.members(row, "row \(number) of \(name)")
        guard cells.count == columns.count else {
          throw KeyedArchive.Malformed(
            reason: "row \(number) of \(name) has \(cells.count) values for its \(columns.count) columns")
        }
        rows.append(try cells.map { try databaseValue($0, archive, "a value of row \(number) of \(name)") })
      }
      tables.append(Table(name: name, columns: columns, rows: rows))
    }
    return tables
  }

  private static func databaseValue(_ value: PropertyListValue, _ archive: KeyedArchive, _ what: String) throws
    -> DatabaseValue
  {
    switch try archive.resolve(value, what) {
    case nil, .null?: return .null
    case .integer(let number)?: return number.databaseValue
    case .bool(let flag)?: return Int64(flag ? 1 : 0).databaseValue
    case .real(let number)?: return number.databaseValue
    case .string(let text)?: return text.databaseValue
    case .data(let data)?: return data.databaseValue
    case .dictionary?:
      guard case .uid(let reference) = value else { break }
      let object = try archive.object(at: Int(reference), what)
      if object.isKind(of: "NSNull") { return .null }
      if let text = try? archive.string(value, what) { return text.databaseValue }
      if object.isKind(of: "NSData"), case .data(let data)? = try archive.resolve(object.fields["NS.data"], what) {
        return data.databaseValue
      }
    default: break
    }
    throw KeyedArchive.Malformed(reason: "\(what) is not a number, string, data or NSNull")
  }

  /// Metadata decoded from an archive, with the types a SQLite store's metadata has (`Int`, `[String: Data]`
  /// for the hashes), by way of the same property-list reading.
  private static func normalized(_ metadata: [String: any Sendable]) -> [String: any Sendable]? {
    guard let object = foundationObject(metadata),
      let plist = try? PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0),
      var result = StoreMetadata.decode(plist)
    else { return nil }
    if let uuid = metadata[NSStoreUUIDKey] as? String { result[NSStoreUUIDKey] = uuid }
    return result
  }

  // MARK: - Loading into a store's database

  /// Fills the tables of a new in-memory store (its schema and `Z_PRIMARYKEY` rows written for the same
  /// model) with the archive's rows, inside the caller's transaction.
  /// - Throws: ``NSPersistentStoreIncompatibleSchemaError`` when the archive names a table,
  ///   column or entity the model's layout does not have.
  static func load(_ contents: Contents, into db: Database, url: URL) throws {
    let existing = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
    for table in contents.tables where !unarchivedTables.contains(table.name) {
      guard existing.contains(table.name) else {
        throw mismatch(url, "it holds a table \(table.name) that the model's entities do not make")
      }
      let known = Set(try db.columns(in: table.name).map(\.name))
      if let unknown = table.columns.first(where: { !known.contains($0) }) {
        throw mismatch(url, "its table \(table.name) has a column \(unknown) that the model does not make")
      }
      if table.name == "Z_PRIMARYKEY" {
        try loadPrimaryKeys(table, into: db, url: url)
        continue
      }
      let columns = table.columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
      let marks = Array(repeating: "?", count: table.columns.count).joined(separator: ", ")
      let prepared = try db.makeStatement(
        sql: "INSERT INTO \(table.name.quotedDatabaseIdentifier) (\(columns)) VALUES (\(marks))")
      try withExtendedLifetime(prepared) {
        let statement = RawStatement(prepared)
        for row in table.rows {
          try statement.reset()
          for (index, value) in row.enumerated() { try statement.bind(value, at: Int32(index + 1)) }
          try statement.run()
        }
      }
    }
  }

  /// Sets each entity's highest key handed out; the entities and their numbers must be the model's.
  private static func loadPrimaryKeys(_ table: Table, into db: Database, url: URL) throws {
    guard let entity = table.columns.firstIndex(of: "Z_ENT"), let name = table.columns.firstIndex(of: "Z_NAME"),
      let max = table.columns.firstIndex(of: "Z_MAX")
    else { throw mismatch(url, "its Z_PRIMARYKEY table lacks Z_ENT, Z_NAME or Z_MAX") }
    for row in table.rows {
      try db.execute(
        sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ? AND Z_NAME = ?",
        arguments: [row[max], row[entity], row[name]])
      guard db.changesCount == 1 else {
        throw mismatch(url, "its entity \(row[name]) numbered \(row[entity]) is not the model's")
      }
    }
  }

  private static func mismatch(_ url: URL, _ reason: String) -> ObjectGraphError {
    ObjectGraphError(
      .persistentStoreIncompatibleSchema,
      "The binary store at \(url.path) has the model's version hashes, but \(reason): the file was changed outside ObjectGraph. It was left untouched. Restore it from a backup, or move it away to start a new store.",
      url: url)
  }
}
