import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

@Suite("Bad input: errors that explain and files left untouched", .temporaryFolders)
struct StoreFailureTests {
  private func bytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

  private func siblings(_ url: URL) -> Set<String> {
    Set((try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? [])
  }

  @Test("A file that is not a SQLite database is refused and left untouched")
  func notSQLite() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("notes.sqlite")
    let content = Data(String(repeating: "This is a text file, not a database.\n", count: 200).utf8)
    try content.write(to: url)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let error = expectCode(.persistentStoreInvalidType) { try coordinator.addPersistentStore(type: .sqlite, at: url) }
    #expect(error?.message.contains("not a SQLite database") == true)
    #expect(error?.message.contains(url.path) == true)
    #expect(try bytes(url) == content)
    #expect(siblings(url) == ["notes.sqlite"])
    #expect(coordinator.persistentStores.isEmpty)
  }

  @Test("A SQLite database that is not a store is refused and left untouched")
  func foreignSQLite() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("other.sqlite")
    try rawCreate(url, "CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('Ada');")
    let before = try bytes(url)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let error = expectCode(.persistentStoreInvalidType) { try coordinator.addPersistentStore(type: .sqlite, at: url) }
    #expect(error?.message.contains("not an ObjectGraph (Core Data) store") == true)
    #expect(try bytes(url) == before)
    #expect(siblings(url) == ["other.sqlite"])
  }

  @Test("A store made with another model, migration off, is error 134100, naming what differs, and left untouched")
  func incompatibleModel() throws {
    let stack = try StoreStack()
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "keep me"
      try stack.context.save()
    }
    try stack.coordinator.remove(stack.coordinator.persistentStores[0])
    let before = try bytes(stack.storeURL)
    let other = try NSManagedObjectModel(entities: [
      NSEntityDescription(name: "Note", properties: [.attribute(NSAttributeDescription(name: "text", type: .string))])
    ])
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: other)
    let error = expectCode(.persistentStoreIncompatibleVersionHash) {
      try coordinator.addPersistentStore(
        type: .sqlite, at: stack.storeURL,
        options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
    }
    #expect(error?.message.contains("Note changed") == true)
    #expect(error?.message.contains("Notebook is in the store but not in the model") == true)
    #expect(try bytes(stack.storeURL) == before)
    // The original model still opens it, data intact.
    let (_, context) = try stack.reopened()
    let titles = try context.performAndWait { try context.fetch(NSFetchRequest<Note>(entityName: "Note")).map(\.title) }
    #expect(titles == ["keep me"])
  }

  @Test("A store in a folder that does not exist is error 134080 saying so")
  func missingFolder() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("nope/deeper/Store.sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let error = expectCode(.persistentStoreOpen) { try coordinator.addPersistentStore(type: .sqlite, at: url) }
    #expect(error?.message.contains("does not exist") == true)
    #expect(!FileManager.default.fileExists(atPath: folder.appending("nope").path))
  }

  @Test("A store in a folder that cannot be written is error 134080 saying so")
  func unwritableFolder() throws {
    guard getuid() != 0 else {
      // root may write anywhere; check the message path with a read-only file system instead.
      let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
      let error = expectCode(.persistentStoreOpen) {
        try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: "/proc/objectgraph-test/Store.sqlite"))
      }
      #expect(error != nil)
      return
    }
    // A read-only folder: the test's scope makes it writable again to remove it.
    let folder = try TemporaryFolder()
    try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.url.path)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    let error = expectCode(.persistentStoreOpen) { try coordinator.addPersistentStore(type: .sqlite, at: folder.appending("Store.sqlite")) }
    #expect(error?.message.contains("not writable") == true)
  }

  @Test("A read-only store refuses saves with a clear error")
  func readOnly() throws {
    let stack = try StoreStack()
    try stack.coordinator.remove(stack.coordinator.persistentStores[0])
    let context = try StoreStack(
      model: stack.model, at: stack.storeURL,
      options: [NSReadOnlyPersistentStoreOption: true]
    ).context
    context.performAndWait {
      let note = Note(context: context)
      note.title = "x"
      let error = expectCode(.persistentStoreSave) { try context.save() }
      #expect(error?.message.contains("read-only") == true)
    }
  }

  /// A read-only file system for the next test: a small tmpfs, remounted read-only, where even root
  /// cannot write. `nil` where this process may not mount (not root, or no CAP_SYS_ADMIN).
  static func readOnlyFileSystem(holding prepare: (URL) throws -> Void) throws -> (folder: URL, unmount: () -> Void)? {
    guard let (folder, unmount) = try smallFileSystem(size: "4m") else { return nil }
    try prepare(folder)
    guard mount(["-o", "remount,ro", folder.path]) else {
      unmount()
      return nil
    }
    return (folder, unmount)
  }

  /// A tmpfs of `size` (as `mount` takes it: "4m", "48k") mounted on a new folder, and how to unmount it;
  /// `nil` where this process may not mount. A small one is a disk that fills up.
  static func smallFileSystem(size: String) throws -> (folder: URL, unmount: () -> Void)? {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-fs-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let unmount = {
      _ = try? ProcessOutput.run(URL(fileURLWithPath: "/usr/bin/env"), ["umount", folder.path])
      try? FileManager.default.removeItem(at: folder)
    }
    guard mount(["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", folder.path]) else {
      try? FileManager.default.removeItem(at: folder)
      return nil
    }
    return (folder, unmount)
  }

  private static func mount(_ arguments: [String]) -> Bool {
    (try? ProcessOutput.run(URL(fileURLWithPath: "/usr/bin/env"), ["mount"] + arguments).status) == 0
  }

  static let canMount: Bool = {
    guard let (_, unmount) = try? readOnlyFileSystem(holding: { _ in }) else { return false }
    unmount()
    return true
  }()

  @Test(
    "A store on a read-only file system: a clear error at open or at save, never a crash, and the file left as it was",
    .enabled(if: canMount, "needs permission to mount a tmpfs (root with CAP_SYS_ADMIN), as CI has"))
  func readOnlyFileSystem() throws {
    let model = try Models.notes()
    guard
      let (folder, unmount) = try Self.readOnlyFileSystem(holding: { folder in
        let url = folder.appendingPathComponent("Store.sqlite")
        let stack = try StoreStack(
          model: model, at: url,
          options: [
            NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
            NSSQLitePragmasOption: ["journal_mode": "DELETE"],
          ])
        let context = stack.context
        try context.performAndWait {
          let note = Note(context: context)
          note.title = "kept"
          try context.save()
        }
        try stack.close()
      })
    else {
      Issue.record("could not mount the read-only file system")
      return
    }
    defer { unmount() }
    let url = folder.appendingPathComponent("Store.sqlite")
    let before = try Data(contentsOf: url)
    for pragmas in [["journal_mode": "DELETE"], [:]] {
      let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
      do {
        try coordinator.addPersistentStore(
          type: .sqlite, at: url,
          options: [
            NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
            NSSQLitePragmasOption: pragmas,
          ])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let error = context.performAndWait {
          let note = Note(context: context)
          note.title = "new"
          return expectCode(.persistentStoreSave) { try context.save() }
        }
        #expect(error?.sqlitePrimaryResultCode == 8, "SQLITE_READONLY: \(String(describing: error))")
        #expect(error?.message.contains("cannot be written (a read-only file system, or permissions)") == true)
        print("read-only file system, \(pragmas): opened; the save said: \(error?.message ?? "nothing")")
      } catch let error as ObjectGraphError {
        // Refused at open: the message must say why.
        #expect(error.message.contains("cannot be written (a read-only file system, or permissions)"), "\(error.message)")
        print("read-only file system, \(pragmas): refused at open: \(error.message)")
      }
      #expect(try Data(contentsOf: url) == before)
    }
    // Reading needs no writing: a read-only open works and finds the note.
    let context = try StoreStack(
      model: model, at: url,
      options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        NSSQLitePragmasOption: ["journal_mode": "DELETE"], NSReadOnlyPersistentStoreOption: true,
      ]
    )
    .context
    #expect(try context.performAndWait { try context.fetch(NSFetchRequest<Note>(entityName: "Note")).map(\.title) } == ["kept"])
  }

  @Test(
    "A WAL store on a read-only file system opens with [NSReadOnlyPersistentStoreOption: true] and reads every row, leaving no file",
    .enabled(if: canMount, "needs permission to mount a tmpfs (root with CAP_SYS_ADMIN), as CI has"))
  func readOnlyWALStore() throws {
    let model = try Models.notes()
    guard
      let (folder, unmount) = try Self.readOnlyFileSystem(holding: { folder in
        let stack = try StoreStack(model: model, at: folder.appendingPathComponent("Store.sqlite"))  // WAL
        let context = stack.context
        try context.performAndWait {
          for title in ["one", "two"] {
            let note = Note(context: context)
            note.title = title
            try context.save()
          }
        }
        try stack.close()  // the last connection: the log folded in
      })
    else {
      Issue.record("could not mount the read-only file system")
      return
    }
    defer { unmount() }
    let url = folder.appendingPathComponent("Store.sqlite")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["Store.sqlite"])
    let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
    #expect(metadata[NSStoreTypeKey] as? String == "SQLite")
    let reader = try StoreStack(
      model: model, at: url,
      options: [NSReadOnlyPersistentStoreOption: true])
    let context = reader.context
    #expect(
      try context.performAndWait { try context.fetch(NSFetchRequest<Note>(entityName: "Note")).compactMap(\.title).sorted() } == [
        "one", "two",
      ])
    try reader.close()
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["Store.sqlite"])
  }

  @Test("SQLite pragmas from the options are applied")
  func pragmas() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Store.sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    try coordinator.addPersistentStore(
      type: .sqlite, at: url,
      options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        NSSQLitePragmasOption: ["journal_mode": "DELETE"],
      ])
    #expect(try rawRows(url, "PRAGMA journal_mode")[0][0] as String == "delete")
    let wal = folder.appending("Wal.sqlite")
    try coordinator.addPersistentStore(type: .sqlite, at: wal)
    #expect(try rawRows(wal, "PRAGMA journal_mode")[0][0] as String == "wal")
  }

  @Test("Fetching or saving without a store is a clear error")
  func noStore() throws {
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.performAndWait {
      let error = expectCode(.noPersistentStore) { _ = try context.fetch(NSFetchRequest<Note>(entityName: "Note")) }
      #expect(error?.message.contains("persistentStoreCoordinator") == true)
    }
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    context.persistentStoreCoordinator = coordinator
    context.performAndWait {
      _ = expectCode(.noPersistentStore) { _ = try context.fetch(NSFetchRequest<Note>(entityName: "Note")) }
      let note = Note(context: context)
      note.title = "t"
      _ = expectCode(.noPersistentStore) { try context.save() }
    }
  }

  @Test("A model whose relationship points nowhere is error modelInvalid naming it")
  func invalidModel() throws {
    let error = expectCode(.modelInvalid) {
      _ = try NSManagedObjectModel(entities: [
        NSEntityDescription(name: "A", properties: [.relationship(NSRelationshipDescription(name: "b", destination: "B", inverse: nil))])
      ])
    }
    #expect(error?.message.contains("A.b") == true)
    _ = expectCode(.modelInvalid) {
      _ = try NSManagedObjectModel(entities: [
        NSEntityDescription(name: "A", properties: []), NSEntityDescription(name: "A", properties: []),
      ])
    }
  }

  private func rawCreate(_ url: URL, _ sql: String) throws {
    let queue = try DatabaseQueue(path: url.path)
    try queue.write { try $0.execute(sql: sql) }
    try queue.close()
  }
}
