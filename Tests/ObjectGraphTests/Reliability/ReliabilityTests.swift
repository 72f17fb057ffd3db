import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// What an adversary found: inputs that crashed or hung the engine, and stores it could not reopen. Each is
/// a typed error now, or opens.
@Suite("Reliability: bad input and interrupted files", .temporaryFolders)
struct ReliabilityTests {
  @Test("Deeply nested predicates are refused with 900002, not a stack overflow")
  func deepPredicates() throws {
    for format in [
      String(repeating: "(", count: 10_000) + "a == 1" + String(repeating: ")", count: 10_000),
      String(repeating: "NOT ", count: 10_000) + "a == 1",
      "a IN " + String(repeating: "{", count: 10_000) + "1" + String(repeating: "}", count: 10_000),
      "a == " + String(repeating: "-", count: 10_000) + "1",
      "a == " + String(repeating: "(", count: 10_000) + "1" + String(repeating: ")", count: 10_000),
    ] {
      let error = expectCode(.predicateSyntax) { _ = try FetchPredicate(NSPredicate(format: format)) }
      #expect(error?.message.contains("levels deep") == true, "\(format.prefix(20)): \(error?.message ?? "")")
    }
    // A real predicate with some nesting still parses.
    _ = NSPredicate(format: "((a == 1 AND (b == 2 OR NOT (c == 3))) OR d IN {1, 2, {3}})")
  }

  @Test("An entity that is its own parent, or a parent cycle, is a model error naming the entities")
  func parentCycles() throws {
    let folder = try TemporaryFolder()
    for (name, xml) in [
      ("Self", #"<model><entity name="A" parentEntity="A"><attribute name="x" attributeType="String"/></entity></model>"#),
      (
        "Cycle",
        #"<model><entity name="A" parentEntity="B"><attribute name="x" attributeType="String"/></entity><entity name="B" parentEntity="A"/></model>"#
      ),
      (
        "Indexed",
        #"<model><entity name="A" parentEntity="A"><attribute name="x" attributeType="String" indexed="YES"/><fetchIndex name="byX"><fetchIndexElement property="x" type="Binary" order="ascending"/></fetchIndex><uniquenessConstraints><uniquenessConstraint><constraint value="x"/></uniquenessConstraint></uniquenessConstraints></entity></model>"#
      ),
      (
        "Derived",
        #"<model><entity name="A" parentEntity="A"><attribute name="x" attributeType="String"/><attribute name="y" attributeType="String" derived="YES" derivationExpression="x"/><relationship name="r" toMany="YES" destinationEntity="A" inverseName="r" inverseEntity="A"/></entity></model>"#
      ),
    ] {
      let version = folder.appending("\(name).xcdatamodel")
      try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
      try Data(xml.utf8).write(to: version.appendingPathComponent("contents"))
      let error = expectCode(.modelInvalid) { _ = try NSManagedObjectModel(loadingContentsOf: version) }
      #expect(error?.message.contains("inherits from itself") == true, "\(error?.message ?? "")")
    }
    let a = NSEntityDescription(name: "A", properties: [.attribute(NSAttributeDescription(name: "x", type: .string))])
    let b = NSEntityDescription(name: "B", properties: [])
    a.superentity = b
    b.superentity = a
    _ = expectCode(.modelInvalid) { _ = try NSManagedObjectModel(entities: [a, b]) }
    let selfish = NSEntityDescription(name: "S", properties: [.attribute(NSAttributeDescription(name: "x", type: .string))])
    selfish.superentity = selfish
    _ = expectCode(.modelInvalid) { _ = try NSManagedObjectModel(entities: [selfish]) }
  }

  @Test("An entity whose table would be one of the store's own (_PRIMARYKEY, _METADATA) is refused when the model loads")
  func reservedNames() throws {
    for name in ["_PRIMARYKEY", "_METADATA", "_1BOOKS", "-_MODELCACHE"] {
      let entity = NSEntityDescription(name: name, properties: [.attribute(NSAttributeDescription(name: "x", type: .string))])
      let error = expectCode(.modelInvalid) { _ = try NSManagedObjectModel(entities: [entity]) }
      #expect(error?.message.contains("the store's own") == true, "\(name): \(error?.message ?? "")")
    }
  }

  @Test("Root entities whose tables would share a name are refused when the model loads")
  func clashingTables() throws {
    let a = NSEntityDescription(name: "Note", properties: [])
    let b = NSEntityDescription(name: "NOTE", properties: [])
    let error = expectCode(.modelInvalid) { _ = try NSManagedObjectModel(entities: [a, b]) }
    #expect(error?.message.contains("ZNOTE") == true)
  }

  @Test("Eight coordinators creating the same new store at once: one creates it, all open it, every save is kept")
  func concurrentCreation() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Store.sqlite")
    let model = try Self.noteModel()
    let failures = Locked<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 8) { index in
      do {
        try Self.add("note \(index)", to: url, model: model)
      } catch {
        failures.withLock { $0.append("\(index): \(error)") }
      }
    }
    #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
    #expect(try Self.titles(url, model: model) == (0..<8).map { "note \($0)" }.sorted())
  }

  // MARK: - Files a killed process leaves

  static func noteModel(extra: Bool = false) throws -> NSManagedObjectModel {
    var entities = [
      NSEntityDescription(name: "Note", properties: [.attribute(NSAttributeDescription(name: "title", type: .string))])
    ]
    // "Archive" sorts before "Note": version 2 renumbers Note from 1 to 2.
    if extra {
      entities.append(NSEntityDescription(name: "Archive", properties: [.attribute(NSAttributeDescription(name: "label", type: .string))]))
    }
    return try NSManagedObjectModel(entities: entities)
  }

  /// Opens the store at `url` read-write with a coordinator of its own, saves one note titled `title`, and
  /// removes the store again.
  static func add(_ title: String, to url: URL, model: NSManagedObjectModel) throws {
    let stack = try StoreStack(model: model, at: url)
    defer { try? stack.close() }
    let context = stack.context
    try context.performAndWait {
      NSManagedObject(entity: try #require(model.entitiesByName["Note"]), insertInto: context).setValue(title, forKey: "title")
      try context.save()
    }
  }

  /// Another writer on `queue`: on a thread of its own it takes the write lock (`BEGIN IMMEDIATE`), and once
  /// this returns it holds it; after `microseconds` it runs `change` and commits. Wait on the semaphore
  /// returned for the commit.
  static func anotherWriter(
    _ queue: DatabaseQueue, holdingTheLockFor microseconds: UInt32, then change: @escaping @Sendable (Database) throws -> Void
  ) -> DispatchSemaphore {
    let locked = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    Thread {
      try? queue.writeWithoutTransaction { db in
        try db.execute(sql: "BEGIN IMMEDIATE")
        locked.signal()
        usleep(microseconds)
        try change(db)
        try db.execute(sql: "COMMIT")
      }
      done.signal()
    }.start()
    locked.wait()
    return done
  }

  static func titles(
    _ url: URL, model: NSManagedObjectModel,
    options: [AnyHashable: Any]? = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
  ) throws -> [String] {
    let stack = try StoreStack(model: model, at: url, options: options)
    defer { try? stack.close() }
    let context = stack.context
    return try context.performAndWait {
      try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).compactMap { $0.value(forKey: "title") as? String }.sorted()
    }
  }

  @Test("A rollback-journal store left with a hot journal opens read-write (rolled back, every saved row there); read-only says what to do")
  func hotJournal() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Store.sqlite")
    let model = try Self.noteModel()
    let delete: [AnyHashable: Any] = [
      NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
      NSSQLitePragmasOption: ["journal_mode": "DELETE"],
    ]
    let stack = try StoreStack(model: model, at: url, options: delete)
    let context = stack.context
    try context.performAndWait {
      for index in 0..<2_000 {
        NSManagedObject(entity: try #require(model.entitiesByName["Note"]), insertInto: context)
          .setValue(String(format: "%04d ", index) + String(repeating: "x", count: 200), forKey: "title")
      }
      try context.save()
    }
    try stack.close()
    let saved = try Self.titles(url, model: model, options: delete)
    // A writer stops mid-transaction: its pages are in the file, the originals in the -journal. The copy of
    // both, taken then, is what a kill leaves.
    let crashed = folder.appending("Crashed.sqlite")
    let writer = try DatabaseQueue(path: url.path)
    try writer.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA cache_size = 2")
      try db.execute(sql: "BEGIN")
      try db.execute(sql: "UPDATE ZNOTE SET ZTITLE = 'changed ' || ZTITLE")
      for suffix in ["", "-journal"] { try FileManager.default.copyItem(atPath: url.path + suffix, toPath: crashed.path + suffix) }
      try db.execute(sql: "ROLLBACK")
    }
    try writer.close()
    #expect(NSPersistentStore.hasHotJournal(url: crashed))
    let bytes = try Data(contentsOf: crashed)
    let error = expectCode(.persistentStoreOpen) {
      _ = try Self.titles(
        crashed, model: model,
        options: [
          NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
          NSSQLitePragmasOption: ["journal_mode": "DELETE"], NSReadOnlyPersistentStoreOption: true,
        ])
    }
    #expect(error?.message.contains("without NSReadOnlyPersistentStoreOption") == true, "\(error?.message ?? "")")
    #expect(try Data(contentsOf: crashed) == bytes, "a read-only open changed the file")
    #expect(try Self.titles(crashed, model: model, options: delete) == saved)
    #expect(!NSPersistentStore.hasHotJournal(url: crashed))
    #expect(try rawRows(crashed, "PRAGMA integrity_check")[0][0] as String == "ok")
  }

  @Test(
    "A first launch killed while creating its store leaves a file without tables: the next read-write open finishes it; a foreign database stays refused"
  )
  func interruptedCreation() throws {
    let folder = try TemporaryFolder()
    let model = try Self.noteModel()
    // 0 bytes.
    let empty = folder.appending("Empty.sqlite")
    #expect(FileManager.default.createFile(atPath: empty.path, contents: Data()))
    _ = expectCode(.persistentStoreInvalidType) {
      _ = try Self.titles(
        empty, model: model,
        options: [NSReadOnlyPersistentStoreOption: true])
    }
    #expect(try Self.titles(empty, model: model) == [])
    // A file in rollback mode without tables: the engine makes a store's tables in rollback mode and turns
    // WAL on after they are committed, so this is what a kill during creation leaves.
    let walOnly = folder.appending("Rollback.sqlite")
    let creating = try DatabaseQueue(path: walOnly.path)
    try creating.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA auto_vacuum = 2")
      try db.execute(sql: "CREATE TABLE scratch (x)")
      try db.execute(sql: "DROP TABLE scratch")
    }
    try creating.close()
    // A WAL file without tables, with an empty -wal beside it or none, is what a store separated from its
    // -wal looks like: refused, saying so, and left alone (its -wal, somewhere, holds the rows).
    let separated = folder.appending("Separated.sqlite")
    let separating = try DatabaseQueue(path: separated.path)
    try separating.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA journal_mode = WAL")
      try db.execute(sql: "CREATE TABLE scratch (x)")
      try db.execute(sql: "DROP TABLE scratch")
    }
    try separating.close()
    for withLog in [false, true] {
      if withLog { #expect(FileManager.default.createFile(atPath: separated.path + "-wal", contents: Data())) }
      let separatedBytes = try Data(contentsOf: separated)
      let refusal = expectCode(.persistentStoreInvalidType) { _ = try Self.titles(separated, model: model) }
      #expect(refusal?.message.contains("without its -wal") == true, "\(refusal?.message ?? "")")
      #expect(try Data(contentsOf: separated) == separatedBytes)
    }
    // (The -wal was there before the look, so the look's -shm stays beside it: only a checkpoint could remove
    // them, and that would change the file.)
    try Self.add("kept", to: walOnly, model: model)
    #expect(try Self.titles(walOnly, model: model) == ["kept"])
    // A database with a table of its own is not an unfinished store.
    let foreign = folder.appending("Foreign.sqlite")
    let other = try DatabaseQueue(path: foreign.path)
    try other.write { try $0.execute(sql: "CREATE TABLE songs (title TEXT)") }
    try other.close()
    let bytes = try Data(contentsOf: foreign)
    _ = expectCode(.persistentStoreInvalidType) { _ = try Self.titles(foreign, model: model) }
    #expect(try Data(contentsOf: foreign) == bytes)
  }

  @Test("A coordinator whose store another coordinator migrated to a new model refuses to save (134100) and writes nothing")
  func migratedUnderneath() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Store.sqlite")
    let version1 = try Self.noteModel()
    let oldContext = try StoreStack(model: version1, at: url).context
    try oldContext.performAndWait {
      NSManagedObject(entity: try #require(version1.entitiesByName["Note"]), insertInto: oldContext).setValue("one", forKey: "title")
      try oldContext.save()
    }
    // Another coordinator (another process, in an app) opens the file with version 2: a migration.
    let version2 = try Self.noteModel(extra: true)
    let new = NSPersistentStoreCoordinator(managedObjectModel: version2)
    let newStore = try new.addPersistentStore(
      type: .sqlite, at: url,
      options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
    let rows = try rawRows(url, "SELECT Z_PK, Z_ENT, ZTITLE FROM ZNOTE").map(\.description)
    let keys = try rawRows(url, "SELECT * FROM Z_PRIMARYKEY").map(\.description)
    let error = expectCode(.persistentStoreIncompatibleVersionHash) {
      try oldContext.performAndWait {
        NSManagedObject(entity: try #require(version1.entitiesByName["Note"]), insertInto: oldContext).setValue("two", forKey: "title")
        try oldContext.save()
      }
    }
    #expect(error?.message.contains("migrated to another version") == true)
    #expect(try rawRows(url, "SELECT Z_PK, Z_ENT, ZTITLE FROM ZNOTE").map(\.description) == rows)
    #expect(try rawRows(url, "SELECT * FROM Z_PRIMARYKEY").map(\.description) == keys)
    // The new coordinator saves as usual.
    let newContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    newContext.persistentStoreCoordinator = new
    try newContext.performAndWait {
      NSManagedObject(entity: try #require(version2.entitiesByName["Note"]), insertInto: newContext).setValue("three", forKey: "title")
      try newContext.save()
    }
    try new.remove(newStore)
    #expect(try Self.titles(url, model: version2) == ["one", "three"])
  }

  @Test("A read-write open's repairs check the hashes again in their own transaction: a store migrated since the first look is left alone")
  func repairsRecheckTheModel() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Store.sqlite")
    let version1 = try Self.noteModel()
    try Self.add("one", to: url, model: version1)
    // Another process migrates the file to version 2 (Note becomes entity 2) after this open's first look,
    // and the key counters need a repair.
    try Self.add("two", to: url, model: try Self.noteModel(extra: true))
    let queue = try DatabaseQueue(path: url.path)
    try queue.write { try $0.execute(sql: "DELETE FROM Z_PRIMARYKEY") }
    try queue.close()
    let before = try Data(contentsOf: url)

    let entities = try #require(version1.entities(forConfigurationName: nil))
    let database = try NSPersistentStore.makeDatabase(path: url.path, options: StoreOptions(), readOnly: false, url: url)
    let error = expectCode(.persistentStoreIncompatibleVersionHash) {
      _ = try NSPersistentStore.bringUpToDate(
        database, schema: SQLiteSchema(entities: entities, layout: .coreData), configuration: nil, model: version1,
        entities: entities, url: url)
    }
    try database.close()
    #expect(error != nil)
    #expect(try rawRows(url, "SELECT COUNT(*) FROM Z_PRIMARYKEY")[0][0] as Int == 0, "version 1's counters were not written")
    #expect(try Data(contentsOf: url) == before)
  }

  @Test("An open whose repairs meet another process's write lock waits for it, reads again and repairs, nothing lost")
  func repairsRetryAfterAnotherWrite() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Store.sqlite")
    let model = try Self.noteModel()
    try Self.add("one", to: url, model: model)
    let queue = try DatabaseQueue(path: url.path)
    try queue.write { try $0.execute(sql: "DELETE FROM Z_PRIMARYKEY") }  // the open will have to repair it
    // Another writer: holds the write lock while the open reads, then commits a change.
    let done = Self.anotherWriter(queue, holdingTheLockFor: 300_000) { db in
      try db.execute(sql: "UPDATE ZNOTE SET ZTITLE = 'one, edited'")
    }
    try Self.add("two", to: url, model: model)
    done.wait()
    try queue.close()
    #expect(try Self.titles(url, model: model) == ["one, edited", "two"])
    #expect(try rawRows(url, "SELECT Z_MAX FROM Z_PRIMARYKEY")[0][0] as Int == 2)
  }

  @Test("A migration that waited for the lock while another process moved the store to a third version is refused, writing nothing")
  func migrationRechecksTheSource() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Store.sqlite")
    let version1 = try Self.noteModel()
    try Self.add("one", to: url, model: version1)
    let withBody = try NSManagedObjectModel(entities: [
      NSEntityDescription(
        name: "Note",
        properties: [
          .attribute(NSAttributeDescription(name: "title", type: .string)), .attribute(NSAttributeDescription(name: "body", type: .string)),
        ])
    ])
    // Another process holds the write lock, then moves the store to version 2 (its hashes) and commits.
    let version2 = try Self.noteModel(extra: true)
    let entities2 = try #require(version2.entities(forConfigurationName: nil))
    let queue = try DatabaseQueue(path: url.path)
    let done = Self.anotherWriter(queue, holdingTheLockFor: 500_000) { db in
      let hashes = Dictionary(entities2.map { ($0.entityName, $0.versionHash) }, uniquingKeysWith: { a, _ in a })
      try StoreMetadata.update(in: db, with: StoreMetadata.hashKeys(hashes), url: url)
    }
    var options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
    options[ObjectGraphMigrationSourceModelsOption] = [version1, version2]
    let error = expectCode(.persistentStoreIncompatibleVersionHash) { _ = try Self.titles(url, model: withBody, options: options) }
    done.wait()
    try queue.close()
    #expect(error?.message.contains("while this one waited to migrate it") == true, "\(error?.message ?? "")")
    #expect(try rawRows(url, "SELECT name FROM pragma_table_info('ZNOTE')").map { $0[0] as String }.contains("ZBODY") == false)
  }

  @Test("A second coordinator asking for another journal mode than the open one is told why (SQLITE_BUSY), not to try again")
  func journalModeMismatch() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Store.sqlite")
    let model = try Self.noteModel()
    let first = NSPersistentStoreCoordinator(managedObjectModel: model)
    let store = try first.addPersistentStore(type: .sqlite, at: url)  // WAL, and kept open
    defer { try? first.remove(store) }
    let error = expectCode(.persistentStoreOpen) {
      _ = try Self.titles(
        url, model: model,
        options: [
          NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
          NSSQLitePragmasOption: ["journal_mode": "DELETE", "busy_timeout": "50"],
        ])
    }
    #expect(error?.sqlitePrimaryResultCode == 5, "SQLITE_BUSY: \(String(describing: error))")
    #expect(
      error?.message.contains("every coordinator of a store must use the same journal_mode pragma") == true, "\(error?.message ?? "")")
  }

  @Test("SQLite's I/O, full-disk and busy failures each get their own cause and remedy in the message")
  func sqliteCausesInMessages() {
    let url = URL(fileURLWithPath: "/tmp/Store.sqlite")
    func message(_ code: ResultCode, as engineCode: ObjectGraphError.Code) -> String {
      ObjectGraphError.database(engineCode, "Doing it failed", DatabaseError(resultCode: code, message: "m"), url: url).message
    }
    #expect(message(.SQLITE_IOERR, as: .persistentStoreOpen).contains("The disk reported an error: most often it is full"))
    #expect(message(.SQLITE_FULL, as: .persistentStoreSave).contains("save again; the context keeps its changes"))
    let migration = message(.SQLITE_FULL, as: .migration)
    #expect(migration.contains("the file was left as it was") && !migration.contains("save again"), "\(migration)")
    #expect(message(.SQLITE_BUSY, as: .persistentStoreSave).contains("same NSSQLitePragmasOption"))
    #expect(message(.SQLITE_CANTOPEN, as: .persistentStoreOpen).contains("-wal, -shm, -journal"))
  }

  @Test(
    "A -journal of random bytes beside a store: a read-write open goes on with every row; read-only says what the file is",
    arguments: ["DELETE", "WAL"])
  func foreignJournal(mode: String) throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Store.sqlite")
    let model = try Self.noteModel()
    let options: [AnyHashable: Any] = [
      NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
      NSSQLitePragmasOption: ["journal_mode": mode],
    ]
    let stack = try StoreStack(model: model, at: url, options: options)
    let context = stack.context
    try context.performAndWait {
      NSManagedObject(entity: try #require(model.entitiesByName["Note"]), insertInto: context).setValue("one", forKey: "title")
      try context.save()
    }
    try stack.close()
    var generator = SystemRandomNumberGenerator()
    let garbage = Data((0..<4096).map { _ in UInt8.random(in: 1...255, using: &generator) })
    try garbage.write(to: URL(fileURLWithPath: url.path + "-journal"))
    do {
      let titles = try Self.titles(
        url, model: model,
        options: [
          NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
          NSSQLitePragmasOption: ["journal_mode": mode], NSReadOnlyPersistentStoreOption: true,
        ])
      #expect(titles == ["one"])
    } catch let error as ObjectGraphError {
      #expect(
        !error.message.contains("folder") && error.message.contains("Open the store once without NSReadOnlyPersistentStoreOption"),
        "\(mode) read-only: \(error.message)")
    }
    #expect(try Self.titles(url, model: model, options: options) == ["one"], "\(mode)")
  }

  @Test("A store URL that is a FIFO or a folder is refused at once, saying what it is")
  func notAFile() throws {
    let folder = try TemporaryFolder()
    let fifo = folder.appending("Pipe.sqlite")
    #expect(mkfifo(fifo.path, 0o644) == 0)
    let model = try Self.noteModel()
    let error = expectCode(.persistentStoreInvalidType) { _ = try Self.titles(fifo, model: model) }
    #expect(error?.message.contains("not a regular file") == true, "\(error?.message ?? "")")
    let metadataError = expectCode(.persistentStoreInvalidType) {
      _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: folder.url)
    }
    #expect(metadataError?.message.contains("is a folder") == true, "\(metadataError?.message ?? "")")
  }

  @Test("An emptied Z_PRIMARYKEY is repaired from the rows when the store is opened read-write: saves go on with new keys")
  func emptiedKeyCounters() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Store.sqlite")
    let model = try Self.noteModel()
    try Self.add("one", to: url, model: model)
    try Self.add("two", to: url, model: model)
    let queue = try DatabaseQueue(path: url.path)
    try queue.write { try $0.execute(sql: "DELETE FROM Z_PRIMARYKEY") }
    try queue.close()
    try Self.add("three", to: url, model: model)
    #expect(try Self.titles(url, model: model) == ["one", "three", "two"])
    #expect(try rawRows(url, "SELECT Z_MAX FROM Z_PRIMARYKEY")[0][0] as Int == 3)
    #expect(try rawRows(url, "SELECT Z_NAME FROM Z_PRIMARYKEY")[0][0] as String == "Note")
  }

  @Test("Messages name the real cause: a dropped entity table (134020), a -wal from another database")
  func messagesNameTheCause() throws {
    let folder = try TemporaryFolder()
    let model = try Self.noteModel()
    let dropped = folder.appending("Dropped.sqlite")
    _ = try Self.titles(dropped, model: model)
    let queue = try DatabaseQueue(path: dropped.path)
    try queue.write { try $0.execute(sql: "DROP TABLE ZNOTE") }
    try queue.close()
    let bytes = try Data(contentsOf: dropped)
    let error = expectCode(.persistentStoreIncompatibleSchema) { _ = try Self.titles(dropped, model: model) }
    #expect(error?.message.contains("ZNOTE") == true && error?.message.contains("changed outside Core Data") == true)
    #expect(try Data(contentsOf: dropped) == bytes)

    // A store whose -wal came from another database.
    let store = folder.appending("Store.sqlite")
    _ = try Self.titles(store, model: model)
    let other = folder.appending("Other.sqlite")
    let writer = try DatabaseQueue(path: other.path)
    try writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }
    try writer.write { db in
      try db.execute(sql: "CREATE TABLE t (x BLOB)")
      for _ in 0..<50 { try db.execute(sql: "INSERT INTO t VALUES (randomblob(3000))") }
    }
    try FileManager.default.copyItem(atPath: other.path + "-wal", toPath: store.path + "-wal")
    try writer.close()
    do {
      _ = try Self.titles(
        store, model: model,
        options: [NSReadOnlyPersistentStoreOption: true])
    } catch let error as ObjectGraphError {
      // SQLite may read the foreign log as garbage (refused, naming the -wal) or ignore it (opens).
      #expect(error.message.contains("-wal"), "\(error.message)")
    }
  }

  @Test("A refused file whose header says WAL gains no side files: damaged, foreign, or with garbage metadata")
  func refusedFilesStayAlone() throws {
    let folder = try TemporaryFolder()
    let model = try Self.noteModel()
    let good = folder.appending("Good.sqlite")
    _ = try Self.titles(good, model: model)
    var damaged = try Data(contentsOf: good)
    for offset in stride(from: 100, to: damaged.count, by: 7) { damaged[offset] = 0xA5 }
    let cases: [(String, Data)] = [
      ("Damaged.sqlite", damaged),
      ("Truncated.sqlite", try Data(contentsOf: good).prefix(1500)),
    ]
    for (name, bytes) in cases {
      let url = folder.appending(name)
      try bytes.write(to: url)
      #expect(bytes.count > 19 && bytes[18] == 2, "\(name) says WAL in its header")
      _ = try? Self.titles(url, model: model)
      _ = try? Self.titles(
        url, model: model,
        options: [NSReadOnlyPersistentStoreOption: true])
      #expect(try Data(contentsOf: url) == bytes, "\(name) changed")
      for suffix in ["-wal", "-shm", "-journal"] {
        #expect(!FileManager.default.fileExists(atPath: url.path + suffix), "\(name)\(suffix) was left")
      }
    }
  }

  @Test("A primary-key counter at the end of the 64-bit range is a typed error; nothing is written")
  func keyOverflow() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Store.sqlite")
    let model = try Self.noteModel()
    _ = try Self.titles(url, model: model)
    let queue = try DatabaseQueue(path: url.path)
    try queue.write { try $0.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775806") }
    try queue.close()
    let context = try StoreStack(model: model, at: url).context
    let error = expectCode(.persistentStoreSave) {
      try context.performAndWait {
        for _ in 0..<3 { _ = NSManagedObject(entity: try #require(model.entitiesByName["Note"]), insertInto: context) }
        try context.save()
      }
    }
    #expect(error?.message.contains("64-bit") == true)
    #expect(try rawRows(url, "SELECT count(*) FROM ZNOTE")[0][0] as Int == 0)
  }
}
