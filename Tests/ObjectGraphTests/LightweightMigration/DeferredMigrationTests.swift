import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// Deferred lightweight migration (`NSPersistentStoreDeferredLightweightMigrationOptionKey`): the cleanup a
/// migration may leave (dropping a removed attribute's column, a removed entity's table, old indexes; creating
/// non-unique indexes) is recorded in the metadata, the store is fully usable meanwhile, and
/// `finishDeferredLightweightMigration()` / `finishDeferredLightweightMigrationTask()` run it.
@Suite("Migration: deferred lightweight migration", .temporaryFolders)
struct DeferredMigrationTests {
  typealias M = MigrationTests

  /// Version 1 without `Note.body`, without `Tag` (and `Note.tags`), with `Notebook.pinned` ↔ `Note.pinnedIn`
  /// (a new to-one, whose index is new).
  static func version2() throws -> NSManagedObjectModel {
    try NSManagedObjectModel(entities: [
      M.entity(
        "Notebook",
        [
          M.attribute("name"), M.relationship("notes", to: "Note", inverse: "notebook", toMany: true),
          M.relationship("pinned", to: "Note", inverse: "pinnedIn", toMany: true),
        ]),
      M.entity(
        "Note",
        [
          M.attribute("title", optional: false, default: ""), M.attribute("rating", .integer64AttributeType),
          M.relationship("notebook", to: "Notebook", inverse: "notes"), M.relationship("pinnedIn", to: "Notebook", inverse: "pinned"),
        ]),
    ])
  }

  static func options(deferred: Bool, sources: [NSManagedObjectModel]) -> [AnyHashable: Any] {
    var options = M.migrationOptions(sourceModels: sources)
    if deferred { options[NSPersistentStoreDeferredLightweightMigrationOptionKey] = true }
    return options
  }

  static func tasks(_ stack: StoreStack) -> [String] {
    stack.coordinator.metadata(for: stack.store)[ObjectGraphDeferredMigrationTasksKey] as? [String] ?? []
  }

  static func pending(_ stack: StoreStack) -> Bool {
    stack.coordinator.metadata(for: stack.store)[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool == true
  }

  /// Saves a new note titled `title` in the first notebook and returns the notes' count.
  static func addNote(_ title: String, in stack: StoreStack) throws -> Int {
    try stack.context.performAndWait {
      let notebook = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Notebook")).first
      let note = NSManagedObject(entity: stack.entity("Note"), insertInto: stack.context)
      note.setValue(title, forKey: "title")
      note.setValue(notebook, forKey: "notebook")
      note.setValue(notebook, forKey: "pinnedIn")
      try stack.context.save()
      return try stack.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note"))
    }
  }

  @Test("the cleanup waits, recorded in the metadata; the store is usable; finishing runs it and clears the key")
  func deferredThenFinished() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try M.writeStore(try M.version1(), at: url)
    let version2 = try Self.version2()
    let stack = try StoreStack(model: version2, at: url, options: Self.options(deferred: true, sources: [try M.version1()]))
    // Deferred: the removed column and table are still in the file, the new index is not.
    #expect(Self.pending(stack))
    let tasks = Self.tasks(stack)
    #expect(tasks.contains("ALTER TABLE ZNOTE DROP COLUMN ZBODY"))
    #expect(tasks.contains("DROP TABLE IF EXISTS ZTAG"))
    #expect(tasks.contains { $0.hasPrefix("CREATE INDEX IF NOT EXISTS ZNOTE_ZPINNEDIN_INDEX") })
    #expect(try M.columns(url, "ZNOTE").contains("ZBODY"))
    #expect(try M.tables(url).contains("ZTAG"))
    // The file's metadata says so too, for whoever opens it next.
    let fileMetadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
    #expect(fileMetadata[NSPersistentStoreDeferredLightweightMigrationOptionKey] as? Bool == true)
    // Fully usable in between.
    #expect(try M.fetch("Note", in: stack.context).count == 30)
    #expect(try Self.addNote("Between", in: stack) == 31)

    // One task at a time.
    try stack.coordinator.finishDeferredLightweightMigrationTask()
    #expect(Self.tasks(stack) == Array(tasks.dropFirst()))
    #expect(Self.pending(stack))

    try stack.coordinator.finishDeferredLightweightMigration()
    #expect(!Self.pending(stack))
    #expect(Self.tasks(stack).isEmpty)
    #expect(try !M.columns(url, "ZNOTE").contains("ZBODY"))
    #expect(try !M.tables(url).contains("ZTAG"))
    let layout = try M.layout(url)
    let fresh = try M.freshLayout(version2)
    #expect(layout == fresh)
    #expect(try Self.addNote("After", in: stack) == 32)
    // Nothing left: finishing again does nothing.
    try stack.coordinator.finishDeferredLightweightMigration()
    try stack.coordinator.finishDeferredLightweightMigrationTask()
    try stack.close()
    let after = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
    #expect(after[NSPersistentStoreDeferredLightweightMigrationOptionKey] == nil)
    #expect(after[ObjectGraphDeferredMigrationTasksKey] == nil)
    let reopened = try StoreStack(model: version2, at: url, options: StoreStack.migratingOptions)
    #expect(try M.fetch("Note", in: reopened.context).count == 32)
  }

  @Test("without the option nothing is deferred, and finishing does nothing")
  func notDeferredWithoutTheOption() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try M.writeStore(try M.version1(), at: url)
    let stack = try StoreStack(model: try Self.version2(), at: url, options: Self.options(deferred: false, sources: [try M.version1()]))
    #expect(!Self.pending(stack))
    #expect(try !M.columns(url, "ZNOTE").contains("ZBODY"))
    #expect(try !M.tables(url).contains("ZTAG"))
    let before = try M.layout(url)
    try stack.coordinator.finishDeferredLightweightMigration()
    #expect(try M.layout(url) == before)
  }

  @Test("a later migration runs what an earlier one deferred first: a column name taken again is free")
  func laterMigrationFinishesFirst() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try M.writeStore(try M.version1(), at: url)
    let version2 = try Self.version2()
    try StoreStack(model: version2, at: url, options: Self.options(deferred: true, sources: [try M.version1()])).close()
    #expect(try M.columns(url, "ZNOTE").contains("ZBODY"))
    // Version 3 has `body` again, as a new Integer 64 attribute (another type than the String column left).
    let version3 = try NSManagedObjectModel(
      entities: (try Self.version2()).entities.map { entity in
        guard entity.name == "Note" else { return entity }
        return M.entity(
          "Note",
          [
            M.attribute("title", optional: false, default: ""), M.attribute("rating", .integer64AttributeType),
            M.attribute("body", .integer64AttributeType, optional: false, default: Int64(5)),
            M.relationship("notebook", to: "Notebook", inverse: "notes"), M.relationship("pinnedIn", to: "Notebook", inverse: "pinned"),
          ])
      })
    let stack = try StoreStack(model: version3, at: url, options: M.migrationOptions(sourceModels: [version2]))
    let notes = try M.fetch("Note", in: stack.context)
    #expect(notes.count == 30)
    #expect(stack.context.performAndWait { notes.allSatisfy { $0.value(forKey: "body") as? Int64 == 5 } })
    #expect(!Self.pending(stack))
    #expect(try !M.tables(url).contains("ZTAG"))
    let layout = try M.layout(url)
    let fresh = try M.freshLayout(version3)
    #expect(layout == fresh)
  }

  @Test("saves on a private queue while another thread finishes the tasks one by one: every note is kept")
  func finishingWhileSaving() async throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try M.writeStore(try M.version1(), at: url)
    let stack = try StoreStack(model: try Self.version2(), at: url, options: Self.options(deferred: true, sources: [try M.version1()]))
    let taskCount = Self.tasks(stack).count
    #expect(taskCount >= 3)
    let writer = Task.detached {
      for index in 0..<20 { _ = try Self.addNote("Concurrent \(index)", in: stack) }
    }
    let finisher = Task.detached {
      for _ in 0..<taskCount { try stack.coordinator.finishDeferredLightweightMigrationTask() }
    }
    try await writer.value
    try await finisher.value
    #expect(!Self.pending(stack))
    #expect(try M.fetch("Note", in: stack.context).count == 50)
    #expect(try !M.columns(url, "ZNOTE").contains("ZBODY"))
  }
}
