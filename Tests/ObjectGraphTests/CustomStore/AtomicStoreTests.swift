import Dispatch
import EngineTestSupport
import Foundation
import ObjectGraph
import Synchronization
import TestSupport
import Testing

/// An atomic store written as an app writes one: its objects in a property-list file, read whole by `load()`
/// and written whole by `save()`. A file named `<store>.fail` beside it makes `save()` fail.
final class PlistAtomicStore: NSAtomicStore, @unchecked Sendable {
  static let typeName = "PlistAtomicStore"
  /// The lifecycle calls the coordinator made, in order.
  let calls = Mutex<[String]>([])

  override func loadMetadata() throws {
    calls.withLock { $0.append("loadMetadata") }
    if let url, FileManager.default.fileExists(atPath: url.path + ".unreadable") {
      throw NSError(domain: "PlistAtomicStore", code: 9, userInfo: [NSLocalizedDescriptionKey: "Unreadable (test)."])
    }
  }

  override func didAdd(to coordinator: NSPersistentStoreCoordinator) { calls.withLock { $0.append("didAdd") } }

  override func willRemove(from coordinator: NSPersistentStoreCoordinator?) { calls.withLock { $0.append("willRemove") } }

  required init(
    persistentStoreCoordinator coordinator: NSPersistentStoreCoordinator?, configurationName: String?, at url: URL,
    options: [AnyHashable: Any]? = nil
  ) {
    super.init(persistentStoreCoordinator: coordinator, configurationName: configurationName, at: url, options: options)
    if let file = Self.read(url), let stored = file["metadata"] as? [String: Any] {
      metadata = stored
    } else {
      metadata = [NSStoreTypeKey: Self.typeName, NSStoreUUIDKey: UUID().uuidString]
    }
  }

  override class func metadataForPersistentStore(with url: URL) throws -> [String: Any] {
    guard let metadata = read(url)?["metadata"] as? [String: Any] else {
      throw NSError(domain: NSCocoaErrorDomain, code: NSPersistentStoreInvalidTypeError)
    }
    return metadata
  }

  static func read(_ url: URL) -> [String: Any]? {
    guard let data = try? Data(contentsOf: url) else { return nil }
    return (try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)) as? [String: Any]
  }

  override func load() throws {
    calls.withLock { $0.append("load") }
    guard let url, let file = Self.read(url), let model = persistentStoreCoordinator?.managedObjectModel else { return }
    let records = file["objects"] as? [[String: Any]] ?? []
    var nodes: [String: NSAtomicStoreCacheNode] = [:]
    for record in records {
      guard let name = record["entity"] as? String, let reference = record["reference"] as? String,
        let entity = model.entitiesByName[name]
      else { continue }
      let node = NSAtomicStoreCacheNode(objectID: objectID(for: entity, withReferenceObject: reference))
      for (key, value) in record["attributes"] as? [String: Any] ?? [:] { node.setValue(value, forKey: key) }
      nodes[reference] = node
    }
    for record in records {
      guard let reference = record["reference"] as? String, let node = nodes[reference] else { continue }
      for (key, value) in record["toOne"] as? [String: String] ?? [:] { node.setValue(nodes[value], forKey: key) }
      for (key, value) in record["toMany"] as? [String: [String]] ?? [:] {
        node.setValue(Set(value.compactMap { nodes[$0] }), forKey: key)
      }
    }
    addCacheNodes(Set(nodes.values))
  }

  override func newReferenceObject(for managedObject: NSManagedObject) -> Any { UUID().uuidString }

  override func newCacheNode(for managedObject: NSManagedObject) -> NSAtomicStoreCacheNode {
    let node = NSAtomicStoreCacheNode(objectID: managedObject.objectID)
    updateCacheNode(node, from: managedObject)
    return node
  }

  override func updateCacheNode(_ node: NSAtomicStoreCacheNode, from managedObject: NSManagedObject) {
    for name in managedObject.entity.attributesByName.keys {
      node.setValue(managedObject.value(forKey: name), forKey: name)
    }
  }

  override func save() throws {
    guard let url else { return }
    if FileManager.default.fileExists(atPath: url.path + ".fail") {
      throw NSError(domain: "PlistAtomicStore", code: 7, userInfo: [NSLocalizedDescriptionKey: "The disk is full (test)."])
    }
    var records: [[String: Any]] = []
    for node in cacheNodes() {
      let entity = node.objectID.entity
      var attributes: [String: Any] = [:]
      for name in entity.attributesByName.keys { attributes[name] = node.value(forKey: name) }
      var toOne: [String: String] = [:]
      var toMany: [String: [String]] = [:]
      for (name, relationship) in entity.relationshipsByName {
        if relationship.isToMany {
          let members = node.value(forKey: name) as? Set<NSAtomicStoreCacheNode> ?? []
          toMany[name] = members.compactMap { referenceObject(for: $0.objectID) as? String }.sorted()
        } else if let destination = node.value(forKey: name) as? NSAtomicStoreCacheNode {
          toOne[name] = referenceObject(for: destination.objectID) as? String
        }
      }
      records.append([
        "entity": entity.name ?? "", "reference": referenceObject(for: node.objectID) as? String ?? "",
        "attributes": attributes, "toOne": toOne, "toMany": toMany,
      ])
    }
    let file: [String: Any] = ["metadata": metadata ?? [:], "objects": records]
    let data = try PropertyListSerialization.data(fromPropertyList: file, format: .binary, options: 0)
    try data.write(to: url, options: .atomic)
  }
}

/// A request kind no store runs.
final class StrayRequest: NSPersistentStoreRequest {
  var requestType: NSPersistentStoreRequestType { .fetchRequestType }
}

@Suite("Custom store classes: NSAtomicStore", .temporaryFolders)
struct AtomicStoreTests {
  init() { NSPersistentStoreCoordinator.registerStoreClass(PlistAtomicStore.self, forStoreType: PlistAtomicStore.typeName) }

  /// Folder <->> Note.
  static func model(withColour: Bool = false) -> NSManagedObjectModel {
    let folder = NSEntityDescription()
    folder.name = "Folder"
    let name = NSAttributeDescription()
    name.name = "name"
    name.attributeType = .stringAttributeType
    let note = NSEntityDescription()
    note.name = "Note"
    let title = NSAttributeDescription()
    title.name = "title"
    title.attributeType = .stringAttributeType
    let notes = NSRelationshipDescription()
    notes.name = "notes"
    notes.destinationEntity = note
    let inFolder = NSRelationshipDescription()
    inFolder.name = "folder"
    inFolder.destinationEntity = folder
    inFolder.maxCount = 1
    notes.inverseRelationship = inFolder
    inFolder.inverseRelationship = notes
    var folderProperties: [NSPropertyDescription] = [name, notes]
    if withColour {
      let colour = NSAttributeDescription()
      colour.name = "colour"
      colour.attributeType = .stringAttributeType
      folderProperties.append(colour)
    }
    folder.properties = folderProperties
    note.properties = [title, inFolder]
    let model = NSManagedObjectModel()
    model.entities = [folder, note]
    return model
  }

  static func stack(_ model: NSManagedObjectModel, at url: URL) throws -> (NSPersistentStoreCoordinator, NSManagedObjectContext) {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(ofType: PlistAtomicStore.typeName, configurationName: nil, at: url)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return (coordinator, context)
  }

  static func titles(_ context: NSManagedObjectContext) throws -> [String: String] {
    try context.performAndWait {
      let notes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
      return Dictionary(
        uniqueKeysWithValues: notes.map {
          (
            $0.value(forKey: "title") as? String ?? "",
            ($0.value(forKey: "folder") as? NSManagedObject)?.value(forKey: "name") as? String ?? ""
          )
        })
    }
  }

  @Test("Insert and relate, save, reopen in a new coordinator: the file's objects and relationships come back")
  func roundTrip() throws {
    let folder = try TemporaryFolder()
    let url = folder.url.appendingPathComponent("Notes.plist")
    let model = Self.model()
    do {
      let (coordinator, context) = try Self.stack(model, at: url)
      let store = try #require(coordinator.persistentStores.first)
      #expect(store is PlistAtomicStore)
      #expect(store.type == PlistAtomicStore.typeName)
      #expect(store.persistentStoreCoordinator === coordinator)
      try context.performAndWait {
        let inbox = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
        inbox.setValue("Inbox", forKey: "name")
        for title in ["a", "b"] {
          let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
          note.setValue(title, forKey: "title")
          note.setValue(inbox, forKey: "folder")
        }
        try context.save()
        #expect(inbox.objectID.isTemporaryID == false)
      }
      let atomic = try #require(store as? PlistAtomicStore)
      #expect(atomic.cacheNodes().count == 3)
      let inboxNode = try #require(atomic.cacheNodes().first { $0.objectID.entity.name == "Folder" })
      #expect((inboxNode.value(forKey: "notes") as? Set<NSAtomicStoreCacheNode>)?.count == 2)
      #expect(atomic.referenceObject(for: inboxNode.objectID) is String)
    }
    let file = try #require(PlistAtomicStore.read(url))
    #expect((file["objects"] as? [Any])?.count == 3)
    let (_, reopened) = try Self.stack(model, at: url)
    #expect(try Self.titles(reopened) == ["a": "Inbox", "b": "Inbox"])
  }

  @Test("Update and delete are written to the file; a reopened store sees them")
  func updateAndDelete() throws {
    let folder = try TemporaryFolder()
    let url = folder.url.appendingPathComponent("Notes.plist")
    let model = Self.model()
    let (_, context) = try Self.stack(model, at: url)
    try context.performAndWait {
      let inbox = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
      inbox.setValue("Inbox", forKey: "name")
      for title in ["a", "b"] {
        let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
        note.setValue(title, forKey: "title")
        note.setValue(inbox, forKey: "folder")
      }
      try context.save()
    }
    let (_, second) = try Self.stack(model, at: url)
    try second.performAndWait {
      let notes = try second.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
      for note in notes {
        if note.value(forKey: "title") as? String == "a" { note.setValue("A", forKey: "title") } else { second.delete(note) }
      }
      try second.save()
    }
    let (_, third) = try Self.stack(model, at: url)
    #expect(try Self.titles(third) == ["A": "Inbox"])
  }

  @Test("A save() that throws fails the context's save: the file, the nodes and the rows keep what they had")
  func failingSave() throws {
    let folder = try TemporaryFolder()
    let url = folder.url.appendingPathComponent("Notes.plist")
    let model = Self.model()
    let (coordinator, context) = try Self.stack(model, at: url)
    try context.performAndWait {
      let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
      note.setValue("kept", forKey: "title")
      try context.save()
    }
    let before = try Data(contentsOf: url)
    #expect(FileManager.default.createFile(atPath: url.path + ".fail", contents: Data()))
    let error = try context.performAndWait { () -> (any Error)? in
      let notes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
      notes.first?.setValue("changed", forKey: "title")
      let extra = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
      extra.setValue("lost", forKey: "title")
      do {
        try context.save()
        return nil
      } catch {
        #expect(context.hasChanges)
        return error
      }
    }
    #expect((error as NSError?)?.domain == "PlistAtomicStore")
    #expect(try Data(contentsOf: url) == before)
    let atomic = try #require(coordinator.persistentStores.first as? PlistAtomicStore)
    #expect(atomic.cacheNodes().count == 1)
    #expect(atomic.cacheNodes().first?.value(forKey: "title") as? String == "kept")
    let fresh = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    fresh.persistentStoreCoordinator = coordinator
    #expect(try Self.titles(fresh) == ["kept": ""])
    // Once the file can be written, the context's kept changes save.
    try FileManager.default.removeItem(atPath: url.path + ".fail")
    try context.performAndWait { try context.save() }
    let (_, reopened) = try Self.stack(model, at: url)
    #expect(try Self.titles(reopened) == ["changed": "", "lost": ""])
  }

  @Test("A store-trump merge policy keeps the stored value: the file holds what the store holds")
  func storeTrumpConflict() throws {
    let folder = try TemporaryFolder()
    let url = folder.url.appendingPathComponent("Notes.plist")
    let model = Self.model()
    let (coordinator, first) = try Self.stack(model, at: url)
    let id = try first.performAndWait {
      let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: first)
      note.setValue("original", forKey: "title")
      try first.save()
      return note.objectID
    }
    let second = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    second.persistentStoreCoordinator = coordinator
    second.mergePolicy = NSMergeByPropertyStoreTrumpMergePolicy
    try second.performAndWait { _ = try second.existingObject(with: id).value(forKey: "title") }
    try first.performAndWait {
      try first.existingObject(with: id).setValue("first", forKey: "title")
      try first.save()
    }
    try second.performAndWait {
      let note = try second.existingObject(with: id)
      note.setValue("second", forKey: "title")
      try second.save()
      #expect(note.value(forKey: "title") as? String == "first")
    }
    let (_, reopened) = try Self.stack(model, at: url)
    #expect(try Self.titles(reopened) == ["first": ""])
  }

  @Test("Metadata is checked on add: another model's store is refused as a SQLite store is (134100)")
  func wrongModel() throws {
    let folder = try TemporaryFolder()
    let url = folder.url.appendingPathComponent("Notes.plist")
    let (_, context) = try Self.stack(Self.model(), at: url)
    try context.performAndWait {
      _ = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
      try context.save()
    }
    let file = try #require(PlistAtomicStore.read(url))
    let metadata = try #require(file["metadata"] as? [String: Any])
    #expect(metadata[NSStoreModelVersionHashesKey] != nil)
    #expect(metadata[NSStoreTypeKey] as? String == PlistAtomicStore.typeName)
    let read = try NSPersistentStoreCoordinator.metadataForPersistentStore(ofType: PlistAtomicStore.typeName, at: url)
    #expect(read[NSStoreUUIDKey] as? String == metadata[NSStoreUUIDKey] as? String)
    #expect(Self.model(withColour: true).isConfiguration(withName: nil, compatibleWithStoreMetadata: read) == false)
    let other = NSPersistentStoreCoordinator(managedObjectModel: Self.model(withColour: true))
    let error = try #require(throws: NSError.self) {
      try other.addPersistentStore(ofType: PlistAtomicStore.typeName, configurationName: nil, at: url)
    }
    #expect(error.code == NSPersistentStoreIncompatibleVersionHashError)
    #expect(other.persistentStores.isEmpty)
  }

  @Test("Saves from several queues at once all reach the file")
  func concurrentSaves() throws {
    let folder = try TemporaryFolder()
    let url = folder.url.appendingPathComponent("Notes.plist")
    let model = Self.model()
    let (coordinator, _) = try Self.stack(model, at: url)
    let failures = Mutex(0)
    DispatchQueue.concurrentPerform(iterations: 8) { worker in
      let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      context.persistentStoreCoordinator = coordinator
      context.performAndWait {
        for index in 0..<5 {
          let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
          note.setValue("\(worker)-\(index)", forKey: "title")
          do { try context.save() } catch { failures.withLock { $0 += 1 } }
        }
      }
    }
    #expect(failures.withLock { $0 } == 0)
    let (_, reopened) = try Self.stack(model, at: url)
    #expect(try Self.titles(reopened).count == 40)
  }

  @Test("The registry: an unregistered type is refused; registered types are listed; removal calls willRemove")
  func registry() throws {
    let folder = try TemporaryFolder()
    let url = folder.url.appendingPathComponent("Notes.plist")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
    let error = try #require(throws: NSError.self) {
      try coordinator.addPersistentStore(ofType: "NoSuchStoreType", configurationName: nil, at: url)
    }
    #expect(error.code == NSPersistentStoreInvalidTypeError)
    let types = NSPersistentStoreCoordinator.registeredStoreTypes
    #expect(types[NSSQLiteStoreType] != nil && types[NSInMemoryStoreType] != nil && types[NSBinaryStoreType] != nil)
    #expect((types[PlistAtomicStore.typeName] as? NSNumber)?.uintValue == UInt(bitPattern: ObjectIdentifier(PlistAtomicStore.self)))
    let store = try #require(
      try coordinator.addPersistentStore(type: .init(rawValue: PlistAtomicStore.typeName), at: url) as? PlistAtomicStore)
    #expect(store.calls.withLock { $0 } == ["loadMetadata", "load", "didAdd"])
    try coordinator.remove(store)
    #expect(store.calls.withLock { $0 } == ["loadMetadata", "load", "didAdd", "willRemove"])
    #expect(coordinator.persistentStores.isEmpty)
    #expect(store.persistentStoreCoordinator == nil)
    #expect(ObjectIdentifier(NSPersistentStore.migrationManagerClass()) == ObjectIdentifier(NSMigrationManager.self))
  }

  @Test("A loadMetadata() that throws keeps the store out of the coordinator, with its error")
  func loadMetadataFails() throws {
    let folder = try TemporaryFolder()
    let url = folder.url.appendingPathComponent("Notes.plist")
    #expect(FileManager.default.createFile(atPath: url.path + ".unreadable", contents: Data()))
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
    let error = try #require(throws: NSError.self) {
      try coordinator.addPersistentStore(ofType: PlistAtomicStore.typeName, configurationName: nil, at: url)
    }
    #expect(error.domain == "PlistAtomicStore" && error.code == 9)
    #expect(coordinator.persistentStores.isEmpty)
  }

  @Test("execute(_:with:) hands a batch request to the context's execute(_:)")
  func executeBatchWithContext() throws {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
    try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait {
      let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
      note.setValue("a", forKey: "title")
      try context.save()
      let update = NSBatchUpdateRequest(entityName: "Note")
      update.propertiesToUpdate = ["title": "x"]
      update.resultType = .updatedObjectsCountResultType
      let result = try coordinator.execute(update, with: context)
      #expect((result as? NSBatchUpdateResult)?.result as? Int == 1)
    }
    let other = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
    #expect(throws: NSError.self) { try other.execute(NSFetchRequest<NSManagedObject>(entityName: "Note"), with: context) }
  }

  @Test("A container loads a description of a registered type")
  func container() throws {
    let folder = try TemporaryFolder()
    let container = NSPersistentContainer(name: "Notes", managedObjectModel: Self.model())
    let description = NSPersistentStoreDescription(url: folder.url.appendingPathComponent("Notes.plist"))
    description.type = PlistAtomicStore.typeName
    container.persistentStoreDescriptions = [description]
    let failure = Mutex<String?>(nil)
    container.loadPersistentStores { _, error in failure.withLock { $0 = error.map { "\($0)" } } }
    #expect(failure.withLock { $0 } == nil)
    #expect(container.persistentStoreCoordinator.persistentStores.first is PlistAtomicStore)
  }

  @Test("Batch requests and history tracking are refused by an atomic store, as Core Data's")
  func batchRefused() throws {
    let folder = try TemporaryFolder()
    let (_, context) = try Self.stack(Self.model(), at: folder.url.appendingPathComponent("Notes.plist"))
    let error = try #require(throws: NSError.self) {
      try context.performAndWait { try context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Note"))) }
    }
    #expect(error.code == NSPersistentStoreOperationError)
    let tracking = NSPersistentStoreCoordinator(managedObjectModel: Self.model())
    let refused = try #require(throws: NSError.self) {
      try tracking.addPersistentStore(
        ofType: PlistAtomicStore.typeName, configurationName: nil, at: folder.url.appendingPathComponent("History.plist"),
        options: [NSPersistentHistoryTrackingKey: true])
    }
    #expect(refused.code == NSPersistentStoreOperationError)
  }

  @Test("requestType has Core Data's values on every request class")
  func requestTypes() {
    #expect(NSPersistentStoreRequestType.fetchRequestType.rawValue == 1)
    #expect(NSPersistentStoreRequestType.saveRequestType.rawValue == 2)
    #expect(NSPersistentStoreRequestType.batchInsertRequestType.rawValue == 5)
    #expect(NSPersistentStoreRequestType.batchUpdateRequestType.rawValue == 6)
    #expect(NSPersistentStoreRequestType.batchDeleteRequestType.rawValue == 7)
    #expect(NSPersistentStoreRequestType(rawValue: 3) == nil)
    #expect(NSFetchRequest<NSManagedObject>(entityName: "Note").requestType == .fetchRequestType)
    #expect(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Note")).requestType == .batchDeleteRequestType)
    #expect(NSBatchUpdateRequest(entityName: "Note").requestType == .batchUpdateRequestType)
    #expect(NSBatchInsertRequest(entityName: "Note", objects: []).requestType == .batchInsertRequestType)
    let save = NSSaveChangesRequest(inserted: nil, updated: nil, deleted: nil, locked: nil)
    #expect(save.requestType == .saveRequestType)
    #expect(save.insertedObjects == nil && save.lockedObjects == nil)
  }

  @Test("execute(_:with:) runs fetches, saves a context's changes, refuses a partial save request")
  func executeWithContext() throws {
    let folder = try TemporaryFolder()
    let (coordinator, context) = try Self.stack(Self.model(), at: folder.url.appendingPathComponent("Notes.plist"))
    try context.performAndWait {
      let a = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
      a.setValue("a", forKey: "title")
      let b = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
      b.setValue("b", forKey: "title")
      #expect(throws: NSError.self) {
        try coordinator.execute(
          NSSaveChangesRequest(insertedObjects: [a], updatedObjects: nil, deletedObjects: nil, lockedObjects: nil), with: context)
      }
      #expect(context.hasChanges)
      let saved = try coordinator.execute(
        NSSaveChangesRequest(insertedObjects: [a, b], updatedObjects: nil, deletedObjects: nil, lockedObjects: nil), with: context)
      #expect((saved as? [Any])?.isEmpty == true)
      #expect(!context.hasChanges)
      let fetched = try coordinator.execute(NSFetchRequest<NSManagedObject>(entityName: "Note"), with: context)
      #expect((fetched as? [Any])?.count == 2)
      let counted = try coordinator.execute(
        {
          let request = NSFetchRequest<NSNumber>(entityName: "Note"); request.resultType = .countResultType; return request
        }(),
        with: context)
      #expect(((counted as? [Any])?.first as? NSNumber)?.intValue == 2)
      let unsupported = try #require(throws: NSError.self) { try coordinator.execute(StrayRequest(), with: context) }
      #expect(unsupported.code == NSPersistentStoreUnsupportedRequestTypeError)
    }
  }
}
