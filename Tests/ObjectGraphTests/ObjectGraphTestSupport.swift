import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// Typed classes for the notes model used across the tests.
final class Notebook: NSManagedObject {
  @ObjectGraphManaged var name: String?
  @ObjectGraphManaged var notes: Set<Note>
}

final class Note: NSManagedObject {
  @ObjectGraphManaged var title: String?
  @ObjectGraphManaged var body: String?
  @ObjectGraphManaged var rating: Int64
  @ObjectGraphManaged var createdAt: Date?
  @ObjectGraphManaged var notebook: Notebook?
  @ObjectGraphManaged var tags: Set<Tag>
}

final class Tag: NSManagedObject {
  @ObjectGraphManaged var name: String?
  @ObjectGraphManaged var notes: Set<Note>
}

enum Models {
  /// Notebook 1-* Note (cascade from notebook, nullify back), Note *-* Tag, Note.title required,
  /// Attachment (abstract) with Image and File subentities, Lock (deny) -> Note.
  static func notes() throws -> NSManagedObjectModel {
    let notebook = NSEntityDescription(
      name: "Notebook", managedObjectClass: Notebook.self,
      properties: [
        .attribute(NSAttributeDescription(name: "name", type: .string)),
        .relationship(
          NSRelationshipDescription(name: "notes", destination: "Note", inverse: "notebook", toMany: true, deleteRule: .cascadeDeleteRule)),
      ])
    let note = NSEntityDescription(
      name: "Note", managedObjectClass: Note.self,
      properties: [
        .attribute(NSAttributeDescription(name: "title", type: .string, isOptional: false)),
        .attribute(NSAttributeDescription(name: "body", type: .string)),
        .attribute(NSAttributeDescription(name: "rating", type: .integer64, isOptional: false, defaultValue: Int64(0))),
        .attribute(NSAttributeDescription(name: "createdAt", type: .date)),
        .relationship(NSRelationshipDescription(name: "notebook", destination: "Notebook", inverse: "notes")),
        .relationship(NSRelationshipDescription(name: "tags", destination: "Tag", inverse: "notes", toMany: true)),
        .relationship(
          NSRelationshipDescription(
            name: "attachments", destination: "Attachment", inverse: "note", toMany: true, deleteRule: .cascadeDeleteRule)),
        .relationship(NSRelationshipDescription(name: "lock", destination: "Lock", inverse: "note", deleteRule: .denyDeleteRule)),
      ])
    let tag = NSEntityDescription(
      name: "Tag", managedObjectClass: Tag.self,
      properties: [
        .attribute(NSAttributeDescription(name: "name", type: .string)),
        .relationship(NSRelationshipDescription(name: "notes", destination: "Note", inverse: "tags", toMany: true)),
      ])
    let attachment = NSEntityDescription(
      name: "Attachment",
      properties: [
        .attribute(NSAttributeDescription(name: "size", type: .integer32)),
        .relationship(NSRelationshipDescription(name: "note", destination: "Note", inverse: "attachments")),
      ])
    attachment.isAbstract = true
    let image = NSEntityDescription(
      name: "ImageAttachment", properties: [.attribute(NSAttributeDescription(name: "width", type: .integer16))])
    let file = NSEntityDescription(name: "FileAttachment", properties: [.attribute(NSAttributeDescription(name: "path", type: .string))])
    attachment.subentities = [image, file]
    let lock = NSEntityDescription(
      name: "Lock",
      properties: [
        .attribute(NSAttributeDescription(name: "reason", type: .string)),
        .relationship(NSRelationshipDescription(name: "note", destination: "Note", inverse: "lock")),
      ])
    return try NSManagedObjectModel(entities: [notebook, note, tag, attachment, image, file, lock])
  }

  /// One entity with an attribute of every stored type.
  static func allTypes() throws -> NSManagedObjectModel {
    let types: [(String, NSAttributeType)] = [
      ("string", .stringAttributeType), ("int16", .integer16AttributeType), ("int32", .integer32AttributeType),
      ("int64", .integer64AttributeType), ("double", .doubleAttributeType),
      ("float", .floatAttributeType), ("bool", .booleanAttributeType), ("date", .dateAttributeType), ("data", .binaryDataAttributeType),
      ("uuid", .UUIDAttributeType), ("uri", .URIAttributeType),
      ("decimal", .decimalAttributeType),
    ]
    return try NSManagedObjectModel(entities: [
      NSEntityDescription(
        name: "Everything", properties: types.map { .attribute(NSAttributeDescription(name: $0.0, type: .init(rawValue: $0.1))) })
    ])
  }
}

/// Both store types, for the tests whose behaviour must not depend on whether the store is a file.
let bothStoreTypes: [NSPersistentStore.StoreType] = [.sqlite, .inMemory]

/// The engine's tests build their stacks with ``StoreStack``, on their own notes model unless they say
/// otherwise.
extension StoreStack {
  /// A stack on ``Models/notes()`` with its store of `type` in `folder` (a new ``TemporaryFolder`` unless one is
  /// given), so a test that makes one carries `.temporaryFolders`.
  init(type: NSPersistentStore.StoreType = .sqlite, folder: TemporaryFolder? = nil) throws {
    try self.init(model: try Models.notes(), type: type, folder: folder)
  }

  /// `read` applied to every object of `entityName` the store holds, in primary-key order (the order the
  /// rows were written in), as a fresh context fetches them.
  func storedInKeyOrder<Value: Sendable>(_ entityName: String, _ read: (NSManagedObject) throws -> Value) throws -> [Value] {
    try stored(entityName) { (key: $0.objectID.primaryKey ?? 0, value: try read($0)) }.sorted { $0.key < $1.key }.map(\.value)
  }

  /// Checks that the store holds `count` objects of `entityName`, counted by a fresh context; for a SQLite
  /// store, also that the file's `table` holds `count` rows.
  func expectStored(
    _ entityName: String, count: Int, table: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    #expect(try storedCount(entityName) == count, "\(type)", sourceLocation: sourceLocation)
    if type == .sqlite {
      #expect(try rawRows(storeURL, "SELECT COUNT(*) AS c FROM \(table)")[0]["c"] as Int == count, sourceLocation: sourceLocation)
    }
  }

  /// `rawRows(storeURL, sql)` for a SQLite store (what reached the file); nil for an in-memory store.
  func fileRows(_ sql: String) throws -> [Row]? {
    type == .sqlite ? try rawRows(storeURL, sql) : nil
  }

  /// A note titled `original` saved through ``context``, then retitled `theirs` through a ``reader()`` and
  /// saved there (``ConflictingEdit``): ``context``'s next save of the note conflicts. Returns the note as
  /// ``context`` holds it (kept alive, still titled `original`).
  func conflictingEdit(original: String, theirs: String) throws -> Note {
    let (_, other) = try reader()
    let kept = try ConflictingEdit.make(
      mine: context, theirs: other,
      insert: { context in
        let note = Note(context: context)
        note.title = original
        return note
      },
      change: { ($0 as? Note)?.title = theirs })
    return try #require(kept as? Note)
  }

}

/// A concurrency-debug watch that stops when the test no longer uses it. (The engine's list of watches
/// holds a `ConcurrencyDebug.Watch` itself, so the watch cannot stop on its own when a test lets go of it.)
///
/// The test's last look at ``violations`` keeps it watching until then; after that, nothing reads what it
/// would record.
final class WatchedViolations: Sendable {
  private let watch: ConcurrencyDebug.Watch

  init(_ watch: ConcurrencyDebug.Watch) { self.watch = watch }

  /// The violations recorded so far, oldest first.
  var violations: [ConcurrencyDebug.Violation] { watch.violations }

  deinit { watch.stop() }
}

/// Reads a store file with plain SQL, outside the engine.

func rawRows(_ url: URL, _ sql: String) throws -> [Row] {
  var configuration = Configuration()
  configuration.readonly = true
  let queue = try DatabaseQueue(path: url.path, configuration: configuration)
  return try queue.read { try Row.fetchAll($0, sql: sql) }
}

func expectCode(_ code: ObjectGraphError.Code, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation)
  -> ObjectGraphError?
{
  do {
    try body()
    Issue.record("expected error \(code.rawValue), nothing was thrown", sourceLocation: sourceLocation)
    return nil
  } catch let error as ObjectGraphError {
    #expect(error.code == code, "got \(error)", sourceLocation: sourceLocation)
    return error
  } catch {
    Issue.record("expected ObjectGraphError \(code.rawValue), got \(error)", sourceLocation: sourceLocation)
    return nil
  }
}

/// Copies the store at `source` to `destination` with its `-wal` and `-shm` when it has them (a WAL store's last
/// transactions may be only in its `-wal`). The copies are written anew, so they are writable even when the
/// fixtures are not.
func copyStoreFiles(_ source: URL, to destination: URL) throws {
  for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source.path + suffix) {
    try Data(contentsOf: URL(fileURLWithPath: source.path + suffix)).write(to: URL(fileURLWithPath: destination.path + suffix))
  }
}

/// Where the engine's tests are, found from this file's place, `Tests/ObjectGraphTests/` (the tests themselves
/// sit in subfolders named after the engine's folders, so their own `#filePath` is one level deeper).
enum TestFolders {
  /// `Tests/ObjectGraphTests`.
  static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  /// The repository root, two levels above ``tests``.
  static let repository = tests.deletingLastPathComponent().deletingLastPathComponent()
  /// `Tests/ObjectGraphTests/Fixtures`: store files and a model that tests copy before opening.
  static let fixtures = tests.appendingPathComponent("Fixtures")
}

/// The shared Xcode model fixtures.
enum Fixtures {
  /// `<repo root>/../shared/fixtures/xcdatamodels`, where the repo root is the nearest folder above this file
  /// that holds `Package.swift`. Fails the test when the folder is missing (tests that need it carry
  /// `.needsFixtures`, which skips them, saying why, in a clone without the fixtures, except under CI).
  static func folder(filePath: String = #filePath) throws -> URL {
    let fileManager = FileManager.default
    var folder = URL(fileURLWithPath: filePath).deletingLastPathComponent()
    while !fileManager.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
      let parent = folder.deletingLastPathComponent()
      try #require(
        parent.path != folder.path, "No Package.swift above \(filePath): cannot find the repository root")
      folder = parent
    }
    let fixtures = folder.deletingLastPathComponent().appendingPathComponent("shared/fixtures/xcdatamodels")
    var isDirectory: ObjCBool = false
    try #require(
      fileManager.fileExists(atPath: fixtures.path, isDirectory: &isDirectory) && isDirectory.boolValue,
      """
      The Xcode model fixtures are missing: expected the folder \(fixtures.path) (the repository root's parent \
      folder + shared/fixtures/xcdatamodels). Restore the shared fixtures; these tests need them.
      """)
    return fixtures
  }

  /// Every model folder: each `.xcdatamodeld` and bare `.xcdatamodel`.
  static func models() throws -> [URL] {
    let folder = try folder()
    return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
      .filter { $0.pathExtension == "xcdatamodeld" || $0.pathExtension == "xcdatamodel" }
      .sorted { $0.lastPathComponent < $1.lastPathComponent }
  }
}

extension Trait where Self == ConditionTrait {
  /// For tests that read the shared Xcode model fixtures (`../shared/fixtures` beside the repository).
  /// A clone without them reports these tests as skipped, saying why; CI (where `CI` is set) always runs
  /// them, so there a missing fixtures folder fails loudly instead.
  static var needsFixtures: Self {
    .enabled(
      if: ProcessInfo.processInfo.environment["CI"] != nil || Fixtures.areAvailable,
      "The Xcode model fixtures (../shared/fixtures beside the repository) are not in this checkout.")
  }
}

extension Fixtures {
  /// `<repo root>/../shared/fixtures/apple-stores`: stores, compiled models (`.momd`) and mapping models
  /// (`.xcmappingmodel`, `.cdm`) made by Apple's tools, beside the Xcode models they were made from. Fails the
  /// test when the folder is missing (tests that read it carry `.needsFixtures`).
  static func appleStores(filePath: String = #filePath) throws -> URL {
    let folder = try folder(filePath: filePath).deletingLastPathComponent().appendingPathComponent("apple-stores")
    try #require(
      FileManager.default.fileExists(atPath: folder.path),
      "The Apple store fixtures are missing: expected the folder \(folder.path). Restore the shared fixtures.")
    return folder
  }

  /// The CoreDataPlus sample model's fixture folder (`SampleModel.xcdatamodeld`, `SampleModel.momd`,
  /// `MappingModels/`).
  static func sampleModelFolder() throws -> URL {
    try appleStores().appendingPathComponent("alemar11__CoreDataPlus__SampleModel", isDirectory: true)
  }
}

extension Fixtures {
  /// Whether the fixtures folder is there (checked without recording an issue).
  static var areAvailable: Bool {
    var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
      let parent = folder.deletingLastPathComponent()
      guard parent.path != folder.path else { return false }
      folder = parent
    }
    let fixtures = folder.deletingLastPathComponent().appendingPathComponent("shared/fixtures/xcdatamodels")
    return FileManager.default.fileExists(atPath: fixtures.path)
  }
}

extension Fixtures {
  /// The Apple-written stores, each with the folder of its fixture, its `.xcdatamodeld`, and the version that
  /// made it.
  static let appleStoreFiles: [(folder: String, model: String, version: String, store: String)] = [
    ("alemar11__CoreDataPlus__SampleModel", "SampleModel.xcdatamodeld", "SampleModel", "SampleModel_V1.sqlite"),
    ("alemar11__CoreDataPlus__SampleModel", "SampleModel.xcdatamodeld", "SampleModel2", "SampleModel_V2.sqlite"),
    ("bignerdranch__CoreDataStack__TestModel", "Sample.xcdatamodeld", "TestModel", "TestModel.sqlite"),
    ("duckduckgo__BrowserServicesKit__SyncMetadata", "SyncMetadata.xcdatamodeld", "SyncMetadata 3", "SyncMetadata_V3.sqlite"),
    ("duckduckgo__BrowserServicesKit__Bookmarks", "BookmarksModel.xcdatamodeld", "BookmarksModel 2", "Bookmarks_V2.sqlite"),
    ("artsy__energy-legacy__ArtsyPartner", "ArtsyPartner.xcdatamodeld", "ArtsyFolio v1.5", "ArtsyPartner_1.6.sqlite"),
    ("artsy__energy-legacy__ArtsyPartner", "ArtsyPartner.xcdatamodeld", "ArtsyFolio v2.0", "ArtsyPartner_2.0.sqlite"),
  ]
}
