import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// The coordinator's and stores' API around where objects go and where stores are: `assign(_:to:)`, an ID's
/// and a store's weak links, `url(for:)`, `setURL(_:for:)`, `managedObjectID(for:)`, `isReadOnly`, and the
/// store class's metadata methods.
@Suite("Stores: assign(_:to:), locations, read-only, metadata", .temporaryFolders)
struct StoreAPITests {
  /// A coordinator with two empty SQLite stores holding every entity, A then B, and a private-queue context.
  private func twoStores(_ folder: TemporaryFolder) throws -> (
    coordinator: NSPersistentStoreCoordinator, context: NSManagedObjectContext, a: NSPersistentStore, b: NSPersistentStore
  ) {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let a = try coordinator.addPersistentStore(type: .sqlite, at: folder.appending("A.sqlite"))
    let b = try coordinator.addPersistentStore(type: .sqlite, at: folder.appending("B.sqlite"))
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return (coordinator, context, a, b)
  }

  /// The titles of the notes `stores` hold, sorted, read by a new context (unsaved changes left out).
  private func saved(_ coordinator: NSPersistentStoreCoordinator, in stores: [NSPersistentStore]) throws -> [String] {
    let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    reader.persistentStoreCoordinator = coordinator
    return try reader.performAndWait { () throws -> [String] in
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.affectedStores = stores
      return try reader.fetch(request).compactMap(\.title).sorted()
    }
  }

  @Test("an assigned insert is saved to its store, and fetches see it there before the save")
  func assignedInsertGoesToItsStore() throws {
    let folder = try TemporaryFolder()
    let (coordinator, context, a, b) = try twoStores(folder)
    try context.performAndWait { () throws in
      let first = Note(context: context)
      first.title = "to A"
      let second = Note(context: context)
      second.title = "to B"
      context.assign(second, to: b)
      // The pending overlay counts the unsaved insert as in the store it was assigned to.
      let inB = NSFetchRequest<Note>(entityName: "Note")
      inB.affectedStores = [b]
      #expect(try context.fetch(inB).compactMap(\.title) == ["to B"])
      inB.affectedStores = [a]
      #expect(try context.fetch(inB).compactMap(\.title) == ["to A"])
      #expect(second.objectID.persistentStore == nil)
      try context.save()
      #expect(second.objectID.storeIdentifier == b.identifier)
      #expect(second.objectID.persistentStore === b)
      #expect(first.objectID.persistentStore === a)
    }
    #expect(try saved(coordinator, in: [a]) == ["to A"])
    #expect(try saved(coordinator, in: [b]) == ["to B"])
    #expect(coordinator.assignments.withLock { $0.isEmpty })
  }

  @Test("assigning again changes the store; obtainPermanentIDs fixes it; a child's assignment reaches the store")
  func reassignPermanentIDsAndChildren() throws {
    let folder = try TemporaryFolder()
    let (coordinator, context, a, b) = try twoStores(folder)
    try context.performAndWait { () throws in
      let note = Note(context: context)
      note.title = "moved"
      context.assign(note, to: b)
      context.assign(note, to: a)
      let early = Note(context: context)
      early.title = "early"
      context.assign(early, to: b)
      try context.obtainPermanentIDs(for: [early])
      #expect(early.objectID.persistentStore === b)
      // Its store is fixed now: assigning it to the same store is allowed (and changes nothing).
      context.assign(early, to: b)
      try context.save()
    }
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = context
    try child.performAndWait { () throws in
      let note = Note(context: child)
      note.title = "from child"
      child.assign(note, to: b)
      try child.save()
    }
    try context.performAndWait { () throws in try context.save() }
    #expect(try saved(coordinator, in: [a]) == ["moved"])
    #expect(try saved(coordinator, in: [b]) == ["early", "from child"])
  }

  @Test("a save fails, naming it, when the assigned store was removed; reassigning fixes it")
  func assignedStoreRemoved() throws {
    let folder = try TemporaryFolder()
    let (coordinator, context, a, b) = try twoStores(folder)
    try context.performAndWait { () throws in
      let note = Note(context: context)
      note.title = "orphan"
      context.assign(note, to: b)
      try coordinator.remove(b)
      let error = try #require(throws: ObjectGraphError.self) { try context.save() }
      #expect(error.message.contains("removed from the coordinator"), "\(error.message)")
      #expect(note.objectID.isTemporaryID)
      context.assign(note, to: a)
      try context.save()
    }
    #expect(try saved(coordinator, in: [a]) == ["orphan"])
  }

  @Test("a store knows its coordinator, weakly; an ID knows its store while the store is added")
  func weakLinks() throws {
    let folder = try TemporaryFolder()
    var coordinator: NSPersistentStoreCoordinator? = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let store = try #require(try coordinator?.addPersistentStore(type: .sqlite, at: folder.appending("S.sqlite")))
    #expect(store.persistentStoreCoordinator === coordinator)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    let id = try context.performAndWait { () throws -> NSManagedObjectID in
      let note = Note(context: context)
      note.title = "x"
      #expect(note.objectID.persistentStore == nil)
      try context.save()
      return note.objectID
    }
    #expect(id.persistentStore === store)
    try coordinator?.remove(store)
    #expect(store.persistentStoreCoordinator == nil)
    #expect(id.persistentStore == nil)
    // Added to another coordinator, the store's file gives the same IDs, now of that coordinator's store.
    let other = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let again = try other.addPersistentStore(type: .sqlite, at: folder.appending("S.sqlite"))
    #expect(id.persistentStore === again)
    context.persistentStoreCoordinator = other
    coordinator = nil
    #expect(again.persistentStoreCoordinator === other)
  }

  @Test("contexts on their own queues assign to both stores while others save: each object lands where it was sent")
  func assignUnderConcurrentSaves() async throws {
    let folder = try TemporaryFolder()
    let (coordinator, _, a, b) = try twoStores(folder)
    let workers = 6
    let perWorker = 40
    await withTaskGroup(of: Void.self) { group in
      for worker in 0..<workers {
        group.addTask {
          let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
          context.persistentStoreCoordinator = coordinator
          await context.perform {
            for index in 0..<perWorker {
              let note = Note(context: context)
              note.title = "w\(worker)-\(index)"
              // Odd workers assign everything to B; even ones leave it to the default (A), except every
              // third object, sent to B too.
              if worker % 2 == 1 || index % 3 == 0 { context.assign(note, to: b) }
              if index % 10 == 9 { try? context.save() }
            }
            try? context.save()
          }
        }
      }
    }
    let inA = try saved(coordinator, in: [a])
    let inB = try saved(coordinator, in: [b])
    #expect(inA.count + inB.count == workers * perWorker)
    var expectedB: [String] = []
    for worker in 0..<workers {
      for index in 0..<perWorker where worker % 2 == 1 || index % 3 == 0 { expectedB.append("w\(worker)-\(index)") }
    }
    #expect(inB == expectedB.sorted())
    #expect(inA.allSatisfy { !expectedB.contains($0) })
    #expect(coordinator.assignments.withLock { $0.isEmpty })
  }

  @Test("assign(_:to:) stops the program for a saved object, naming it")
  func assignSavedObjectStops() async throws {
    let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let stack = try StoreStack(type: .inMemory)
      try stack.context.performAndWait { () throws in
        let note = Note(context: stack.context)
        note.title = "saved"
        try stack.context.save()
        let store = try #require(stack.coordinator.persistentStores.first)
        stack.context.assign(note, to: store)
      }
    }
    let said = String(decoding: stopped?.standardErrorContent ?? [], as: UTF8.self)
    #expect(said.contains("which is not an object inserted in this context"), "it printed: \(said)")
  }

  @Test("assign(_:to:) stops the program for another coordinator's store, naming it")
  func assignForeignStoreStops() async throws {
    let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let stack = try StoreStack(type: .inMemory)
      let other = NSPersistentStoreCoordinator(managedObjectModel: stack.coordinator.managedObjectModel)
      let foreign = try other.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
      stack.context.performAndWait {
        let note = Note(context: stack.context)
        stack.context.assign(note, to: foreign)
      }
    }
    let said = String(decoding: stopped?.standardErrorContent ?? [], as: UTF8.self)
    #expect(said.contains("which is not one of the coordinator's stores"), "it printed: \(said)")
  }

  @Test("assign(_:to:) stops the program for a store whose configuration lacks the entity")
  func assignStoreWithoutEntityStops() async throws {
    let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let item = NSEntityDescription(name: "Item", properties: [.attribute(NSAttributeDescription(name: "name", type: .string))])
      let other = NSEntityDescription(name: "Other", properties: [.attribute(NSAttributeDescription(name: "name", type: .string))])
      let model = try NSManagedObjectModel(
        entities: [item, other], versionIdentifiers: [], configurations: ["OnlyOther": ["Other"]], fetchRequestTemplates: [],
        sourceURL: nil)
      let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
      _ = try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
      let onlyOther = try coordinator.addPersistentStore(
        type: .inMemory, configuration: "OnlyOther", at: URL(fileURLWithPath: "/dev/null"))
      let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      context.persistentStoreCoordinator = coordinator
      context.performAndWait {
        let object = NSManagedObject(entity: item, insertInto: context)
        context.assign(object, to: onlyOther)
      }
    }
    let said = String(decoding: stopped?.standardErrorContent ?? [], as: UTF8.self)
    #expect(said.contains("cannot hold entity Item"), "it printed: \(said)")
  }

  @Test("url(for:) and managedObjectID(for:) answer as url and managedObjectID(forURIRepresentation:)")
  func urlAndIDFromString() throws {
    let folder = try TemporaryFolder()
    let (coordinator, context, a, _) = try twoStores(folder)
    #expect(coordinator.url(for: a) == folder.appending("A.sqlite"))
    let memory = try coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))
    #expect(coordinator.url(for: memory).path == "/dev/null")
    let id = try context.performAndWait { () throws -> NSManagedObjectID in
      let note = Note(context: context)
      note.title = "x"
      try context.save()
      return note.objectID
    }
    #expect(coordinator.managedObjectID(for: id.uriRepresentation().absoluteString) == id)
    #expect(coordinator.managedObjectID(for: "not a uri") == nil)
    #expect(coordinator.managedObjectID(for: "x-coredata://\(UUID().uuidString)/Note/p1") == nil)
  }

  @Test("setURL(_:for:) reconnects a SQLite store to a copy, refuses a missing file, and moves a binary store's next save")
  func setURL() throws {
    let folder = try TemporaryFolder()
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let original = try coordinator.addPersistentStore(
      type: .sqlite, at: folder.appending("Old.sqlite"), options: [NSSQLitePragmasOption: ["journal_mode": "DELETE"]])
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    let id = try context.performAndWait { () throws -> NSManagedObjectID in
      let note = Note(context: context)
      note.title = "copied"
      try context.save()
      return note.objectID
    }
    #expect(!coordinator.setURL(folder.appending("Missing.sqlite"), for: original))
    #expect(coordinator.persistentStores.first === original)
    try FileManager.default.copyItem(at: folder.appending("Old.sqlite"), to: folder.appending("New.sqlite"))
    #expect(coordinator.setURL(folder.appending("New.sqlite"), for: original))
    let moved = try #require(coordinator.persistentStores.first)
    #expect(moved !== original && moved.url == folder.appending("New.sqlite"))
    #expect(moved.identifier == original.identifier && original.persistentStoreCoordinator == nil)
    #expect(moved.persistentStoreCoordinator === coordinator)
    try context.performAndWait { () throws in
      Note(context: context).title = "after the move"
      try context.save()
      #expect(try context.existingObject(with: id).value(forKey: "title") as? String == "copied")
    }
    // The old file did not get the new note.
    let old = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let oldStore = try old.addPersistentStore(type: .sqlite, at: folder.appending("Old.sqlite"))
    #expect(try saved(old, in: [oldStore]) == ["copied"])
    #expect(try saved(coordinator, in: [moved]) == ["after the move", "copied"])
    #expect(!coordinator.setURL(folder.appending("Old.sqlite"), for: original), "no longer one of its stores")

    // A binary store: the next save writes the whole store at the new location.
    let binaryCoordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let binary = try binaryCoordinator.addPersistentStore(type: .binary, at: folder.appending("Notes.binary"))
    #expect(binaryCoordinator.setURL(folder.appending("Moved.binary"), for: binary))
    #expect(binary.url == folder.appending("Moved.binary") && binaryCoordinator.url(for: binary) == binary.url)
    let binaryContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    binaryContext.persistentStoreCoordinator = binaryCoordinator
    try binaryContext.performAndWait { () throws in
      Note(context: binaryContext).title = "binary"
      try binaryContext.save()
    }
    let reopened = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let reopenedStore = try reopened.addPersistentStore(type: .binary, at: folder.appending("Moved.binary"))
    #expect(try saved(reopened, in: [reopenedStore]) == ["binary"])
  }

  @Test("isReadOnly: set on an added store it refuses saves until cleared; a store opened read-only stays so")
  func readOnly() throws {
    let folder = try TemporaryFolder()
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let store = try coordinator.addPersistentStore(type: .sqlite, at: folder.appending("R.sqlite"))
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    #expect(!store.isReadOnly)
    store.isReadOnly = true
    #expect(store.isReadOnly)
    try context.performAndWait { () throws in
      Note(context: context).title = "refused"
      let error = try #require(throws: ObjectGraphError.self) { try context.save() }
      #expect(error.code == .persistentStoreSave)
      #expect(error.message.contains("isReadOnly = true"), "\(error.message)")
      store.isReadOnly = false
      try context.save()
    }
    #expect(try saved(coordinator, in: [store]) == ["refused"])
    try coordinator.remove(store)
    let readOnly = try coordinator.addPersistentStore(
      type: .sqlite, at: folder.appending("R.sqlite"), options: [NSReadOnlyPersistentStoreOption: true])
    #expect(readOnly.isReadOnly)
    readOnly.isReadOnly = false
    #expect(readOnly.isReadOnly, "a read-only connection cannot write")
  }

  @Test("NSPersistentStore's class methods read and set a SQLite file's metadata, keeping the store's keys")
  func classMetadata() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("M.sqlite")
    do {
      let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
      let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
      try coordinator.remove(store)
    }
    var metadata = try NSPersistentStore.metadataForPersistentStore(with: url)
    let uuid = try #require(metadata[NSStoreUUIDKey] as? String)
    metadata["importedBy"] = "tests"
    try NSPersistentStore.setMetadata(metadata, forPersistentStoreAt: url)
    let read = try NSPersistentStore.metadataForPersistentStore(with: url)
    #expect(read["importedBy"] as? String == "tests")
    #expect(read[NSStoreUUIDKey] as? String == uuid)
    try NSPersistentStore.setMetadata(nil, forPersistentStoreAt: url)
    #expect(try NSPersistentStore.metadataForPersistentStore(with: url)["importedBy"] == nil)
    #expect(throws: ObjectGraphError.self) {
      try NSPersistentStore.metadataForPersistentStore(with: folder.appending("None.sqlite"))
    }
  }

  @Test("NSSQLiteAnalyzeOption and NSSQLiteManualVacuumOption run ANALYZE and VACUUM when the store is added, not when read-only")
  func analyzeAndVacuum() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("V.sqlite")
    let pragmas: [String: String] = ["journal_mode": "DELETE"]
    do {
      let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
      let store = try coordinator.addPersistentStore(type: .sqlite, at: url, options: [NSSQLitePragmasOption: pragmas])
      let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      context.persistentStoreCoordinator = coordinator
      try context.performAndWait { () throws in
        let notes = (0..<2000).map { index -> Note in
          let note = Note(context: context)
          note.title = String(repeating: "x", count: 200) + "\(index)"
          return note
        }
        try context.save()
        for note in notes { context.delete(note) }
        try context.save()
      }
      try coordinator.remove(store)
    }
    let before = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
    let statements = Locked<[String]>([])
    let trace: @Sendable (String) -> Void = { sql in statements.withLock { $0.append(sql) } }
    // Read-only: nothing is run.
    let readOnly = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let readOnlyStore = try readOnly.addPersistentStore(
      type: .sqlite, at: url,
      options: [
        NSReadOnlyPersistentStoreOption: true, NSSQLiteAnalyzeOption: true, NSSQLiteManualVacuumOption: true,
        ObjectGraphSQLTraceOption: trace,
      ])
    try readOnly.remove(readOnlyStore)
    #expect(!statements.withLock { $0.contains { $0.hasPrefix("ANALYZE") || $0.hasPrefix("VACUUM") } })
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let store = try coordinator.addPersistentStore(
      type: .sqlite, at: url,
      options: [
        NSSQLitePragmasOption: pragmas, NSSQLiteAnalyzeOption: true, NSSQLiteManualVacuumOption: NSNumber(value: true),
        ObjectGraphSQLTraceOption: trace,
      ])
    #expect(statements.withLock { $0.contains("ANALYZE") && $0.contains("VACUUM") })
    try coordinator.remove(store)
    let after = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
    #expect(after < before / 2, "VACUUM gave the deleted rows' pages back: \(before) -> \(after) bytes")
  }

  @Test("NSPersistentStoreForceDestroyOption deletes a damaged store file that destroying refuses without it")
  func forceDestroy() throws {
    let folder = try TemporaryFolder()
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    for (name, type) in [("Broken.sqlite", NSPersistentStore.StoreType.sqlite), ("Broken.binary", .binary)] {
      let url = folder.appending(name)
      try Data("not a store, just bytes".utf8).write(to: url)
      #expect(throws: ObjectGraphError.self) { try coordinator.destroyPersistentStore(at: url, type: type) }
      #expect(FileManager.default.fileExists(atPath: url.path))
      try coordinator.destroyPersistentStore(at: url, type: type, options: [NSPersistentStoreForceDestroyOption: true])
      #expect(!FileManager.default.fileExists(atPath: url.path))
    }
  }

  @Test("the timeout, pool size, versioning and binary decoding options are checked for their types, and accepted")
  func checkedOptions() throws {
    let folder = try TemporaryFolder()
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let bad: [[AnyHashable: Any]] = [
      [NSPersistentStoreTimeoutOption: "soon"], [NSPersistentStoreTimeoutOption: -1.0],
      [NSPersistentStoreConnectionPoolMaxSizeKey: 0], [NSPersistentStoreConnectionPoolMaxSizeKey: "four"],
      [NSIgnorePersistentStoreVersioningOption: "yes"], [NSBinaryStoreSecureDecodingClasses: ["NSString"]],
      [NSBinaryStoreInsecureDecodingCompatibilityOption: "no"],
    ]
    for options in bad {
      let error = try #require(throws: ObjectGraphError.self) {
        try coordinator.addPersistentStore(type: .sqlite, at: folder.appending("O.sqlite"), options: options)
      }
      #expect(error.code == .persistentStoreOpen)
      #expect(options.keys.contains { error.message.contains("\($0)") }, "\(error.message)")
    }
    #expect(coordinator.persistentStores.isEmpty)
    let store = try coordinator.addPersistentStore(
      type: .sqlite, at: folder.appending("O.sqlite"),
      options: [
        NSPersistentStoreTimeoutOption: 2, NSPersistentStoreConnectionPoolMaxSizeKey: 4,
        NSIgnorePersistentStoreVersioningOption: true,
      ])
    #expect(store.storeOptions.busyTimeout == 2)
    let binary = try coordinator.addPersistentStore(
      type: .binary, at: folder.appending("O.binary"),
      options: [NSBinaryStoreSecureDecodingClasses: Set(["NSString"]), NSBinaryStoreInsecureDecodingCompatibilityOption: false])
    #expect(binary.isReadOnly == false)
  }

  @Test("a description's init(URL:) and timeout: the timeout reaches the store as its busy timeout")
  func descriptionTimeout() throws {
    let folder = try TemporaryFolder()
    let description = NSPersistentStoreDescription(URL: folder.appending("T.sqlite"))
    #expect(description.url == folder.appending("T.sqlite") && description.type == NSSQLiteStoreType)
    #expect(description.timeout == 10)
    description.timeout = 3.5
    #expect(description.timeout == 3.5)
    #expect(description.options[NSPersistentStoreTimeoutOption] as? NSNumber == 3.5)
    let container = NSPersistentContainer(name: "T", managedObjectModel: try Models.notes())
    container.persistentStoreDescriptions = [description]
    var failure: (any Error)?
    container.loadPersistentStores { _, error in failure = error }
    #expect(failure == nil)
    let store = try #require(container.persistentStoreCoordinator.persistentStores.first)
    #expect(store.storeOptions.busyTimeout == 3.5)
  }
}
