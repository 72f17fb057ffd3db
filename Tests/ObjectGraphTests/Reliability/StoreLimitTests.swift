import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// Stores at the edges: counters at the end of SQLite's 64-bit range or not integers at all, a disk that
/// fills while a store is made, what a killed migration leaves, and the messages of read-only opens that
/// cannot migrate.
@Suite("Store limits: 64-bit counters, counters edited by hand, full disks, killed migrations", .temporaryFolders)
struct StoreLimitTests {
  static func model() throws -> NSManagedObjectModel { try ReliabilityTests.noteModel() }

  /// Inserts `count` notes into the store at `url` in one save, with a coordinator of its own.
  static func insert(_ count: Int, into url: URL) throws {
    let stack = try StoreStack(model: try model(), at: url)
    defer { try? stack.close() }
    let context = stack.context
    try context.performAndWait {
      for index in 0..<count {
        NSManagedObject(
          entity: try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Note"]), insertInto: context
        )
        .setValue("note \(index)", forKey: "title")
      }
      try context.save()
    }
  }

  static func execute(_ sql: String, on url: URL) throws {
    let queue = try DatabaseQueue(path: url.path)
    try queue.write { try $0.execute(sql: sql) }
    try queue.close()
  }

  @Test("The last primary key of the 64-bit range is handed out (no overflow trap); the one after is a typed error, nothing written")
  func lastKey() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Store.sqlite")
    try Self.insert(1, into: url)
    try Self.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 9223372036854775806", on: url)
    try Self.insert(1, into: url)
    #expect(try rawRows(url, "SELECT MAX(Z_PK) FROM ZNOTE")[0][0] as Int64 == Int64.max)
    _ = expectCode(.persistentStoreSave) { try Self.insert(1, into: url) }
    #expect(try rawRows(url, "SELECT count(*) FROM ZNOTE")[0][0] as Int == 2)
  }

  @Test(
    "A Z_PRIMARYKEY.Z_MAX that is NULL, text, a blob or a fraction is repaired at a read-write open: inserts then go on past the last row",
    arguments: ["NULL", "'abc'", "x'0102'", "2.5"])
  func counterNotAnInteger(value: String) throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Store.sqlite")
    try Self.insert(3, into: url)
    try Self.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(value)", on: url)
    try Self.insert(2, into: url)
    #expect(try rawRows(url, "SELECT Z_PK FROM ZNOTE ORDER BY Z_PK").map { $0[0] as Int64 } == [1, 2, 3, 4, 5])
    #expect(try rawRows(url, "SELECT typeof(Z_MAX), Z_MAX FROM Z_PRIMARYKEY")[0][0] as String == "integer")
    #expect(try rawRows(url, "SELECT Z_MAX FROM Z_PRIMARYKEY")[0][0] as Int64 == 5)
  }

  @Test("A row's version (Z_OPT) at the end of the 64-bit range starts again at 1, never a REAL: every later save of the row succeeds")
  func versionAtTheEnd() throws {
    for start in ["9223372036854775807"] {
      let folder = try TemporaryFolder()
      let url = folder.appending("Store.sqlite")
      try Self.insert(1, into: url)
      try Self.execute("UPDATE ZNOTE SET Z_OPT = \(start)", on: url)
      let stack = try StoreStack(model: try Self.model(), at: url)
      let context = stack.context
      try context.performAndWait {
        let note = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).first)
        for title in ["one", "two", "three"] {
          note.setValue(title, forKey: "title")
          try context.save()
        }
      }
      try stack.close()
      #expect(
        try rawRows(url, "SELECT typeof(Z_OPT), Z_OPT, ZTITLE FROM ZNOTE").map { [$0[0] as String, "\($0[1] as Int64)", $0[2] as String] }
          == [["integer", "3", "three"]], "\(start)")
    }
  }

  @Test(
    "A disk that fills while a WAL store is made: a typed error (never SQLite's own), and a store that opens once there is room",
    .enabled(if: StoreFailureTests.canMount, "needs permission to mount a tmpfs (root with CAP_SYS_ADMIN), as CI has"))
  func fullDiskWhileCreating() throws {
    var refused = 0
    for kilobytes in stride(from: 8, through: 96, by: 4) {
      guard let (folder, unmount) = try StoreFailureTests.smallFileSystem(size: "\(kilobytes)k") else {
        Issue.record("could not mount a \(kilobytes) KB file system")
        return
      }
      defer { unmount() }
      let url = folder.appendingPathComponent("Store.sqlite")
      do {
        try Self.insert(1, into: url)
      } catch let error as ObjectGraphError {
        refused += 1
        #expect(error.message.contains("full") || error.message.contains("disk"), "\(kilobytes) KB: \(error.message)")
      } catch {
        Issue.record("\(kilobytes) KB: not an ObjectGraphError: \(type(of: error)) \(error)")
      }
    }
    #expect(refused > 0, "some of the disks were too small")
  }

  @Test(
    "What a killed migration on open left beside the store (.<store>.migrating-<UUID>.sqlite and its side files) is removed by the next one",
    .needsFixtures)
  func killedMigrationLeftovers() throws {
    let folder = try TemporaryFolder()
    let storeURL = folder.appending("Cars.sqlite")
    try MappingModelFileTests.writeVersion2Store(at: storeURL)
    let stale = (0..<3).map { _ in ".Cars.sqlite.migrating-\(UUID().uuidString).sqlite" }
    for name in stale {
      for suffix in ["", "-wal", "-shm"] {
        #expect(FileManager.default.createFile(atPath: folder.appending(name).path + suffix, contents: Data("old".utf8)))
      }
    }
    let unrelated = folder.appending(".Other.sqlite.migrating-\(UUID().uuidString).sqlite")
    #expect(FileManager.default.createFile(atPath: unrelated.path, contents: Data("theirs".utf8)))
    let v3 = try CompiledModelTests.versionsOfMomd()[2]
    var options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: false]
    options[ObjectGraphMappingModelMigrationOption] = MappingModelMigration.mappingModels(
      in: [try MappingModelFileTests.mappingFolder()], policies: MappingModelOnOpenTests.policies)
    _ = try MigrationTests.open(v3, at: storeURL, options: options)
    let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains(".migrating-") }
    #expect(left == [unrelated.lastPathComponent])
  }

  @Test(
    "A read-only open of a store that needs a migration says what stops it: its model not found (134130) is not told to open read-write")
  func readOnlyMigrationMessages() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Store.sqlite")
    try Self.insert(1, into: url)
    // The store without the copy of its model it keeps: the model that made it is nowhere to be found.
    try Self.execute("DELETE FROM Z_MODELCACHE", on: url)
    let other = try NSManagedObjectModel(entities: [
      NSEntityDescription(name: "Note", properties: [.attribute(NSAttributeDescription(name: "heading", type: .string))])
    ])
    for readOnly in [true, false] {
      let error = expectCode(.migrationMissingSourceModel) {
        _ = try StoreStack(
          model: other, at: url,
          options: [
            NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
            NSReadOnlyPersistentStoreOption: readOnly,
          ])
      }
      #expect(error?.message.contains("read-write") == false, "\(error?.message ?? "")")
    }
    // With the source model given, a read-only open is told to migrate once read-write.
    let error = expectCode(.persistentStoreIncompatibleVersionHash) {
      _ = try StoreStack(
        model: other, at: url,
        options: [
          NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
          NSReadOnlyPersistentStoreOption: true, ObjectGraphMigrationSourceModelsOption: [try Self.model()],
        ])
    }
    #expect(error?.message.contains("Open it read-write once") == true, "\(error?.message ?? "")")
  }
}
