import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// The paths a big save or fetch takes: rows bound and read straight through SQLite's C interface,
/// inserted objects kept in order, permanent IDs handed back as an array, and the registry's two tables.
@Suite("Bulk save and fetch paths", .temporaryFolders)
struct BulkPathTests {
  @Test("Empty text and data stay empty (not NULL); NUL bytes and non-ASCII text survive", arguments: bothStoreTypes)
  func emptyAndUnusualValues(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: Models.allTypes(), type: type)
    let texts = ["", "a\u{0}b", "日本語 ✓ 🚀", String(repeating: "x", count: 5_000)]
    try stack.context.performAndWait {
      for (index, text) in texts.enumerated() {
        let object = NSManagedObject(entity: stack.entity("Everything"), insertInto: stack.context)
        object.setValue(text, forKey: "string")
        object.setValue(index == 0 ? Data() : Data([0, UInt8(index), 0]), forKey: "data")
        object.setValue(Int64(index), forKey: "int64")
      }
      try stack.context.save()
    }
    // What the SQLite file holds: TEXT and BLOB values, the empty ones included.
    if let types = try stack.fileRows("SELECT typeof(ZSTRING), typeof(ZDATA) FROM ZEVERYTHING ORDER BY ZINT64") {
      #expect(types.map { $0[0] as String } == ["text", "text", "text", "text"])
      #expect(types.map { $0[1] as String } == ["blob", "blob", "blob", "blob"])
    }

    let (_, context) = try stack.reader()
    try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Everything")
      request.sortDescriptors = [NSSortDescriptor(key: "int64", ascending: true)]
      let objects = try context.fetch(request)
      #expect(objects.map { $0.value(forKey: "string") as? String } == texts)
      #expect(objects.first?.value(forKey: "data") as? Data == Data())
      #expect(objects.last?.value(forKey: "data") as? Data == Data([0, 3, 0]))
    }
  }

  @Test("Thousands of rows of several entities, inserted interleaved, land with their relationships", arguments: bothStoreTypes)
  func interleavedEntities(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    // 2,000 notes in 38 notebooks, created in turn: more rows than one multi-row INSERT takes, and a
    // remainder for the last statement of each entity.
    try stack.context.performAndWait {
      var notebooks: [Notebook] = []
      for index in 0..<2_000 {
        if index % 54 == 0 {
          let notebook = Notebook(context: stack.context)
          notebook.name = "Notebook \(notebooks.count)"
          notebooks.append(notebook)
        }
        let note = Note(context: stack.context)
        note.title = "Note \(index)"
        note.rating = Int64(index)
        note.notebook = notebooks.last
      }
      try stack.context.save()
    }
    try stack.expectStored("Notebook", count: 38, table: "ZNOTEBOOK")
    if let rows = try stack.fileRows("SELECT COUNT(*) FROM ZNOTE WHERE ZNOTEBOOK IS NULL") { #expect(rows.first?[0] as Int? == 0) }

    let (_, context) = try stack.reader()
    try context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      let notes = try context.fetch(request)
      #expect(notes.count == 2_000)
      for (index, note) in notes.enumerated() {
        #expect(note.title == "Note \(index)")
        #expect(note.notebook?.name == "Notebook \(index / 54)")
      }
    }
  }

  @Test("Rows are written in insertion order, skipping objects deleted before the save", arguments: bothStoreTypes)
  func insertionOrder(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      var notes: [Note] = []
      for index in 0..<10 {
        let note = Note(context: stack.context)
        note.title = "\(index)"
        notes.append(note)
      }
      stack.context.delete(notes[3])
      stack.context.delete(notes[7])
      #expect(stack.context.insertedObjects.count == 8)
      try stack.context.save()
    }
    let written = ["0", "1", "2", "4", "5", "6", "8", "9"]
    #expect(try stack.storedInKeyOrder("Note") { $0.value(forKey: "title") as? String } == written)
    if let rows = try stack.fileRows("SELECT ZTITLE FROM ZNOTE ORDER BY Z_PK") { #expect(rows.map { $0[0] as String } == written) }
  }

  @Test("An object inserted by willSave() is saved and announced in the did-save notification", arguments: bothStoreTypes)
  func insertedDuringWillSave(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: Models.stamped(), type: type)
    let recorder = NotificationRecorder(NSManagedObjectContext.didSaveObjectsNotification, from: stack.context)
    try stack.context.performAndWait {
      for _ in 0..<3 { _ = Stamped(entity: stack.entity("Stamped"), insertInto: stack.context) }
      try stack.context.save()
    }
    let info = try #require(recorder.userInfos.first)
    #expect((info["inserted"] as? Set<NSManagedObject>)?.count == 4)
    #expect((info["insertedObjectIDs"] as? Set<NSManagedObjectID>)?.count == 4)
    try stack.expectStored("Stamped", count: 4, table: "ZSTAMPED")
  }

  @Test("A child still finds the objects it saved to its parent by their temporary IDs after its next save", arguments: bothStoreTypes)
  func childKeepsTemporaryIDs(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = stack.context
    try child.performAndWait {
      let first = Note(context: child)
      first.title = "first"
      try child.save()
      #expect(first.objectID.isTemporaryID)

      // The second save replaces one temporary ID (obtained permanent) while the first object keeps its own.
      let second = Note(context: child)
      second.title = "second"
      try child.obtainPermanentIDs(for: [second])
      try child.save()

      #expect(child.object(with: first.objectID) === first)
      #expect(child.object(with: second.objectID) === second)
      #expect(child.registeredObjects.contains(first))
    }
    try stack.context.performAndWait { try stack.context.save() }
    #expect(try stack.stored("Note", sortedBy: "title") { $0.value(forKey: "title") as? String } == ["first", "second"])
    if let rows = try stack.fileRows("SELECT ZTITLE FROM ZNOTE ORDER BY ZTITLE") {
      #expect(rows.map { $0[0] as String } == ["first", "second"])
    }
  }

  @Test("Only a context that has had children remembers the temporary IDs its saves replaced", arguments: bothStoreTypes)
  func temporaryIDMemory(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "alone"
      try stack.context.save()
      #expect(stack.context.confined.aliases.isEmpty)
      #expect(stack.context.confined.registry.temporaryCount == 0)
    }

    let parent = try StoreStack(type: type)
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = parent.context
    var id: NSManagedObjectID?
    try child.performAndWait {
      let note = Note(context: child)
      note.title = "from the child"
      try child.save()
      id = note.objectID
    }
    let temporary = try #require(id)
    try parent.context.performAndWait {
      try parent.context.save()
      let permanent = try #require(parent.context.confined.aliases[temporary])
      #expect(!permanent.isTemporaryID)
    }
    // The child's next change to the object it knows by its temporary ID still reaches the right row.
    try child.performAndWait {
      let note = try #require(child.object(with: temporary) as? Note)
      note.title = "changed in the child"
      try child.save()
    }
    try parent.context.performAndWait { try parent.context.save() }
    #expect(try parent.stored("Note") { $0.value(forKey: "title") as? String } == ["changed in the child"])
    if let rows = try parent.fileRows("SELECT ZTITLE FROM ZNOTE") { #expect(rows.map { $0[0] as String } == ["changed in the child"]) }
  }

  @Test("A save SQLite refuses writes nothing and keeps the context's changes")
  func sqliteRefusal() throws {
    let stack = try StoreStack()
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "kept"
      try stack.context.save()
    }
    // Another program winds the primary-key counter back while the store is open (an open repairs a counter
    // behind its rows), so the next insert collides with the first row.
    let (_, context) = try stack.reopened()
    var configuration = Configuration()
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
    try DatabaseQueue(path: stack.storeURL.path, configuration: configuration).write { db in
      try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 0")
    }
    context.performAndWait {
      for index in 0..<3 {
        let note = Note(context: context)
        note.title = "new \(index)"
      }
      let error = expectCode(.persistentStoreSave) { try context.save() }
      #expect(error?.message.contains("nothing was written") == true)
      #expect(context.insertedObjects.count == 3)
      #expect(context.insertedObjects.allSatisfy { $0.objectID.isTemporaryID })
    }
    #expect(try rawRows(stack.storeURL, "SELECT ZTITLE FROM ZNOTE").map { $0[0] as String } == ["kept"])
  }

  @Test("Members removed from a many-to-many relationship leave the join table", arguments: bothStoreTypes)
  func manyToManyRemovalIsSaved(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "note"
      let kept = Tag(context: stack.context)
      kept.name = "kept"
      let dropped = Tag(context: stack.context)
      dropped.name = "dropped"
      note.tags = [kept, dropped]
      try stack.context.save()
      note.tags = [kept]
      try stack.context.save()
    }
    // The join table's name carries the entity's number (`Z_<n>TAGS`).
    if let tables = try stack.fileRows("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z_[0-9]*TAGS'") {
      let joinTable: String = try #require(tables.first)[0]
      #expect(try rawRows(stack.storeURL, "SELECT COUNT(*) FROM \(joinTable)").first?[0] as Int? == 1)
    }
    let (_, context) = try stack.reader()
    try context.performAndWait {
      let note = try #require(try context.fetch(NSFetchRequest<Note>(entityName: "Note")).first)
      #expect(note.tags.map(\.name) == ["kept"])
    }
  }

  @Test("After a save SQLite refused, the same save goes through once the cause is gone")
  func retryAfterRefusedSave() throws {
    let stack = try StoreStack()
    // Another program takes primary key 1 of ZNOTE without telling Z_PRIMARYKEY.
    let other = try DatabaseQueue(path: stack.storeURL.path)
    try other.write { db in
      let entity = try Int64.fetchOne(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Note'") ?? 0
      try db.execute(sql: "INSERT INTO ZNOTE (Z_PK, Z_ENT, Z_OPT, ZTITLE) VALUES (1, ?, 1, 'intruder')", arguments: [entity])
    }
    stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "mine"
      _ = expectCode(.persistentStoreSave) { try stack.context.save() }
    }
    try other.write { db in try db.execute(sql: "DELETE FROM ZNOTE WHERE Z_PK = 1") }
    try other.close()
    // The failed statement was reset: its stale error does not refuse the retry.
    try stack.context.performAndWait { try stack.context.save() }
    #expect(try rawRows(stack.storeURL, "SELECT ZTITLE FROM ZNOTE").map { $0[0] as String } == ["mine"])
  }

  @Test("A fetched object makes its permanent ID on first read, once, equal to the same row's ID anywhere", arguments: bothStoreTypes)
  func fetchedObjectsMakeTheirIDLazily(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    var saved: NSManagedObjectID?
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "lazy"
      try stack.context.save()
      saved = note.objectID
    }
    let savedID = try #require(saved)
    let (coordinator, context) = try stack.reader()
    try context.performAndWait {
      let note = try #require(try context.fetch(NSFetchRequest<Note>(entityName: "Note")).first)
      // Looked up by an ID made elsewhere before the object ever made its own: the same object.
      #expect(context.object(with: savedID) === note)
      let first = note.objectID
      #expect(note.objectID === first)
      #expect(first == savedID && first.hashValue == savedID.hashValue)
      #expect(!first.isTemporaryID && first.primaryKey == savedID.primaryKey)
      #expect(coordinator.managedObjectID(forURIRepresentation: first.uriRepresentation()) == savedID)
      #expect(note.description.contains(first.uriRepresentation().absoluteString))
      // Fetched again: still the one object.
      #expect(try context.fetch(NSFetchRequest<Note>(entityName: "Note")).first === note)
    }
  }

  @Test("awakeFromFetch runs after the read, so it may fetch from its own context", arguments: bothStoreTypes)
  func awakeFromFetchMayFetch(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack.probes(AwakeProbe.self, rows: 3, storeType: type)
    let (_, context) = try stack.reader()
    try context.performAndWait {
      let request = NSFetchRequest<AwakeProbe>(entityName: "Probe")
      request.returnsObjectsAsFaults = false
      let objects = try context.fetch(request)
      #expect(objects.count == 3)
      #expect(objects.allSatisfy { $0.countSeenWhenAwoken == 3 })
    }
  }

  @Test("An attribute whose column name starts with Z_ENT reads its own value", arguments: bothStoreTypes)
  func columnNamedLikeTheEntityColumn(type: NSPersistentStore.StoreType) throws {
    let model = try NSManagedObjectModel(entities: [
      NSEntityDescription(
        name: "Item",
        properties: [.attribute(NSAttributeDescription(name: "_entry", type: .integer64, isOptional: true))])
    ])
    let stack = try StoreStack(model: model, type: type)
    try stack.context.performAndWait {
      NSManagedObject(entity: stack.entity("Item"), insertInto: stack.context).setValue(42, forKey: "_entry")
      try stack.context.save()
    }
    let (_, context) = try stack.reader()
    try context.performAndWait {
      let item = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item")).first)
      #expect(item.value(forKey: "_entry") as? Int64 == 42)
    }
  }

  // Serialized: the probe's coordinator is one static, which two cases running at once would share.
  @Test(
    "An init(entity:insertInto:) override that uses the store during a fetch gets an error, not a crash", .serialized,
    arguments: bothStoreTypes)
  func initUsingTheStoreDuringAFetch(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack.probes(StoreTouchingProbe.self, rows: 3, storeType: type)
    let (coordinator, context) = try stack.reader()
    StoreTouchingProbe.coordinator.withLock { $0 = coordinator }
    defer { StoreTouchingProbe.coordinator.withLock { $0 = nil } }
    try context.performAndWait {
      let probes = try context.fetch(NSFetchRequest<StoreTouchingProbe>(entityName: "Probe"))
      #expect(probes.count == 3)
      for probe in probes {
        let error = try #require(probe.errorFromInit as? ObjectGraphError)
        #expect(error.code == .persistentStoreOperation)
        #expect(error.message.contains("awakeFromFetch()"))
      }
      // Outside a fetch, the same call works.
      #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Probe")) == 3)
    }
  }

  // Serialized: the probe's hook is one static, which two cases running at once would share.
  @Test(
    "Objects made before a row that fails are registered and awoken; the next fetch returns them all", .serialized,
    arguments: bothStoreTypes)
  func fetchFailingMidway(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack.probes(InterruptingProbe.self, rows: 10, storeType: type)
    let (coordinator, context) = try stack.reader()
    let database = try #require(coordinator.persistentStores.first).database
    try context.performAndWait {
      let request = NSFetchRequest<InterruptingProbe>(entityName: "Probe")
      request.returnsObjectsAsFaults = false
      // The third object this fetch makes interrupts the read, as an I/O error on a later row would. (The
      // probe counts the objects made in the whole process; this counts this fetch's own.)
      let made = Locked(0)
      InterruptingProbe.interrupt.withLock {
        $0 = { _ in
          let count = made.withLock { count -> Int in
            count += 1
            return count
          }
          if count == 3 { database.interrupt() }
        }
      }
      _ = expectCode(.coreData) { _ = try context.fetch(request) }
      InterruptingProbe.interrupt.withLock { $0 = nil }
      let objects = try context.fetch(request)
      #expect(objects.count == 10)
      #expect(objects.allSatisfy { $0.awoken })
    }
  }

  @Test("Objects a big fetch registered are purged once nothing else holds them", arguments: bothStoreTypes)
  func purgeAfterFetch(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      for index in 0..<5_000 {
        let note = Note(context: stack.context)
        note.title = "\(index)"
      }
      try stack.context.save()
    }
    let (_, context) = try stack.reader()
    try context.performAndWait {
      var notes: [Note]? = try context.fetch(NSFetchRequest<Note>(entityName: "Note"))
      #expect(notes?.count == 5_000)
      #expect(context.registeredObjects.count == 5_000)
      notes = nil
      #expect(context.registeredObjects.isEmpty)
      // Fetched again, they are new objects, still one per row.
      let again = try context.fetch(NSFetchRequest<Note>(entityName: "Note"))
      let distinctIDs: Set<NSManagedObjectID> = Set(again.map(\.objectID))
      #expect(distinctIDs.count == 5_000)
      #expect(context.registeredObjects.count == 5_000)
    }
  }
}

/// The registry's own bookkeeping, tested directly.
@Suite("Object registry")
struct ObjectRegistryTests {
  @Test("One object per ID across pages, sparse and negative keys, stores and tables; removals free pages")
  func pagedPermanentObjects() throws {
    let entity = NSEntityDescription(name: "Thing", properties: [])
    _ = try NSManagedObjectModel(entities: [entity])
    func id(store: Int, table: Int64, _ pk: Int64) -> NSManagedObjectID {
      NSManagedObjectID(entity: entity, key: .permanent(store: store, table: table, primaryKey: pk), storeIdentifier: "S\(store)")
    }
    var registry = ObjectRegistry()
    var kept: [NSManagedObject] = []
    let keys: [(Int, Int64, Int64)] = [
      (1, 1, 1), (1, 1, 63), (1, 1, 64), (1, 1, 65), (1, 1, 1_000_000_007), (1, 1, -5), (1, 2, 1), (2, 1, 1),
    ]
    for (store, table, pk) in keys {
      let object = NSManagedObject(entity: entity, insertInto: nil)
      registry[id(store: store, table: table, pk)] = object
      kept.append(object)
    }
    #expect(registry.count == keys.count)
    for (index, (store, table, pk)) in keys.enumerated() {
      #expect(registry[id(store: store, table: table, pk)] === kept[index])
    }
    #expect(registry[id(store: 1, table: 1, 2)] == nil)
    #expect(registry[id(store: 3, table: 1, 1)] == nil)
    #expect(Set(registry.objects.map(ObjectIdentifier.init)) == Set(kept.map(ObjectIdentifier.init)))

    // Replacing keeps the count; removing lowers it; removing what is not there changes nothing.
    let other = NSManagedObject(entity: entity, insertInto: nil)
    registry[id(store: 1, table: 1, 64)] = other
    #expect(registry.count == keys.count)
    #expect(registry[id(store: 1, table: 1, 64)] === other)
    registry[id(store: 1, table: 1, 64)] = nil
    registry[id(store: 1, table: 1, 64)] = nil
    registry[id(store: 1, table: 1, 2)] = nil
    #expect(registry.count == keys.count - 1)
    #expect(registry[id(store: 1, table: 1, 65)] === kept[3])

    // A purge removes exactly the unreferenced objects it is allowed to, wherever they sit.
    let loose = (0..<200).map { pk -> Int64 in
      registry[id(store: 1, table: 3, Int64(pk) * 7)] = NSManagedObject(entity: entity, insertInto: nil)
      return Int64(pk) * 7
    }
    #expect(registry.count == keys.count - 1 + loose.count)
    registry.removeAll(unreferencedWhere: { _ in true })
    #expect(registry.count == keys.count - 1)
    #expect(loose.allSatisfy { registry[id(store: 1, table: 3, $0)] == nil })
    #expect(registry[id(store: 1, table: 1, 1_000_000_007)] === kept[4])
    withExtendedLifetime(kept) {}
  }
}

/// Values are kept as a closed enum of Swift types (`SlotValue`); these check the conversions around it.
@Suite("Typed slot values", .temporaryFolders)
struct SlotValueTests {
  @Test("Numbers of another Swift type are stored as the attribute's type, in memory and in SQL alike", arguments: bothStoreTypes)
  func numbersAreStoredAsTheAttributeType(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: Models.allTypes(), type: type)
    try stack.context.performAndWait {
      let object = NSManagedObject(entity: stack.entity("Everything"), insertInto: stack.context)
      object.setValue(5, forKey: "int64")
      object.setValue(Float(2.5), forKey: "double")
      object.setValue(7, forKey: "decimal")
      #expect(object.value(forKey: "int64") as? Int64 == 5)
      #expect(object.value(forKey: "double") as? Double == 2.5)
      #expect(object.value(forKey: "decimal") as? Decimal == Decimal(7))
      // Pending: answered in memory.
      let request = NSFetchRequest<NSManagedObject>(entityName: "Everything")
      request.predicate = NSPredicate(format: "int64 == %d AND double > %f AND decimal == 7", 5, 2.0)
      #expect(try stack.context.fetch(request).count == 1)
      try stack.context.save()
    }
    let (_, context) = try stack.reader()
    try context.performAndWait { () throws in
      // Saved: answered by SQLite.
      let request = NSFetchRequest<NSManagedObject>(entityName: "Everything")
      request.predicate = NSPredicate(format: "int64 == %d AND double > %f AND decimal == 7", 5, 2.0)
      #expect(try context.fetch(request).count == 1)
    }
  }

  @Test("Setting a boxed value (UUID, URL) to an equal one is no change; to another one is", arguments: bothStoreTypes)
  func boxedValuesCompareByValue(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: Models.allTypes(), type: type)
    let uuid = UUID()
    try stack.context.performAndWait {
      let object = NSManagedObject(entity: stack.entity("Everything"), insertInto: stack.context)
      object.setValue(uuid, forKey: "uuid")
      object.setValue(URL(string: "https://example.com/a"), forKey: "uri")
      try stack.context.save()

      object.setValue(UUID(uuidString: uuid.uuidString), forKey: "uuid")
      object.setValue(URL(string: "https://example.com/a"), forKey: "uri")
      #expect(object.changedValues().isEmpty)
      object.setValue(UUID(), forKey: "uuid")
      #expect(Array(object.changedValues().keys) == ["uuid"])
      #expect(object.committedValues(forKeys: ["uuid"])["uuid"] as? UUID == uuid)

      let request = NSFetchRequest<NSManagedObject>(entityName: "Everything")
      request.predicate = NSPredicate(format: "uuid == %@", uuid)
      #expect(try stack.context.fetch(request).isEmpty)
    }
  }
}

/// Collects the user info of one notification posted by one object.
final class NotificationRecorder: @unchecked Sendable {
  // `@unchecked Sendable`: `userInfos` is only touched under `lock`.
  private let lock = NSLock()
  private var recorded: [[AnyHashable: Any]] = []
  private var token: (any NSObjectProtocol)?

  init(_ name: Notification.Name, from object: AnyObject) {
    token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { [weak self] notification in
      guard let self else { return }
      self.lock.withLock { self.recorded.append(notification.userInfo ?? [:]) }
    }
  }

  deinit {
    if let token { NotificationCenter.default.removeObserver(token) }
  }

  var userInfos: [[AnyHashable: Any]] { lock.withLock { recorded } }
}

/// An object that inserts one more object the first time it is about to be saved.
final class Stamped: NSManagedObject {
  override func willSave() {
    guard let context = managedObjectContext, isInserted, value(forKey: "isStamp") as? Bool != true else { return }
    guard !context.insertedObjects.contains(where: { $0.value(forKey: "isStamp") as? Bool == true }) else { return }
    let stamp = Stamped(entity: entity, insertInto: context)
    stamp.setValue(true, forKey: "isStamp")
  }
}

extension Models {
  /// One entity, `Stamped`, whose objects add a stamp object when saved.
  static func stamped() throws -> NSManagedObjectModel {
    try NSManagedObjectModel(entities: [
      NSEntityDescription(
        name: "Stamped", managedObjectClass: Stamped.self,
        properties: [.attribute(NSAttributeDescription(name: "isStamp", type: .boolean, isOptional: true))])
    ])
  }
}

/// Counts its entity's objects from inside `awakeFromFetch()`, which needs the store while the fetch that
/// made it is still running.
final class AwakeProbe: NSManagedObject {
  var countSeenWhenAwoken = -1

  override func awakeFromFetch() {
    countSeenWhenAwoken = (try? managedObjectContext?.count(for: NSFetchRequest<NSManagedObject>(entityName: "Probe"))) ?? -2
  }
}

/// Uses the store from its initializer, which Core Data also advises against: during a fetch that is an
/// error (the store is mid-read), which the probe keeps.
final class StoreTouchingProbe: NSManagedObject {
  /// The coordinator the initializer reads through (set by the test).
  static let coordinator = Locked<NSPersistentStoreCoordinator?>(nil)
  var errorFromInit: (any Error)?

  required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
    super.init(entity: entity, insertInto: context)
    guard let coordinator = Self.coordinator.withLock({ $0 }) else { return }
    let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    other.persistentStoreCoordinator = coordinator
    do {
      _ = try other.performAndWait { try other.count(for: NSFetchRequest<NSManagedObject>(entityName: "Probe")) }
    } catch {
      errorFromInit = error
    }
  }
}

/// Calls `interrupt` with the number of probes made so far, after making each.
final class InterruptingProbe: NSManagedObject {
  static let interrupt = Locked<(@Sendable (Int) -> Void)?>(nil)
  private static let made = Locked(0)
  var awoken = false

  required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
    super.init(entity: entity, insertInto: context)
    let count = Self.made.withLock { made -> Int in
      made += 1
      return made
    }
    Self.interrupt.withLock { $0 }?(count)
  }

  override func awakeFromFetch() { awoken = true }
}

extension StoreStack {
  /// A stack whose model has one entity, `Probe` (class `type`, one optional Integer 64 `n`), with `rows`
  /// objects saved. They are saved as plain `NSManagedObject`s, so the probe class's code runs only when
  /// they are fetched.
  static func probes(_ type: NSManagedObject.Type, rows: Int, storeType: NSPersistentStore.StoreType) throws -> StoreStack {
    let model = try NSManagedObjectModel(entities: [
      NSEntityDescription(
        name: "Probe", managedObjectClass: type,
        properties: [.attribute(NSAttributeDescription(name: "n", type: .integer64, isOptional: true))])
    ])
    let stack = try StoreStack(model: model, type: storeType)
    try stack.context.performAndWait {
      for index in 0..<rows { NSManagedObject(entity: stack.entity("Probe"), insertInto: stack.context).setValue(index, forKey: "n") }
      try stack.context.save()
    }
    return stack
  }
}
