import Foundation
import GRDB
import NotesModel
import ObjectGraph

/// The migration benchmark: the tutorial model's version 1 → version 2 migration of a store of `count`
/// notes, by ObjectGraph (opening the store with the current model, which migrates it) and by hand (the
/// same schema change as SQL written for this layout, in one transaction through GRDB), on two copies of
/// the same file, in the same run.
///
/// The change (`DataModel` → `DataModel 2`): a new entity `Attachment`, which sorts before `Note`, so every
/// entity number shifts by one (`Z_ENT` in every row, `Z_PRIMARYKEY`, and the Note-Tag join table's name
/// and columns); `Note.wordCount`, required with default 0, given to every row; `Note.updatedAt` renamed
/// to `modifiedAt`; the new table's and the renamed join table's indexes, and the fetch index `byCreatedAt`
/// on `Note.createdAt`; the metadata's version hashes and the model the store keeps (`Z_MODELCACHE`).
///
/// What the clock covers. ObjectGraph: `addPersistentStore` with the current model and Core Data's two
/// migration options (`NSMigratePersistentStoresAutomaticallyOption`,
/// `NSInferMappingModelAutomaticallyOption`), which inspects the file, finds version 1 beside the current version in the `.xcdatamodeld`, infers the mapping, migrates
/// (its own connection, one exclusive transaction) and opens the store for use. By hand: opening a
/// `DatabaseQueue` (WAL, as the store is), one exclusive transaction running `handWrittenSQL`, closing it.
/// Both end with the file migrated and nothing left in its WAL.
///
/// After every run both files are compared: the same schema (`sqlite_master`'s SQL), the same
/// `Z_PRIMARYKEY` rows, the same `Z_METADATA` (its property list compared by content: the engine writes
/// its keys in a varying order), and for every other table the same row count and the same sum of a hash
/// of each row's values (`bench_rowhash`), so the two sides provably did the same work.
struct MigrationBench {
  let version1: NSManagedObjectModel
  let current: NSManagedObjectModel

  init() throws {
    guard let url = NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld") else {
      throw BenchmarkError("the tutorial model \(NotesModel.name).xcdatamodeld is not in the NotesModel bundle")
    }
    guard let version1 = try NSManagedObjectModel.versions(in: url).first(where: { $0.name == "DataModel" })?.model else {
      throw BenchmarkError("the tutorial model has no version 'DataModel'")
    }
    self.version1 = version1
    guard let current = NSManagedObjectModel(contentsOf: url) else {
      throw BenchmarkError("the tutorial model at \(url.path) cannot be read")
    }
    self.current = current
  }

  // MARK: - The version 1 store (not timed)

  /// Makes a version 1 store of `count` notes at `url`: the engine creates the file and its schema, then
  /// plain SQL fills it fast (10 notebooks, 20 tags, every note in a notebook and tagged twice, every other
  /// note with an `updatedAt`), and the engine checks that it reads what was written.
  func makeVersion1Store(count: Int, at url: URL) throws {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version1)
    try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: url))

    let database = try DatabaseQueue(path: url.path)
    try database.write { db in
      func number(_ entity: String) throws -> Int64 {
        guard let value = try Int64.fetchOne(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = ?", arguments: [entity]) else {
          throw BenchmarkError("the version 1 store has no entity \(entity)")
        }
        return value
      }
      let (note, notebook, tag) = (try number("Note"), try number("Notebook"), try number("Tag"))
      let join = try Self.joinTable(db)
      try db.execute(
        sql: """
          WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10)
          INSERT INTO ZNOTEBOOK (Z_PK, Z_ENT, Z_OPT, ZCREATEDAT, ZNAME) SELECT i, \(notebook), 1, 700000000, 'Notebook ' || i FROM n;
          WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20)
          INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) SELECT i, \(tag), 1, 'tag-' || i FROM n;
          WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
          INSERT INTO ZNOTE (Z_PK, Z_ENT, Z_OPT, ZBODY, ZCREATEDAT, ZISPINNED, ZTITLE, ZUPDATEDAT, ZNOTEBOOK)
          SELECT i, \(note), 1, 'Body of note ' || i || ': ' || substr('lorem ipsum dolor sit amet, consectetur adipiscing', 1, 10 + i % 40),
            700000000 + i, i % 5 = 0, 'Note ' || i, CASE WHEN i % 2 = 1 THEN 700000000.5 + i END, 1 + i % 10
          FROM n;
          INSERT INTO \(join.table) (\(join.notes), \(join.tags)) SELECT Z_PK, 1 + Z_PK % 20 FROM ZNOTE;
          INSERT INTO \(join.table) (\(join.notes), \(join.tags)) SELECT Z_PK, 1 + (Z_PK % 20 + 1 + (Z_PK / 20) % 19) % 20 FROM ZNOTE;
          UPDATE Z_PRIMARYKEY SET Z_MAX = CASE Z_NAME WHEN 'Note' THEN \(count) WHEN 'Notebook' THEN 10 WHEN 'Tag' THEN 20 ELSE Z_MAX END;
          """)
    }
    try database.close()

    // The engine reads it as version 1: every note, and the renamed attribute's values.
    let reader = NSPersistentStoreCoordinator(managedObjectModel: version1)
    try reader.addPersistentStore(type: .sqlite, at: url, options: nil)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = reader
    let (notes, updated) = try context.performAndWait {
      let all = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note"))
      let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
      request.predicate = NSPredicate(format: "updatedAt != nil")
      return (all, try context.count(for: request))
    }
    guard notes == count, updated == (count + 1) / 2 else {
      throw BenchmarkError(
        "the version 1 store reads back \(notes) notes, \(updated) with updatedAt; expected \(count), \((count + 1) / 2)")
    }
    for store in reader.persistentStores { try reader.remove(store) }
  }

  /// Version 1's Note-Tag join table (`Z_<n>TAGS`) and its columns.
  private static func joinTable(_ db: Database) throws -> (table: String, notes: String, tags: String) {
    let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z_[0-9]*TAGS'")
    guard tables.count == 1 else { throw BenchmarkError("expected one Note-Tag join table, found \(tables)") }
    let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [tables[0]])
    guard let notes = columns.first(where: { $0.hasSuffix("NOTES") }), let tags = columns.first(where: { $0.hasSuffix("TAGS") }) else {
      throw BenchmarkError("the join table \(tables[0]) has columns \(columns)")
    }
    return (tables[0], notes, tags)
  }

  // MARK: - The two migrations (timed)

  /// Times: ObjectGraph opens the version 1 file with the current model and migrates it.
  func migrateWithEngine(_ url: URL) throws -> Double {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: current)
    let seconds = try Stopwatch.seconds {
      try coordinator.addPersistentStore(
        type: .sqlite, at: url,
        options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
    }
    for store in coordinator.persistentStores { try coordinator.remove(store) }
    return seconds
  }

  /// The schema change by hand, for this layout: what a careful developer would write after reading the
  /// two schemas (`sqlite3 Store.sqlite .schema`) and `Z_PRIMARYKEY`. Version 1 numbers Note 1, Notebook 2,
  /// Tag 3; version 2 numbers Attachment 1, Note 2, Notebook 3, Tag 4.
  static let handWrittenSQL = """
    ALTER TABLE ZNOTE RENAME COLUMN ZUPDATEDAT TO ZMODIFIEDAT;
    ALTER TABLE ZNOTE ADD COLUMN ZWORDCOUNT INTEGER;
    UPDATE ZNOTE SET Z_ENT = 2, ZWORDCOUNT = 0;
    UPDATE ZNOTEBOOK SET Z_ENT = 3;
    UPDATE ZTAG SET Z_ENT = 4;
    DROP INDEX Z_1TAGS_Z_3TAGS_INDEX;
    ALTER TABLE Z_1TAGS RENAME TO Z_2TAGS;
    ALTER TABLE Z_2TAGS RENAME COLUMN Z_1NOTES TO Z_2NOTES;
    ALTER TABLE Z_2TAGS RENAME COLUMN Z_3TAGS TO Z_4TAGS;
    CREATE INDEX Z_2TAGS_Z_4TAGS_INDEX ON Z_2TAGS (Z_4TAGS, Z_2NOTES);
    CREATE TABLE ZATTACHMENT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZBYTECOUNT INTEGER, ZNOTE INTEGER, ZFILENAME VARCHAR );
    CREATE INDEX ZATTACHMENT_ZNOTE_INDEX ON ZATTACHMENT (ZNOTE);
    UPDATE Z_PRIMARYKEY SET Z_ENT = -Z_ENT - 1;
    UPDATE Z_PRIMARYKEY SET Z_ENT = -Z_ENT;
    INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (1, 'Attachment', 0, 0);
    CREATE INDEX Z_Note_byCreatedAt ON ZNOTE (ZCREATEDAT COLLATE BINARY DESC);
    UPDATE Z_METADATA SET Z_PLIST = ?;
    UPDATE Z_MODELCACHE SET Z_CONTENT = ?;
    """

  /// What the hand-written side copies from the engine's output rather than make itself: the metadata
  /// property list (version 2's hashes, the same store UUID) and the model the store keeps (`Z_MODELCACHE`,
  /// version 2's Xcode XML as the engine writes it).
  struct EngineOutput {
    let metadata: Data
    let modelCache: Data
  }

  /// Times: `handWrittenSQL` in one exclusive transaction, writing `output`'s metadata and model copy.
  func migrateByHand(_ url: URL, writing output: EngineOutput) throws -> Double {
    try Stopwatch.seconds {
      var configuration = Configuration()
      configuration.label = "objectgraph-bench.migration"
      configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
      let database = try DatabaseQueue(path: url.path, configuration: configuration)
      try database.writeWithoutTransaction { db in
        try db.inTransaction(.exclusive) {
          try db.execute(sql: Self.handWrittenSQL, arguments: [output.metadata, output.modelCache])
          return .commit
        }
      }
      try database.close()
    }
  }

  /// The metadata property list and the kept model of a store file the engine migrated.
  func engineOutput(of url: URL) throws -> EngineOutput {
    let database = try DatabaseQueue(path: url.path)
    defer { try? database.close() }
    return try database.read { db in
      guard let plist = try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA"),
        let model = try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE")
      else { throw BenchmarkError("\(url.lastPathComponent) has no metadata or no kept model") }
      return EngineOutput(metadata: plist, modelCache: model)
    }
  }

  // MARK: - Checking both sides did the same

  /// What a migrated file holds, cheaply summed: its schema, `Z_PRIMARYKEY`, `Z_METADATA` (by content), and per table
  /// the row count and the sum of a 32-bit hash of each row's values (column order and types included).
  struct FileSummary: Equatable, CustomStringConvertible {
    var schema: [String] = []
    var primaryKeys: [String] = []
    var metadata: [String] = []
    var tables: [String: String] = [:]

    var description: String {
      ([
        "schema: " + schema.joined(separator: "; "), "Z_PRIMARYKEY: " + primaryKeys.joined(separator: ", "),
        "Z_METADATA: " + metadata.joined(separator: ", "),
      ]
        + tables.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }).joined(separator: "\n  ")
    }
  }

  func summary(of url: URL) throws -> FileSummary {
    var configuration = Configuration()
    configuration.readonly = true
    configuration.prepareDatabase { db in db.add(function: Self.rowHash) }
    let database = try DatabaseQueue(path: url.path, configuration: configuration)
    defer { try? database.close() }
    return try database.read { db in
      var summary = FileSummary()
      summary.schema = try String.fetchAll(
        db, sql: "SELECT type || ' ' || name || ' ' || tbl_name || ': ' || IFNULL(sql, '') FROM sqlite_master ORDER BY type, name")
      summary.primaryKeys = try String.fetchAll(
        db, sql: "SELECT Z_ENT || ' ' || Z_NAME || ' ' || Z_SUPER || ' ' || Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
      summary.metadata = try Row.fetchAll(db, sql: "SELECT Z_VERSION, Z_UUID, Z_PLIST FROM Z_METADATA").map { row in
        "\(row[0] as Int64? ?? -1) \(row[1] as String? ?? "") \(Self.canonical(plist: row[2] as Data? ?? Data()))"
      }
      for table in try String.fetchAll(
        db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'Z_METADATA' ORDER BY name")
      {
        let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?) ORDER BY cid", arguments: [table])
        let row = try Row.fetchOne(
          db, sql: "SELECT COUNT(*), TOTAL(bench_rowhash(\(columns.joined(separator: ", ")))) FROM \(table)")
        summary.tables[table] = "\(row?[0] as Int? ?? -1) rows, hash sum \(row?[1] as Double? ?? -1)"
      }
      return summary
    }
  }

  /// A property list as text with every dictionary's keys sorted: the engine encodes the same metadata with
  /// its keys in a varying order, so the bytes of two equal property lists may differ.
  static func canonical(plist data: Data) -> String {
    func text(_ value: Any) -> String {
      switch value {
      case let dictionary as [String: Any]:
        return "{" + dictionary.keys.sorted().map { "\($0)=\(text(dictionary[$0] ?? ""))" }.joined(separator: ", ") + "}"
      case let array as [Any]: return "[" + array.map(text).joined(separator: ", ") + "]"
      case let data as Data: return "<" + data.map { String(format: "%02x", $0) }.joined() + ">"
      default: return "\(value)"
      }
    }
    guard let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) else {
      return "unreadable property list <\(data.count) bytes>"
    }
    return text(plist)
  }

  /// FNV-1a over a row's values (type and bytes of each), folded to 32 bits so that a million of them sum
  /// exactly in a Double (`TOTAL`).
  private static let rowHash = DatabaseFunction("bench_rowhash", argumentCount: nil, pure: true) { values in
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func mix<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
      for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    }
    func mix(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { mix($0) } }
    for value in values {
      switch value.storage {
      case .null: mix([0])
      case .int64(let int): mix([1]); mix(UInt64(bitPattern: int))
      case .double(let double): mix([2]); mix(double.bitPattern)
      case .string(let string): mix([3]); mix(string.utf8); mix([0xFF])
      case .blob(let data): mix([4]); mix(data); mix([0xFF])
      }
    }
    return Int64((hash >> 32) ^ (hash & 0xFFFF_FFFF))
  }
}
