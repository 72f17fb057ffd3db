import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// Binary stores (Core Data's `NSBinaryStoreType`): an atomic store, read whole when added and written whole
/// (a new file renamed over the old) at each save, as an `NSKeyedArchiver` archive.
@Suite("Binary stores", .temporaryFolders)
struct BinaryStoreTests {
  private func files(in folder: TemporaryFolder) -> Set<String> {
    Set((try? FileManager.default.contentsOfDirectory(atPath: folder.url.path)) ?? [])
  }

  /// Inserts a note titled `title` in `context` and saves.
  private func saveNote(_ title: String, in context: NSManagedObjectContext) throws {
    try context.performAndWait {
      let note = Note(context: context)
      note.title = title
      try context.save()
    }
  }

  /// The titles of the notes `context` fetches, sorted.
  private func titles(in context: NSManagedObjectContext) throws -> [String] {
    try context.performAndWait { try context.fetch(NSFetchRequest<Note>(entityName: "Note")).compactMap(\.title).sorted() }
  }

  @Test("Saved objects, their relationships and subentities come back whole in a new coordinator")
  func roundTrip() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Notes.binary")
    let model = try Models.notes()
    do {
      let stack = try StoreStack(model: model, type: .binary, at: url)
      let context = stack.context
      #expect(stack.coordinator.persistentStores.first?.type == NSBinaryStoreType)
      try context.performAndWait {
        let work = Notebook(context: context)
        work.name = "Work"
        let urgent = Tag(context: context)
        urgent.name = "urgent"
        let later = Tag(context: context)
        later.name = "later"
        for index in 1...3 {
          let note = Note(context: context)
          note.title = "Note \(index)"
          note.rating = Int64(index)
          note.createdAt = Date(timeIntervalSinceReferenceDate: Double(index) * 1000.5)
          note.notebook = work
          note.tags = index == 2 ? [urgent, later] : [urgent]
        }
        let image = NSManagedObject(entity: model.entitiesByName["ImageAttachment"]!, insertInto: context)
        image.setValue(Int16(640), forKey: "width")
        image.setValue(Int32(2048), forKey: "size")
        image.setValue(try context.fetch(NSFetchRequest<Note>(entityName: "Note")).first { $0.title == "Note 1" }, forKey: "note")
        try context.save()
        // A second save (an update and a delete) writes the whole graph again.
        let notes = try context.fetch(NSFetchRequest<Note>(entityName: "Note"))
        notes.first { $0.title == "Note 3" }.map(context.delete)
        notes.first { $0.title == "Note 2" }?.body = "edited"
        try context.save()
      }
    }
    let context = try StoreStack(model: model, type: .binary, at: url).context
    try context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      let notes = try context.fetch(request)
      #expect(notes.map(\.title) == ["Note 1", "Note 2"])
      #expect(notes.map(\.rating) == [1, 2])
      #expect(notes.map(\.body) == [nil, "edited"])
      #expect(notes.map(\.createdAt) == [Date(timeIntervalSinceReferenceDate: 1000.5), Date(timeIntervalSinceReferenceDate: 2001)])
      #expect(Set(notes.map { $0.notebook?.name }) == ["Work"])
      #expect(notes[1].tags.compactMap(\.name).sorted() == ["later", "urgent"])
      #expect(notes[0].notebook?.notes.count == 2)
      // A predicate through a relationship, and one through a to-many, run as for any store.
      let tagged = NSFetchRequest<Note>(entityName: "Note")
      tagged.predicate = NSPredicate(format: "ANY tags.name == %@ AND notebook.name == %@", "later", "Work")
      #expect(try context.fetch(tagged).map(\.title) == ["Note 2"])
      let attachments = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Attachment"))
      #expect(attachments.map(\.entity.entityName) == ["ImageAttachment"])
      #expect(attachments.first?.value(forKey: "width") as? Int16 == 640)
      #expect((attachments.first?.value(forKey: "note") as? Note)?.title == "Note 1")
      // New objects after the reopen get keys after the saved ones.
      let note = Note(context: context)
      note.title = "Note 4"
      try context.save()
      #expect(try notes.map { try #require($0.objectID.primaryKey) }.allSatisfy { $0 < (note.objectID.primaryKey ?? 0) })
    }
  }

  @Test("A container whose store description asks for a binary store loads one, as Core Data's does")
  func container() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Notes.binary")
    let model = try Models.notes()
    for title in ["first", "second"] {
      let description = NSPersistentStoreDescription(url: url)
      description.type = NSBinaryStoreType
      let container = NSPersistentContainer(name: "Notes", managedObjectModel: model)
      container.persistentStoreDescriptions = [description]
      let failure = Locked<(any Error)?>(nil)
      container.loadPersistentStores { _, error in failure.withLock { $0 = error } }
      try failure.withLock { if let error = $0 { throw error } }
      #expect(container.persistentStoreCoordinator.persistentStores.map(\.type) == [NSBinaryStoreType])
      try saveNote(title, in: container.newBackgroundContext())
    }
    #expect(try titles(in: try StoreStack(model: model, type: .binary, at: url).context) == ["first", "second"])
  }

  @Test("Every attribute type, nil, extremes and empty values survive the archive exactly")
  func everyAttributeType() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("All.binary")
    let model = try Models.allTypes()
    let uuid = UUID()
    let date = Date(timeIntervalSinceReferenceDate: -12_345.678)
    do {
      let context = try StoreStack(model: model, type: .binary, at: url).context
      try context.performAndWait {
        let full = NSManagedObject(entity: model.entitiesByName["Everything"]!, insertInto: context)
        let values: [String: Any] = [
          "string": "日本語 ✓ 🚀\u{0}end", "int16": Int16.min, "int32": Int32.max, "int64": Int64.min, "double": 3.0,
          "float": Float(-0.5), "bool": true, "date": date, "data": Data([0, 255, 0, 7]), "uuid": uuid,
          "uri": URL(string: "https://example.com/a?b=c")!, "decimal": Decimal(string: "12345678901234.5678")!,
        ]
        for (key, value) in values { full.setValue(value, forKey: key) }
        let empty = NSManagedObject(entity: model.entitiesByName["Everything"]!, insertInto: context)
        empty.setValue("", forKey: "string")
        empty.setValue(Data(), forKey: "data")
        empty.setValue(Double.infinity, forKey: "double")
        _ = NSManagedObject(entity: model.entitiesByName["Everything"]!, insertInto: context)  // all nil
        try context.save()
      }
    }
    let context = try StoreStack(model: model, type: .binary, at: url).context
    try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Everything")
      request.sortDescriptors = [NSSortDescriptor(key: "string", ascending: true)]
      let objects = try context.fetch(request)
      try #require(objects.count == 3)
      let (none, empty, full) = (objects[0], objects[1], objects[2])
      #expect(full.value(forKey: "string") as? String == "日本語 ✓ 🚀\u{0}end")
      #expect(full.value(forKey: "int16") as? Int16 == Int16.min)
      #expect(full.value(forKey: "int32") as? Int32 == Int32.max)
      #expect(full.value(forKey: "int64") as? Int64 == Int64.min)
      #expect(full.value(forKey: "double") as? Double == 3.0)
      #expect(full.value(forKey: "float") as? Float == -0.5)
      #expect(full.value(forKey: "bool") as? Bool == true)
      #expect(full.value(forKey: "date") as? Date == date)
      #expect(full.value(forKey: "data") as? Data == Data([0, 255, 0, 7]))
      #expect(full.value(forKey: "uuid") as? UUID == uuid)
      #expect(full.value(forKey: "uri") as? URL == URL(string: "https://example.com/a?b=c"))
      #expect(full.value(forKey: "decimal") as? Decimal == Decimal(string: "12345678901234.5678"))
      #expect(empty.value(forKey: "string") as? String == "")
      #expect(empty.value(forKey: "data") as? Data == Data())
      #expect(empty.value(forKey: "double") as? Double == .infinity)
      for key in ["string", "int16", "date", "data", "uuid", "uri", "decimal"] { #expect(none.value(forKey: key) == nil, "\(key)") }
      request.predicate = NSPredicate(format: "double == 3.0 AND int64 == %lld", Int64.min)
      #expect(try context.fetch(request).count == 1)
    }
    // The archive keeps each value's own type: the real 3.0 beside the integers 3 (a primary key) and 1.
    let table = try #require(try BinaryStoreArchive.read(url: url).tables.first { $0.name == "ZEVERYTHING" })
    let cells = { (column: String) in table.rows.map { $0[table.columns.firstIndex(of: column) ?? 0] } }
    #expect(cells("ZDOUBLE").contains(3.0.databaseValue))
    #expect(cells("ZDOUBLE").allSatisfy { if case .int64 = $0.storage { false } else { true } })
    #expect(cells("Z_PK").allSatisfy { if case .int64 = $0.storage { true } else { false } })
    #expect(cells("ZBOOL").contains(Int64(1).databaseValue))
  }

  @Test("Ordered to-many relationships keep their order through the archive")
  func orderedRelationships() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Music.binary")
    let model = try OrderedRelationshipTests.model()
    do {
      let context = try StoreStack(model: model, type: .binary, at: url).context
      try context.performAndWait {
        let playlist = OrderedPlaylist(entity: model.entitiesByName["Playlist"]!, insertInto: context)
        playlist.name = "Road trip"
        var songs: [NSManagedObject] = []
        for title in ["C", "A", "B"] {
          let song = NSManagedObject(entity: model.entitiesByName["Song"]!, insertInto: context)
          song.setValue(title, forKey: "title")
          songs.append(song)
        }
        playlist.songs = songs
        try context.save()
      }
    }
    let context = try StoreStack(model: model, type: .binary, at: url).context
    try context.performAndWait {
      let playlist = try #require(try context.fetch(NSFetchRequest<OrderedPlaylist>(entityName: "Playlist")).first)
      #expect(playlist.songs.map { $0.value(forKey: "title") as? String } == ["C", "A", "B"])
    }
  }

  @Test("The file is a keyed archive whose metadata metadataForPersistentStore reads, with the app's own keys")
  func metadata() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Notes.binary")
    let model = try Models.notes()
    let stack = try StoreStack(model: model, type: .binary, at: url)
    // Written when added, so its metadata can be read before the first save.
    let data = try Data(contentsOf: url)
    let plist = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
    #expect(data.starts(with: Array("bplist00".utf8)))
    #expect(plist?["$archiver"] as? String == "NSKeyedArchiver")
    // Foundation's own unarchiver reads it too.
    let classes: [AnyClass] = [NSDictionary.self, NSArray.self, NSString.self, NSNumber.self, NSData.self, NSNull.self, NSDate.self]
    let root = try NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: data) as? NSDictionary
    #expect((root?["NSStoreMetadata"] as? NSDictionary)?["NSStoreType"] as? String == "Binary")
    #expect(((root?["ObjectGraphTables"] as? NSDictionary)?["ZNOTE"] as? NSDictionary)?["columns"] is NSArray)
    var metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)
    #expect(metadata[NSStoreTypeKey] as? String == "Binary")
    #expect(metadata[NSStoreUUIDKey] as? String == stack.store.identifier)
    let hashes = Dictionary(model.entities.map { ($0.name, $0.versionHash) }, uniquingKeysWith: { a, _ in a })
    #expect(metadata[NSStoreModelVersionHashesKey] as? [String: Data] == hashes)
    #expect(metadata[CoreDataMetadataKey.versionHashesVersion] as? Int == 3)
    #expect(metadata[CoreDataMetadataKey.autoVacuumLevel] == nil)
    #expect(stack.store.metadata[NSStoreTypeKey] as? String == "Binary")
    // The app's keys are written at the next save, as for a SQLite store.
    metadata = stack.coordinator.metadata(for: stack.store)
    metadata["syncToken"] = "token-1"
    metadata["count"] = 7
    stack.coordinator.setMetadata(metadata, for: stack.store)
    try saveNote("one", in: stack.context)
    let onDisk = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url)
    #expect(onDisk["syncToken"] as? String == "token-1")
    #expect(onDisk["count"] as? Int == 7)
    let reopened = try StoreStack(model: model, type: .binary, at: url).coordinator
    #expect(reopened.persistentStores.first?.identifier == stack.store.identifier)
    #expect(reopened.persistentStores.first?.metadata["syncToken"] as? String == "token-1")
    // Read as a SQLite store, the file is refused; an in-memory store has no file.
    _ = expectCode(.persistentStoreInvalidType) { _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url) }
    _ = expectCode(.persistentStoreInvalidType) {
      _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .inMemory, at: url)
    }
  }

  /// Files that are not binary stores: each is refused with 134000 and left exactly as it was.
  static let foreignFiles: [String] = ["text", "sqlite store", "property list", "other archive", "truncated store", "format 2"]

  @Test("A file that is not a binary store is refused with 134000 and left untouched", arguments: foreignFiles)
  func foreignFile(kind: String) throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Store.binary")
    let model = try Models.notes()
    switch kind {
    case "text":
      try Data(String(repeating: "Not a store.\n", count: 100).utf8).write(to: url)
    case "sqlite store":
      let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
      try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: url))
    case "property list":
      try PropertyListSerialization.data(fromPropertyList: ["NSStoreType": "Binary"], format: .binary, options: 0).write(to: url)
    case "other archive":
      let other = NSDictionary(dictionary: ["NSStoreMetadata": NSDictionary(dictionary: ["NSStoreType": "SQLite"])])
      try NSKeyedArchiver.archivedData(withRootObject: other, requiringSecureCoding: true).write(to: url)
    case "truncated store":
      let source = folder.appending("Source.binary")
      _ = try StoreStack(model: model, type: .binary, at: source)
      let whole = try Data(contentsOf: source)
      try whole.prefix(whole.count / 2).write(to: url)
    default:  // a binary store of another format: the format number changed
      let source = folder.appending("Source.binary")
      _ = try StoreStack(model: model, type: .binary, at: source)
      var data = try Data(contentsOf: source)
      let contents = try BinaryStoreArchive.decode(data, url: source)
      #expect(contents.metadata[NSStoreTypeKey] as? String == "Binary")
      let root = NSDictionary(dictionary: [
        BinaryStoreArchive.metadataKey: NSDictionary(dictionary: ["NSStoreType": "Binary", "NSStoreModelVersionHashes": NSDictionary()]),
        BinaryStoreArchive.formatKey: NSNumber(value: 2),
      ])
      data = try NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: true)
      try data.write(to: url)
    }
    let before = try Data(contentsOf: url)
    let filesBefore = files(in: folder)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let error = expectCode(.persistentStoreInvalidType) { try coordinator.addPersistentStore(type: .binary, at: url) }
    #expect(error?.message.contains("not a binary store") == true, "\(kind): \(error?.message ?? "")")
    #expect(error?.message.contains("left untouched") == true)
    if kind == "sqlite store" { #expect(error?.message.contains("type .sqlite") == true) }
    _ = expectCode(.persistentStoreInvalidType) { _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: url) }
    #expect(try Data(contentsOf: url) == before)
    #expect(files(in: folder) == filesBefore)
    #expect(coordinator.persistentStores.isEmpty)
  }

  @Test("A binary store made with another model is error 134100 and left untouched, migration asked or not")
  func otherModel() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Notes.binary")
    do {
      let context = try StoreStack(model: try Models.notes(), type: .binary, at: url).context
      try saveNote("keep me", in: context)
    }
    let before = try Data(contentsOf: url)
    let other = try NSManagedObjectModel(entities: [
      NSEntityDescription(name: "Note", properties: [.attribute(NSAttributeDescription(name: "text", type: .string))])
    ])
    for migrate in [false, true] {
      let coordinator = NSPersistentStoreCoordinator(managedObjectModel: other)
      let error = expectCode(.persistentStoreIncompatibleVersionHash) {
        try coordinator.addPersistentStore(
          type: .binary, at: url,
          options: [NSMigratePersistentStoresAutomaticallyOption: migrate, NSInferMappingModelAutomaticallyOption: true])
      }
      #expect(error?.message.contains("Note changed") == true)
      #expect(error?.message.contains("Notebook is in the store but not in the model") == true)
      #expect(try Data(contentsOf: url) == before)
    }
    let context = try StoreStack(model: try Models.notes(), type: .binary, at: url).context
    #expect(try titles(in: context) == ["keep me"])
  }

  @Test("A save whose file cannot be written fails with 134030, leaving the old file, memory and the context's changes")
  func failedWrite() throws {
    let folder = try TemporaryFolder()
    let storeFolder = folder.appending("Stores")
    let movedFolder = folder.appending("Moved")
    try FileManager.default.createDirectory(at: storeFolder, withIntermediateDirectories: true)
    let url = storeFolder.appendingPathComponent("Notes.binary")
    let model = try Models.notes()
    let stack = try StoreStack(model: model, type: .binary, at: url)
    let context = stack.context
    try saveNote("saved", in: context)
    let before = try Data(contentsOf: url)
    // The store's folder goes away (moved, with the file): no new file can be made where the store is.
    try FileManager.default.moveItem(at: storeFolder, to: movedFolder)
    context.performAndWait {
      let note = Note(context: context)
      note.title = "not yet"
      let error = expectCode(.persistentStoreSave) { try context.save() }
      #expect(error?.message.contains("left as it was") == true)
      #expect(error?.underlyingError is POSIXError)
      #expect(context.hasChanges)
      #expect(context.insertedObjects.count == 1)
    }
    #expect(try Data(contentsOf: movedFolder.appendingPathComponent("Notes.binary")) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: movedFolder.path) == ["Notes.binary"])
    // The store's memory was rolled back with the file: another context sees only the saved note.
    #expect(try titles(in: stack.freshContext()) == ["saved"])
    // With the folder back, the same save goes through.
    try FileManager.default.moveItem(at: movedFolder, to: storeFolder)
    try context.performAndWait { try context.save() }
    let reopened = try StoreStack(model: model, type: .binary, at: url).context
    let stored = try titles(in: reopened)
    #expect(stored == ["not yet", "saved"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: storeFolder.path) == ["Notes.binary"])
  }

  @Test("An empty file is a new store; a missing folder or a read-only open of nothing is refused")
  func newStores() throws {
    let folder = try TemporaryFolder()
    let empty = folder.appending("Empty.binary")
    #expect(FileManager.default.createFile(atPath: empty.path, contents: Data()))
    let context = try StoreStack(model: try Models.notes(), type: .binary, at: empty).context
    try saveNote("first", in: context)
    let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .binary, at: empty)
    #expect(metadata[NSStoreTypeKey] as? String == "Binary")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let missing = expectCode(.persistentStoreOpen) {
      try coordinator.addPersistentStore(type: .binary, at: folder.appending("nope/Store.binary"))
    }
    #expect(missing?.message.contains("does not exist") == true)
    _ = expectCode(.persistentStoreOpen) {
      try coordinator.addPersistentStore(
        type: .binary, at: folder.appending("Absent.binary"),
        options: [NSReadOnlyPersistentStoreOption: true])
    }
    _ = expectCode(.persistentStoreOpen) { try coordinator.addPersistentStore(ofType: NSBinaryStoreType, configurationName: nil, at: nil) }
    #expect(!FileManager.default.fileExists(atPath: folder.appending("Absent.binary").path))
  }

  @Test("A read-only binary store is read and never written")
  func readOnly() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Notes.binary")
    do {
      let context = try StoreStack(model: try Models.notes(), type: .binary, at: url).context
      try saveNote("kept", in: context)
    }
    let before = try Data(contentsOf: url)
    let context = try StoreStack(model: try Models.notes(), type: .binary, at: url, options: [NSReadOnlyPersistentStoreOption: true])
      .context
    let stored = try titles(in: context)
    #expect(stored == ["kept"])
    context.performAndWait {
      let note = Note(context: context)
      note.title = "refused"
      _ = expectCode(.persistentStoreSave) { try context.save() }
    }
    #expect(try Data(contentsOf: url) == before)
  }

  @Test("Batch requests and persistent history are refused with 134070, as Core Data offers them for SQLite stores")
  func sqliteOnlyFeatures() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Notes.binary")
    let context = try StoreStack(model: try Models.notes(), type: .binary, at: url).context
    try context.performAndWait {
      let note = Note(context: context)
      note.title = "one"
      try context.save()
      let before = try Data(contentsOf: url)
      _ = expectCode(.persistentStoreOperation) {
        _ = try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSManagedObject>(entityName: "Note")))
      }
      let update = NSBatchUpdateRequest(entityName: "Note")
      update.propertiesToUpdate = ["title": "changed"]
      _ = expectCode(.persistentStoreOperation) { _ = try context.execute(update) }
      _ = expectCode(.persistentStoreOperation) {
        _ = try context.execute(NSBatchInsertRequest(entityName: "Note", objects: [["title": "batch"]]))
      }
      #expect(try Data(contentsOf: url) == before)
      #expect(try context.fetch(NSFetchRequest<Note>(entityName: "Note")).map(\.title) == ["one"])
    }
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let history = expectCode(.persistentStoreOperation) {
      try coordinator.addPersistentStore(
        type: .binary, at: folder.appending("History.binary"),
        options: [
          NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
          NSPersistentHistoryTrackingKey: true,
        ])
    }
    #expect(history?.message.contains("persistent history") == true)
    #expect(!FileManager.default.fileExists(atPath: folder.appending("History.binary").path))
  }

  @Test("Two coordinators: each reads the file when added, and each save writes its whole graph (the last one wins)")
  func twoCoordinators() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Notes.binary")
    let model = try Models.notes()
    let first = try StoreStack(model: model, type: .binary, at: url).context
    try saveNote("from the first", in: first)
    // Added after that save: sees it.
    let second = try StoreStack(model: model, type: .binary, at: url).context
    #expect(try titles(in: second) == ["from the first"])
    try saveNote("first again", in: first)
    // The second store never reads the file again: its save replaces the first's later one.
    try second.performAndWait {
      #expect(try second.fetch(NSFetchRequest<Note>(entityName: "Note")).map(\.title) == ["from the first"])
      let note = Note(context: second)
      note.title = "from the second"
      try second.save()
    }
    let third = try StoreStack(model: model, type: .binary, at: url).context
    let stored = try titles(in: third)
    #expect(stored == ["from the first", "from the second"])
  }

  @Test("destroyPersistentStore deletes a binary store's file and refuses a file that is not one")
  func destroy() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Notes.binary")
    let coordinator = try StoreStack(model: try Models.notes(), type: .binary, at: url).coordinator
    try coordinator.destroyPersistentStore(at: url, type: .binary)
    #expect(coordinator.persistentStores.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: url.path))
    try coordinator.destroyPersistentStore(at: url, type: .binary)  // nothing there: nothing to do
    let text = folder.appending("Text.binary")
    try Data("not a store".utf8).write(to: text)
    _ = expectCode(.persistentStoreInvalidType) { try coordinator.destroyPersistentStore(at: text, type: .binary) }
    #expect(try Data(contentsOf: text) == Data("not a store".utf8))
  }
}
