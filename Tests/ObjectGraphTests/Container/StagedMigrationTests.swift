import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// Staged migration (`NSStagedMigrationManager`) on real SQLite files, with three model versions built in
/// code: v1 `Person.name`; v2 adds `firstName` and `lastName` (a lightweight stage); v3 drops `name` and adds
/// `initials` (a custom stage whose will-handler splits the names at v2 and whose did-handler fills the
/// initials at v3).
@Suite("Staged migration: NSStagedMigrationManager", .temporaryFolders)
struct StagedMigrationTests {
  static func attribute(_ name: String) -> NSPropertyDescription {
    .attribute(NSAttributeDescription(name: name, type: .init(rawValue: .stringAttributeType), isOptional: true, defaultValue: nil))
  }

  static func model(_ names: [String]) throws -> NSManagedObjectModel {
    try NSManagedObjectModel(entities: [NSEntityDescription(name: "Person", properties: names.map(attribute))])
  }

  static func v1() throws -> NSManagedObjectModel { try model(["name"]) }
  static func v2() throws -> NSManagedObjectModel { try model(["name", "firstName", "lastName"]) }
  static func v3() throws -> NSManagedObjectModel { try model(["firstName", "lastName", "initials"]) }

  static let names = ["Ada Lovelace", "Alan Turing", "Grace Hopper"]

  /// Writes a v1 store (journal mode DELETE: the store is one file, to compare byte for byte) with three people.
  static func writeV1Store(at url: URL, journalMode: String? = "DELETE") throws {
    let stack = try StoreStack(model: try v1(), at: url, journalMode: journalMode)
    try stack.context.performAndWait {
      for name in names {
        let person = NSManagedObject(
          entity: stack.model.entitiesByName["Person"] ?? NSEntityDescription(name: "?", properties: []), insertInto: stack.context)
        person.setValue(name, forKey: "name")
      }
      try stack.context.save()
    }
    try stack.close()
  }

  /// What the handlers saw, in order: each handler's name and the checksum of the container's model.
  final class Calls: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func record(_ entry: String) { lock.withLock { list.append(entry) } }
    var entries: [String] { lock.withLock { list } }
  }

  /// The v1 → v2 lightweight stage and the v2 → v3 custom stage; `failDid` makes the did-handler throw after
  /// it has saved.
  static func manager(v1: NSManagedObjectModel, v2: NSManagedObjectModel, v3: NSManagedObjectModel, calls: Calls, failDid: Bool = false)
    -> NSStagedMigrationManager
  {
    let lightweight = NSLightweightMigrationStage([v1.versionChecksum, v2.versionChecksum])
    lightweight.label = "v1 to v2: adds firstName and lastName"
    let custom = NSCustomMigrationStage(
      migratingFrom: NSManagedObjectModelReference(model: v2, versionChecksum: v2.versionChecksum),
      to: NSManagedObjectModelReference(model: v3, versionChecksum: v3.versionChecksum))
    custom.label = "v2 to v3: splits name, drops it, adds initials"
    custom.willMigrateHandler = { manager, _ in
      let container = try #require(manager.container)
      calls.record("will \(container.managedObjectModel.versionChecksum)")
      let context = container.newBackgroundContext()
      try context.performAndWait {
        for person in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")) {
          let parts = (person.value(forKey: "name") as? String ?? "").split(separator: " ", maxSplits: 1).map(String.init)
          person.setValue(parts.first, forKey: "firstName")
          person.setValue(parts.count > 1 ? parts[1] : nil, forKey: "lastName")
        }
        try context.save()
      }
    }
    custom.didMigrateHandler = { manager, _ in
      let container = try #require(manager.container)
      calls.record("did \(container.managedObjectModel.versionChecksum)")
      let context = container.newBackgroundContext()
      try context.performAndWait {
        for person in try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")) {
          let first = (person.value(forKey: "firstName") as? String)?.first.map(String.init) ?? ""
          let last = (person.value(forKey: "lastName") as? String)?.first.map(String.init) ?? ""
          person.setValue(first + last, forKey: "initials")
        }
        try context.save()
      }
      if failDid { throw ObjectGraphError(.validationMultipleErrors, "the did-handler refuses") }
    }
    return NSStagedMigrationManager([lightweight, custom])
  }

  static func people(_ context: NSManagedObjectContext) throws -> [[String: String]] {
    try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Person")
      request.sortDescriptors = [NSSortDescriptor(key: "firstName", ascending: true)]
      return try context.fetch(request).map { person in
        var values: [String: String] = [:]
        for key in ["firstName", "lastName", "initials"] { values[key] = person.value(forKey: key) as? String }
        return values
      }
    }
  }

  static func leftovers(beside url: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).filter { $0.contains("migrating") }
  }

  @Test("A model's versionChecksum is the checksum its stores record, and differs between versions")
  func versionChecksumMatchesTheStore() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeV1Store(at: url)
    let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
    #expect(metadata[NSPersistentStoreModelVersionChecksumKey] as? String == (try Self.v1()).versionChecksum)
    #expect(try Self.v1().versionChecksum == Self.v1().versionChecksum)
    #expect(Set([try Self.v1().versionChecksum, try Self.v2().versionChecksum, try Self.v3().versionChecksum]).count == 3)
  }

  @Test("A v1 store goes to v3 through a lightweight stage and a custom stage whose handlers rewrite the data")
  func lightweightThenCustom() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeV1Store(at: url)
    let (v1, v2, v3) = (try Self.v1(), try Self.v2(), try Self.v3())
    let calls = Calls()
    let manager = Self.manager(v1: v1, v2: v2, v3: v3, calls: calls)
    let stack = try StoreStack(model: v3, at: url, options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
    #expect(calls.entries == ["will \(v2.versionChecksum)", "did \(v3.versionChecksum)"])
    #expect(manager.container == nil)
    #expect(
      try Self.people(stack.context) == [
        ["firstName": "Ada", "lastName": "Lovelace", "initials": "AL"],
        ["firstName": "Alan", "lastName": "Turing", "initials": "AT"],
        ["firstName": "Grace", "lastName": "Hopper", "initials": "GH"],
      ])
    try stack.close()
    let columns = Set(try rawRows(url, "PRAGMA table_info(ZPERSON)").map { $0["name"] as String })
    #expect(!columns.contains("ZNAME"))
    #expect(columns.isSuperset(of: ["ZFIRSTNAME", "ZLASTNAME", "ZINITIALS"]))
    #expect(try Self.leftovers(beside: url).isEmpty)
  }

  @Test("A store description carries the manager; the container loads the migrated store (a WAL store)")
  func throughAContainer() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeV1Store(at: url, journalMode: nil)
    let (v1, v2, v3) = (try Self.v1(), try Self.v2(), try Self.v3())
    let calls = Calls()
    let container = NSPersistentContainer(name: "People", managedObjectModel: v3)
    let description = NSPersistentStoreDescription(url: url)
    description.setOption(Self.manager(v1: v1, v2: v2, v3: v3, calls: calls), forKey: NSPersistentStoreStagedMigrationManagerOptionKey)
    container.persistentStoreDescriptions = [description]
    nonisolated(unsafe) var failure: (any Error)?
    container.loadPersistentStores { _, error in failure = error }
    #expect(failure == nil)
    #expect(calls.entries.count == 2)
    let context = container.newBackgroundContext()
    #expect(try Self.people(context).map { $0["initials"] } == ["AL", "AT", "GH"])
  }

  @Test("A handler that throws fails the load with its error, and the store is left byte for byte as it was")
  func failingHandlerLeavesTheStore() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeV1Store(at: url)
    let before = try Data(contentsOf: url)
    let (v1, v2, v3) = (try Self.v1(), try Self.v2(), try Self.v3())
    let calls = Calls()
    let manager = Self.manager(v1: v1, v2: v2, v3: v3, calls: calls, failDid: true)
    let error = #expect(throws: ObjectGraphError.self) {
      _ = try StoreStack(model: v3, at: url, options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
    }
    #expect(error?.message == "the did-handler refuses")
    // Both handlers ran (the did-handler after two migrations and its own save, all on the copy).
    #expect(calls.entries.count == 2)
    #expect(try Data(contentsOf: url) == before)
    #expect(try Self.leftovers(beside: url).isEmpty)
    // The store still opens at v1 with its names.
    let stack = try StoreStack(model: v1, at: url, options: nil)
    let names = try stack.context.performAndWait {
      try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).compactMap { $0.value(forKey: "name") as? String }
    }
    #expect(names.sorted() == Self.names)
    try stack.close()
  }

  @Test("Stages that do not reach the current model fail the load before anything runs, naming where they stop")
  func stagesThatDoNotReach() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeV1Store(at: url)
    let before = try Data(contentsOf: url)
    let (v1, v2, v3) = (try Self.v1(), try Self.v2(), try Self.v3())
    let manager = NSStagedMigrationManager([NSLightweightMigrationStage([v1.versionChecksum, v2.versionChecksum])])
    // v2 is not among the models the engine knows: its checksum names no model.
    let unknown = expectCode(.init(rawValue: NSManagedObjectModelReferenceNotFoundError)) {
      _ = try StoreStack(model: v3, at: url, options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
    }
    #expect(unknown?.message.contains("NSLightweightMigrationStage (no label) migrates to the model version with checksum") == true)
    let error = expectCode(.migration) {
      _ = try StoreStack(
        model: v3, at: url,
        options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager, ObjectGraphMigrationSourceModelsOption: [v2]])
    }
    #expect(error?.message.contains("do not lead to the model the store is added with") == true)
    #expect(error?.message.contains("they stop at the model version with checksum \(v2.versionChecksum)") == true)
    #expect(try Data(contentsOf: url) == before)
  }

  @Test("A reference whose checksum is not its model's fails the load with NSManagedObjectModelReferenceNotFoundError")
  func wrongChecksum() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeV1Store(at: url)
    let (v1, v3) = (try Self.v1(), try Self.v3())
    let reference = NSManagedObjectModelReference(model: v3, versionChecksum: "not-a-checksum")
    #expect(reference.resolvedModel.entities.isEmpty)
    let stage = NSCustomMigrationStage(
      migratingFrom: NSManagedObjectModelReference(model: v1, versionChecksum: v1.versionChecksum), to: reference)
    let manager = NSStagedMigrationManager([stage])
    let error = expectCode(.init(rawValue: NSManagedObjectModelReferenceNotFoundError)) {
      _ = try StoreStack(model: v3, at: url, options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
    }
    #expect(error?.message.contains("not-a-checksum") == true)
  }

  @Test("A custom stage whose change cannot be inferred fails with 134140 naming the stage; the store is left as it was")
  func customStepNotInferable() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeV1Store(at: url)
    let before = try Data(contentsOf: url)
    let v1 = try Self.v1()
    // `name` turns from a string into an integer: no lightweight migration infers that.
    let numbered = try NSManagedObjectModel(entities: [
      NSEntityDescription(
        name: "Person",
        properties: [
          .attribute(
            NSAttributeDescription(name: "name", type: .init(rawValue: .integer64AttributeType), isOptional: true, defaultValue: nil))
        ])
    ])
    let stage = NSCustomMigrationStage(
      migratingFrom: NSManagedObjectModelReference(model: v1, versionChecksum: v1.versionChecksum),
      to: NSManagedObjectModelReference(model: numbered, versionChecksum: numbered.versionChecksum))
    stage.label = "names become numbers"
    let manager = NSStagedMigrationManager([stage])
    let error = expectCode(.migrationMissingMappingModel) {
      _ = try StoreStack(model: numbered, at: url, options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
    }
    #expect(error?.message.contains("the inferred migration to the next model of stage 'names become numbers' failed") == true)
    #expect(try Data(contentsOf: url) == before)
  }

  @Test("A store already at the current model runs no stage and no handler")
  func currentStoreRunsNothing() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let (v1, v2, v3) = (try Self.v1(), try Self.v2(), try Self.v3())
    try StoreStack(model: v3, at: url).close()
    let calls = Calls()
    let manager = Self.manager(v1: v1, v2: v2, v3: v3, calls: calls)
    let stack = try StoreStack(model: v3, at: url, options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager])
    #expect(calls.entries.isEmpty)
    try stack.close()
  }

  @Test("Two coordinators add the same v1 store at once on two queues: the handlers run once, both get v3")
  func concurrentAdds() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeV1Store(at: url)
    let (v1, v2, v3) = (try Self.v1(), try Self.v2(), try Self.v3())
    let calls = Calls()
    let manager = Self.manager(v1: v1, v2: v2, v3: v3, calls: calls)
    #expect(Self.openTwiceAtOnce(url, model: v3, manager: manager) == [#"["AL", "AT", "GH"]"#, #"["AL", "AT", "GH"]"#])
    #expect(calls.entries.count == 2)
  }

  /// Opens the store at `url` with two coordinators at once (each on its own thread), migrating with `manager`
  /// (and the busy `timeout` given, if any), and reads its people's initials through each: what each read, or
  /// the error it met.
  private static func openTwiceAtOnce(
    _ url: URL, model: NSManagedObjectModel, manager: NSStagedMigrationManager, timeout: Double? = nil
  ) -> [String] {
    let results = Calls()
    DispatchQueue.concurrentPerform(iterations: 2) { _ in
      do {
        var options: [AnyHashable: Any] = [NSPersistentStoreStagedMigrationManagerOptionKey: manager]
        if let timeout { options[NSPersistentStoreTimeoutOption] = timeout }
        let stack = try StoreStack(model: model, at: url, options: options)
        results.record("\(try Self.people(stack.context).compactMap { $0["initials"] })")
        try stack.close()
      } catch {
        results.record("error: \(error)")
      }
    }
    return results.entries
  }

  @Test(
    "A second coordinator waits for a migration that takes longer than the busy timeout, in either journal mode",
    arguments: ["DELETE", "WAL"])
  func concurrentAddsOutlastTheBusyTimeout(journalMode: String) throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeV1Store(at: url, journalMode: journalMode)
    let (v1, v2, v3) = (try Self.v1(), try Self.v2(), try Self.v3())
    let calls = Calls()
    let manager = Self.manager(v1: v1, v2: v2, v3: v3, calls: calls)
    // The custom stage's will-handler outlasts the 0.5 s busy timeout the coordinators are given.
    if let custom = manager.stages.compactMap({ $0 as? NSCustomMigrationStage }).first, let will = custom.willMigrateHandler {
      custom.willMigrateHandler = { manager, stage in
        Thread.sleep(forTimeInterval: 1.5)
        try will(manager, stage)
      }
    }
    #expect(
      Self.openTwiceAtOnce(url, model: v3, manager: manager, timeout: 0.5) == [#"["AL", "AT", "GH"]"#, #"["AL", "AT", "GH"]"#])
    #expect(calls.entries.count == 2)
  }

  @Test("Deferred: the stages' lightweight cleanup waits in the metadata; the store works and reopens; finishing drops it")
  func deferredCleanup() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeV1Store(at: url)
    let (v1, v2, v3) = (try Self.v1(), try Self.v2(), try Self.v3())
    let calls = Calls()
    let manager = Self.manager(v1: v1, v2: v2, v3: v3, calls: calls)
    let stack = try StoreStack(
      model: v3, at: url,
      options: [NSPersistentStoreStagedMigrationManagerOptionKey: manager, NSPersistentStoreDeferredLightweightMigrationOptionKey: true])
    #expect(calls.entries == ["will \(v2.versionChecksum)", "did \(v3.versionChecksum)"])
    // The custom stage's v2 → v3 step dropped `name`: its column waits, listed in the metadata.
    let metadata = stack.coordinator.metadata(for: stack.store)
    #expect(metadata[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool == true)
    #expect((metadata[ObjectGraphDeferredMigrationTasksKey] as? [String] ?? []).contains("ALTER TABLE ZPERSON DROP COLUMN ZNAME"))
    #expect(try rawRows(url, "PRAGMA table_info(ZPERSON)").contains { $0["name"] as String == "ZNAME" })
    // The store reads and writes meanwhile.
    #expect(try Self.people(stack.context).compactMap { $0["initials"] } == ["AL", "AT", "GH"])
    try stack.context.performAndWait {
      let person = NSManagedObject(entity: stack.entity("Person"), insertInto: stack.context)
      person.setValue("Kay", forKey: "firstName")
      person.setValue("KX", forKey: "initials")
      try stack.context.save()
    }
    // A second coordinator opens it while the first was never closed (as after a crash): still deferred.
    let again = try StoreStack(model: v3, at: url, options: StoreStack.migratingOptions)
    #expect(again.coordinator.metadata(for: again.store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool == true)
    #expect(try Self.people(again.context).compactMap { $0["initials"] } == ["AL", "AT", "GH", "KX"])
    try again.coordinator.finishDeferredLightweightMigration()
    #expect(try !rawRows(url, "PRAGMA table_info(ZPERSON)").contains { $0["name"] as String == "ZNAME" })
    #expect(again.coordinator.metadata(for: again.store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] == nil)
    #expect(try MigrationTests.layout(url) == (try MigrationTests.freshLayout(v3)))
    #expect(try Self.people(stack.freshContext()).compactMap { $0["initials"] } == ["AL", "AT", "GH", "KX"])
    try again.close()
    try stack.close()
    #expect(try Self.leftovers(beside: url).isEmpty)
  }

  @Test("Model references find a model version in a file by its checksum")
  func referenceFromFile() throws {
    let folder = try TemporaryFolder()
    let v2 = try Self.v2()
    let url = folder.appending("People.xcdatamodel")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    try XcodeModelWriter.contents(of: v2).write(to: url.appendingPathComponent("contents"))
    let reference = NSManagedObjectModelReference(fileURL: url, versionChecksum: v2.versionChecksum)
    #expect(reference.resolvedModel.versionChecksum == v2.versionChecksum)
    let missing = NSManagedObjectModelReference(fileURL: folder.appending("None.momd"), versionChecksum: v2.versionChecksum)
    #expect(missing.resolvedModel.entities.isEmpty)
  }
}
