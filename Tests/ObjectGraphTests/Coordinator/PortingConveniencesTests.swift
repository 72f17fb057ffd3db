import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// The conveniences ported Core Data code calls: destroying and replacing store files, finding stores and
/// entities, the coordinator's own queue, models compared by content, the access and change pairs.
@Suite("Core Data conveniences", .temporaryFolders)
struct PortingConveniencesTests {
  private func store(with titles: [String], in folder: TemporaryFolder, named name: String) throws -> URL {
    let stack = try StoreStack(folder: folder)
    try stack.context.performAndWait {
      for title in titles { Note(context: stack.context).title = title }
      try stack.context.save()
    }
    let url = folder.appending(name)
    try stack.coordinator.destroyPersistentStore(at: url, type: .sqlite)
    try stack.coordinator.replacePersistentStore(at: url, withPersistentStoreFrom: stack.storeURL, type: .sqlite)
    return url
  }

  private func titles(at url: URL) throws -> [String] {
    try StoreStack(model: try Models.notes(), at: url).stored("Note", sortedBy: "title") { ($0 as? Note)?.title }.compactMap { $0 }
  }

  @Test("destroyPersistentStore removes a store's files (WAL included) and the store; a foreign file is refused and kept")
  func destroy() throws {
    let stack = try StoreStack()
    try stack.context.performAndWait {
      Note(context: stack.context).title = "gone soon"
      try stack.context.save()
    }
    #expect(stack.coordinator.persistentStore(for: stack.storeURL) != nil)
    #expect(FileManager.default.fileExists(atPath: stack.storeURL.path + "-wal"))
    try stack.coordinator.destroyPersistentStore(at: stack.storeURL, type: .sqlite)
    for file in NSPersistentStore.files(of: stack.storeURL) { #expect(!FileManager.default.fileExists(atPath: file.path)) }
    #expect(stack.coordinator.persistentStores.isEmpty)
    try stack.coordinator.destroyPersistentStore(at: stack.storeURL, type: .sqlite)  // nothing left: nothing to do

    let foreign = stack.storeURL.deletingLastPathComponent().appendingPathComponent("notes.txt")
    try Data("my notes".utf8).write(to: foreign)
    _ = expectCode(.persistentStoreInvalidType) { try stack.coordinator.destroyPersistentStore(at: foreign, type: .sqlite) }
    #expect(try Data(contentsOf: foreign) == Data("my notes".utf8))
    _ = expectCode(.persistentStoreInvalidType) { try stack.coordinator.destroyPersistentStore(at: foreign, type: .inMemory) }
  }

  @Test("replacePersistentStore copies a store over another, whole; a store in use or a foreign file is refused")
  func replace() throws {
    let folder = try TemporaryFolder()
    let backup = try store(with: ["a", "b", "c"], in: folder, named: "Backup.sqlite")
    let live = try store(with: ["old"], in: folder, named: "Live.sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    try coordinator.replacePersistentStore(at: live, withPersistentStoreFrom: backup, type: .sqlite)
    #expect(try titles(at: live) == ["a", "b", "c"])
    #expect(try titles(at: backup) == ["a", "b", "c"])

    try coordinator.addPersistentStore(type: .sqlite, at: live)
    _ = expectCode(.persistentStoreOperation) {
      try coordinator.replacePersistentStore(at: live, withPersistentStoreFrom: backup, type: .sqlite)
    }
    let foreign = folder.appending("photo.jpg")
    try Data([0xFF, 0xD8, 0xFF]).write(to: foreign)
    let fresh = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    _ = expectCode(.persistentStoreInvalidType) {
      try fresh.replacePersistentStore(at: backup, withPersistentStoreFrom: foreign, type: .sqlite)
    }
    _ = expectCode(.persistentStoreInvalidType) {
      try fresh.replacePersistentStore(at: foreign, withPersistentStoreFrom: backup, type: .sqlite)
    }
    #expect(try Data(contentsOf: foreign) == Data([0xFF, 0xD8, 0xFF]))
    #expect(try titles(at: backup) == ["a", "b", "c"])
  }

  @Test("The coordinator's perform and performAndWait run one at a time with contexts' requests")
  func coordinatorQueue() async throws {
    let stack = try StoreStack()
    let count = stack.coordinator.performAndWait {
      stack.coordinator.performAndWait { stack.coordinator.persistentStores.count }
    }
    #expect(count == 1)
    let ran = await withCheckedContinuation { continuation in
      stack.coordinator.perform { continuation.resume(returning: !Thread.isMainThread) }
    }
    #expect(ran)
  }

  @Test("Models are equal by content: two loads of one model, not a model and another")
  func modelEquality() throws {
    let first = try Models.notes()
    let second = try Models.notes()
    #expect(first == second && first.hashValue == second.hashValue)
    #expect(first != (try Models.allTypes()))
    func tiny(extraAttribute: Bool) throws -> NSManagedObjectModel {
      var properties: [NSPropertyDescription] = [.attribute(NSAttributeDescription(name: "title", type: .string))]
      if extraAttribute { properties.append(.attribute(NSAttributeDescription(name: "body", type: .string))) }
      return try NSManagedObjectModel(entities: [NSEntityDescription(name: "Note", properties: properties)])
    }
    #expect(try tiny(extraAttribute: false) == tiny(extraAttribute: false))
    #expect(try tiny(extraAttribute: false) != tiny(extraAttribute: true))
  }

  @Test("entity(forEntityName:in:) and insertNewObject(forEntityName:into:) find entities by name and make their class")
  func entityConveniences() throws {
    let stack = try StoreStack()
    stack.context.performAndWait {
      #expect(NSEntityDescription.entity(forEntityName: "Note", in: stack.context)?.name == "Note")
      #expect(NSEntityDescription.entity(forEntityName: "Nope", in: stack.context) == nil)
      let object = NSEntityDescription.insertNewObject(forEntityName: "Note", into: stack.context)
      #expect(object is Note && object.isInserted && object.managedObjectContext === stack.context)
    }
  }

  @Test(
    "insertNewObject(forEntityName:into:) with a name the model lacks, or an abstract entity, stops the program naming the entities (Core Data raises)",
    arguments: ["Nope", "Attachment"])
  func insertNewObjectMisuse(name: String) async throws {
    let folder = try TemporaryFolder()
    let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      [folder = folder as TemporaryFolder, name = name as String] in
      let stack = try StoreStack(folder: folder)
      stack.context.performAndWait { _ = NSEntityDescription.insertNewObject(forEntityName: name, into: stack.context) }
    }
    let said = String(decoding: stopped?.standardErrorContent ?? [], as: UTF8.self)
    if name == "Nope" {
      #expect(said.contains("has no entity named 'Nope'") && said.contains("Notebook"), "it printed: \(said)")
    } else {
      #expect(said.contains("entity Attachment is abstract"), "it printed: \(said)")
    }
  }

  @Test("willAccessValue and willChangeValue fire a fault, as Core Data's do")
  func accessPairs() throws {
    let stack = try StoreStack()
    try stack.context.performAndWait {
      Note(context: stack.context).title = "fault"
      try stack.context.save()
    }
    let reader = stack.freshContext()
    try reader.performAndWait {
      let notes = try reader.fetch(NSFetchRequest<Note>(entityName: "Note"))
      let note = try #require(notes.first)
      #expect(note.isFault)
      note.willAccessValue(forKey: "title")
      #expect(!note.isFault)
      note.didAccessValue(forKey: "title")
      reader.refresh(note, mergeChanges: false)
      #expect(note.isFault)
      note.willChangeValue(forKey: "title")
      #expect(!note.isFault)
      note.title = "changed"
      note.didChangeValue(forKey: "title")
      #expect(note.changedValues().keys.contains("title"))
    }
  }

  @Test("Properties Xcode generates in an extension port as computed properties over key-value access")
  func extensionProperties() throws {
    let entity = NSEntityDescription(
      name: "Memo", managedObjectClass: Memo.self, properties: [.attribute(NSAttributeDescription(name: "text", type: .string))])
    let context = try StoreStack(
      model: try NSManagedObjectModel(entities: [entity]), type: .inMemory, at: URL(fileURLWithPath: "/dev/null")
    ).context
    try context.performAndWait {
      let memo = Memo(context: context)
      memo.text = "hello"
      try context.save()
      #expect(try context.fetch(NSFetchRequest<Memo>(entityName: "Memo")).first?.text == "hello")
      #expect(memo.value(forKey: "text") as? String == "hello")
    }
  }

  @Test("metadataForPersistentStore on a missing file: Cocoa's file error 260, as Core Data reports it, naming the file")
  func metadataOfMissingFile() throws {
    let folder = try TemporaryFolder()
    let missing = folder.appending("Missing.sqlite")
    let error = expectCode(.fileReadNoSuchFile) {
      _ = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: missing)
    }
    #expect(error?.code == 260)
    #expect(error?.message.contains("“Missing.sqlite”") == true, "\(error?.message ?? "")")
    #expect(!FileManager.default.fileExists(atPath: missing.path))
  }

  /// A container that names its background contexts and gives them a merge policy, as Apple's samples do.
  final class NamingContainer: NSPersistentContainer, @unchecked Sendable {
    override func newBackgroundContext() -> NSManagedObjectContext {
      let context = super.newBackgroundContext()
      context.name = "background"
      context.transactionAuthor = "app"
      return context
    }
  }

  @Test(
    "A store description copies (NSCopying) into an independent one; newBackgroundContext() is overridable and performBackgroundTask uses the override"
  )
  func descriptionCopyAndBackgroundContext() throws {
    let folder = try TemporaryFolder()
    let original = NSPersistentStoreDescription(url: folder.appending("One.sqlite"))
    original.configuration = "Cloud"
    original.setValue("DELETE" as NSString, forPragmaNamed: "journal_mode")
    let copy = try #require(original.copy() as? NSPersistentStoreDescription)
    #expect(copy !== original)
    #expect(copy.url == original.url && copy.configuration == "Cloud" && copy.sqlitePragmas["journal_mode"] as? String == "DELETE")
    copy.url = folder.appending("Two.sqlite")
    copy.configuration = nil
    #expect(original.url == folder.appending("One.sqlite") && original.configuration == "Cloud")

    let entity = NSEntityDescription(name: "Memo", properties: [.attribute(NSAttributeDescription(name: "text", type: .string))])
    let container = NamingContainer(name: "Memos", managedObjectModel: try NSManagedObjectModel(entities: [entity]))
    container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: URL(fileURLWithPath: "/dev/null"))]
    container.loadPersistentStores { _, error in #expect(error == nil) }
    #expect(container.newBackgroundContext().name == "background")
    let done = DispatchSemaphore(value: 0)
    container.performBackgroundTask { context in
      #expect(context.name == "background" && context.transactionAuthor == "app")
      done.signal()
    }
    #expect(done.wait(timeout: .now() + 10) == .success)
  }
}

/// A class whose properties sit in an extension, as Xcode's `+CoreDataProperties.swift` puts them.
final class Memo: NSManagedObject {}

extension Memo {
  var text: String? {
    get { value(forKey: "text") as? String }
    set { setValue(newValue, forKey: "text") }
  }
}
