import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Splits version 1's `Note.fullName` into version 2's `firstName` and `lastName`: the default policy makes
/// the note and fills the mapped attributes, then this fills the two new ones.
final class SplitFullNamePolicy: NSEntityMigrationPolicy {
  /// `migrationProgress` as each mapping's instances were all made.
  var progressAfterCreation: [Float] = []

  override func createDestinationInstances(forSource source: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager)
    throws
  {
    try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
    let parts = (source.value(forKey: "fullName") as? String ?? "").split(separator: " ", maxSplits: 1).map(String.init)
    for note in manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source]) {
      note.setValue(parts.first, forKey: "firstName")
      note.setValue(parts.count > 1 ? parts[1] : nil, forKey: "lastName")
    }
  }

  override func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {
    progressAfterCreation.append(manager.migrationProgress)
  }
}

struct PolicyFailure: Error, CustomStringConvertible {
  var description: String { "note 5 cannot be migrated" }
}

/// Throws when it makes the fifth note.
final class FailingPolicy: NSEntityMigrationPolicy {
  override func createDestinationInstances(forSource source: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager)
    throws
  {
    try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
    if manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: nil).count == 5 { throw PolicyFailure() }
  }
}

/// Cancels the migration while relating the notes.
final class CancellingPolicy: NSEntityMigrationPolicy {
  override func createRelationships(forDestination destination: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager)
    throws
  {
    try super.createRelationships(forDestination: destination, in: mapping, manager: manager)
    manager.cancelMigrationWithError(PolicyFailure())
  }
}

/// Explicit migration with a mapping model and a migration manager, on real SQLite files: what inference
/// cannot do (a type change, a split), relationships through `FUNCTION($manager, ...)`, removed entities,
/// source predicates; and failures, which leave the source byte for byte and no destination.
@Suite("Migration: mapping models and the migration manager", .temporaryFolders)
struct MigrationManagerTests {
  typealias M = MigrationTests

  /// Version 1: Notebook 1-* Note *-* Tag, Note has `fullName` and `ratingText` (a String); Draft.
  static func version1() throws -> NSManagedObjectModel {
    try NSManagedObjectModel(entities: [
      M.entity("Notebook", [M.attribute("name"), M.relationship("notes", to: "Note", inverse: "notebook", toMany: true)]),
      M.entity(
        "Note",
        [
          M.attribute("fullName"), M.attribute("ratingText"), M.relationship("notebook", to: "Notebook", inverse: "notes"),
          M.relationship("tags", to: "Tag", inverse: "notes", toMany: true),
        ]),
      M.entity("Tag", [M.attribute("name"), M.relationship("notes", to: "Note", inverse: "tags", toMany: true)]),
      M.entity("Draft", [M.attribute("text")]),
    ])
  }

  /// Version 2: `fullName` split into a required `firstName` and `lastName`, `ratingText` now `rating`, an
  /// Integer 64; no Draft.
  static func version2() throws -> NSManagedObjectModel {
    try NSManagedObjectModel(entities: [
      M.entity("Notebook", [M.attribute("name"), M.relationship("notes", to: "Note", inverse: "notebook", toMany: true)]),
      M.entity(
        "Note",
        [
          M.attribute("firstName", optional: false), M.attribute("lastName"), M.attribute("rating", .integer64AttributeType),
          M.relationship("notebook", to: "Notebook", inverse: "notes"), M.relationship("tags", to: "Tag", inverse: "notes", toMany: true),
        ]),
      M.entity("Tag", [M.attribute("name"), M.relationship("notes", to: "Note", inverse: "tags", toMany: true)]),
    ])
  }

  /// Writes a version 1 store: 3 notebooks, 2 tags, `notes` notes ("First<i> Last<i>", rating "<7i>", in
  /// notebook `i % 3`, tagged `i % 2`), 2 drafts.
  static func writeStore(at url: URL, notes: Int = 12) throws {
    let stack = try StoreStack(model: try version1(), at: url)
    let context = stack.context
    try context.performAndWait {
      let notebooks = (0..<3).map { index in
        let notebook = NSEntityDescription.insertNewObject(forEntityName: "Notebook", into: context)
        notebook.setValue("Notebook \(index)", forKey: "name")
        return notebook
      }
      let tags = (0..<2).map { index in
        let tag = NSEntityDescription.insertNewObject(forEntityName: "Tag", into: context)
        tag.setValue("Tag \(index)", forKey: "name")
        return tag
      }
      for index in 0..<notes {
        let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
        note.setValue("First\(index) Last\(index)", forKey: "fullName")
        note.setValue("\(index * 7)", forKey: "ratingText")
        note.setValue(notebooks[index % 3], forKey: "notebook")
        note.setValue(Set([tags[index % 2]]), forKey: "tags")
      }
      for index in 0..<2 {
        NSEntityDescription.insertNewObject(forEntityName: "Draft", into: context).setValue("draft \(index)", forKey: "text")
      }
      try context.save()
    }
    try stack.close()
  }

  static func function(_ mapping: String, _ keyPath: String) -> String {
    "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"\(mapping)\", $source.\(keyPath))"
  }

  /// The mapping model from version 1 to version 2: the rating converted by a closure, the name split by
  /// `notePolicy`, relationships by `FUNCTION(...)`, Draft removed.
  static func mappingModel(
    notePolicy: NSEntityMigrationPolicy = SplitFullNamePolicy(), notePredicate: NSPredicate? = nil,
    notebookNameExpression: String = "$source.name"
  ) -> NSMappingModel {
    NSMappingModel(entityMappings: [
      NSEntityMapping(
        name: "NotebookToNotebook", mappingType: .copyEntityMappingType, sourceEntityName: "Notebook", destinationEntityName: "Notebook",
        attributeMappings: [NSPropertyMapping(name: "name", valueExpression: notebookNameExpression)],
        relationshipMappings: [NSPropertyMapping(name: "notes", valueExpression: function("NoteToNote", "notes"))]),
      NSEntityMapping(
        name: "NoteToNote", mappingType: .customEntityMappingType, sourceEntityName: "Note", destinationEntityName: "Note",
        attributeMappings: [
          NSPropertyMapping(name: "rating") { source, _ in Int64(source.value(forKey: "ratingText") as? String ?? "") }
        ],
        relationshipMappings: [
          NSPropertyMapping(name: "notebook", valueExpression: function("NotebookToNotebook", "notebook")),
          NSPropertyMapping(name: "tags", valueExpression: function("TagToTag", "tags")),
        ],
        sourcePredicate: notePredicate, migrationPolicy: notePolicy),
      NSEntityMapping(
        name: "TagToTag", mappingType: .copyEntityMappingType, sourceEntityName: "Tag", destinationEntityName: "Tag",
        attributeMappings: [NSPropertyMapping(name: "name", valueExpression: "$source.name")],
        relationshipMappings: [NSPropertyMapping(name: "notes", valueExpression: function("NoteToNote", "notes"))]),
      NSEntityMapping(name: "Draft", mappingType: .removeEntityMappingType, sourceEntityName: "Draft", destinationEntityName: nil),
    ])
  }

  /// What a version 2 store holds, one line per note, sorted: "first last rating notebook [tags]".
  static func notes(at url: URL) throws -> [String] {
    let context = try M.open(
      try version2(), at: url, options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
    return try context.performAndWait {
      try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).map { note in
        let tags = (note.value(forKey: "tags") as? Set<NSManagedObject> ?? []).compactMap { $0.value(forKey: "name") as? String }
        let notebook = (note.value(forKey: "notebook") as? NSManagedObject)?.value(forKey: "name") as? String
        return
          "\(note.value(forKey: "firstName") as? String ?? "-") \(note.value(forKey: "lastName") as? String ?? "-") \(note.value(forKey: "rating") as? Int64 ?? -1) \(notebook ?? "-") \(tags.sorted())"
      }.sorted()
    }
  }

  /// Each notebook's name and how many notes it holds, from the notebook's side of the relationship.
  static func notebooks(at url: URL) throws -> [String] {
    let context = try M.open(
      try version2(), at: url, options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
    return try context.performAndWait {
      try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Notebook")).map { notebook in
        "\(notebook.value(forKey: "name") as? String ?? "-"): \((notebook.value(forKey: "notes") as? Set<NSManagedObject>)?.count ?? -1)"
      }.sorted()
    }
  }

  static func expected(_ indexes: some Sequence<Int>) -> [String] {
    indexes.map { "First\($0) Last\($0) \($0 * 7) Notebook \($0 % 3) [\"Tag \($0 % 2)\"]" }.sorted()
  }

  static func noFiles(at url: URL) -> Bool {
    ["", "-wal", "-shm", "-journal"].allSatisfy { !FileManager.default.fileExists(atPath: url.path + $0) }
  }

  // MARK: - What a mapping model does

  @Test("a split by a custom policy and a String to Integer 64 change by a closure, then the file put in place")
  func splitAndTypeChange() throws {
    let policy = SplitFullNamePolicy()
    let (manager, storeURL, migratedURL) = try Self.migratedWithMappingModel(Self.mappingModel(notePolicy: policy))
    #expect(manager.migrationProgress == 1)
    #expect(policy.progressAfterCreation.count == 1)
    #expect(policy.progressAfterCreation.allSatisfy { $0 > 0 && $0 < 1 }, "\(policy.progressAfterCreation)")
    #expect(manager.currentEntityMapping == nil)

    // The app puts the migrated file in place of the old one and opens it with version 2.
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.version2())
    try coordinator.replacePersistentStore(at: storeURL, withPersistentStoreFrom: migratedURL, type: .sqlite)
    try coordinator.destroyPersistentStore(at: migratedURL, type: .sqlite)
    #expect(try Self.notes(at: storeURL) == Self.expected(0..<12))
    #expect(try M.columns(storeURL, "ZNOTE").isSuperset(of: ["ZFIRSTNAME", "ZLASTNAME", "ZRATING"]))
    #expect(try rawRows(storeURL, "SELECT typeof(ZRATING) AS t FROM ZNOTE").allSatisfy { $0["t"] as String == "integer" })
  }

  /// A version 1 store in a new folder, migrated with `mapping` (``mappingModel()`` when `nil`) to
  /// `Migrated.sqlite` beside it: the manager, the source file and the migrated file.
  static func migratedWithMappingModel(_ mapping: NSMappingModel? = nil) throws
    -> (manager: NSMigrationManager, storeURL: URL, migratedURL: URL)
  {
    let folder = try TemporaryFolder()
    let storeURL = folder.appending("Store.sqlite")
    let migratedURL = folder.appending("Migrated.sqlite")
    try writeStore(at: storeURL)
    let manager = NSMigrationManager(sourceModel: try version1(), destinationModel: try version2())
    try manager.migrateStore(from: storeURL, type: .sqlite, mapping: mapping ?? mappingModel(), to: migratedURL, type: .sqlite)
    return (manager, storeURL, migratedURL)
  }

  @Test("relationships carried by FUNCTION($manager, ...): to-one and to-many, from both sides")
  func relationships() throws {
    let (manager, _, migratedURL) = try Self.migratedWithMappingModel()
    #expect(try Self.notes(at: migratedURL) == Self.expected(0..<12))
    #expect(try Self.notebooks(at: migratedURL) == ["Notebook 0: 4", "Notebook 1: 4", "Notebook 2: 4"])
    let context = try M.open(
      try Self.version2(), at: migratedURL,
      options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
    let tagCounts = try context.performAndWait {
      try M.fetch("Tag", in: context, sortedBy: "name").map { ($0.value(forKey: "notes") as? Set<NSManagedObject>)?.count ?? -1 }
    }
    #expect(tagCounts == [6, 6])
    // The lookups the policies use, after the migration.
    #expect(manager.destinationInstances(forEntityMappingName: "NoteToNote", sourceInstances: nil).count == 12)
    #expect(manager.sourceInstances(forEntityMappingName: "TagToTag", destinationInstances: nil).count == 2)
    #expect(manager.destinationInstances(forEntityMappingName: "Draft", sourceInstances: nil).isEmpty)
  }

  @Test("a .remove mapping drops its entity; an entity with no mapping is not carried over either")
  func removeMapping() throws {
    let (manager, storeURL, migratedURL) = try Self.migratedWithMappingModel()
    #expect(!(try M.tables(migratedURL).contains("ZDRAFT")))
    #expect(try rawRows(storeURL, "SELECT COUNT(*) AS c FROM ZDRAFT")[0]["c"] as Int == 2)
    #expect(manager.sourceEntity(for: Self.mappingModel().entityMappings[3])?.name == "Draft")
    #expect(manager.destinationEntity(for: Self.mappingModel().entityMappings[3]) == nil)
  }

  @Test("a source predicate migrates only the instances it accepts; relationships to the others are dropped")
  func sourcePredicate() throws {
    let predicate = NSPredicate(format: "fullName BEGINSWITH %@", "First1")
    let (_, _, migratedURL) = try Self.migratedWithMappingModel(Self.mappingModel(notePredicate: predicate))
    #expect(try Self.notes(at: migratedURL) == Self.expected([1, 10, 11]))
    #expect(try Self.notebooks(at: migratedURL) == ["Notebook 0: 0", "Notebook 1: 2", "Notebook 2: 1"])
  }

  @Test("inferredMappingModel gives what lightweight migration gives, and refuses a type change with 134140")
  func inferred() throws {
    let folder = try TemporaryFolder()
    let lightURL = folder.appending("Light.sqlite")
    let heavyURL = folder.appending("Heavy.sqlite")
    let migratedURL = folder.appending("Migrated.sqlite")
    let v1 = try M.version1()
    let v2 = try M.version1 {
      $0[0] = M.attribute("heading", optional: false, default: "", renamedFrom: "title")
      $0.append(M.attribute("summary", default: "none"))
    }
    try M.writeStore(v1, at: lightURL, notes: 10)
    try FileManager.default.copyItem(at: lightURL, to: heavyURL)
    let mapping = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
    #expect(mapping.entityMappings.map(\.name) == ["NotebookToNotebook", "NoteToNote", "TagToTag"])
    #expect(mapping.entityMappings.map(\.mappingType) == [.copyEntityMappingType, .transformEntityMappingType, .copyEntityMappingType])
    let note = try #require(mapping.entityMappingsByName["NoteToNote"])
    #expect(note.attributeMappings.first { $0.name == "heading" }?.valueExpression == "$source.title")
    try NSMigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(
      from: heavyURL, type: .sqlite, mapping: mapping, to: migratedURL, type: .sqlite)

    func contents(_ context: NSManagedObjectContext) throws -> [String] {
      try M.fetch("Note", in: context, sortedBy: "heading").map { note in
        let tags = (note.value(forKey: "tags") as? Set<NSManagedObject> ?? []).compactMap { $0.value(forKey: "name") as? String }
        let notebook = (note.value(forKey: "notebook") as? NSManagedObject)?.value(forKey: "name") as? String
        return
          "\(note.value(forKey: "heading") ?? "-") \(note.value(forKey: "body") ?? "-") \(note.value(forKey: "rating") ?? "-") \(note.value(forKey: "summary") ?? "-") \(notebook ?? "-") \(tags.sorted())"
      }
    }
    let light = try M.open(v2, at: lightURL)
    let heavy = try M.open(
      v2, at: migratedURL, options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
    let lightContents = try light.performAndWait { try contents(light) }
    #expect(lightContents.count == 10)
    #expect(try heavy.performAndWait { try contents(heavy) } == lightContents)

    let typeChanged = try M.version1 { $0[2] = M.attribute("rating", .stringAttributeType) }
    _ = expectCode(.migrationMissingMappingModel) {
      _ = try NSMappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: typeChanged)
    }
  }

  // MARK: - Failures leave the source as it was and no destination

  /// Migrates a fresh version 1 store with `mapping` (by a manager from `sourceModel`), expects `code`, and
  /// checks that the source file did not change and that no destination file is left; returns the message.
  func expectFailure(
    _ code: ObjectGraphError.Code, mapping: NSMappingModel, sourceModel: NSManagedObjectModel? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> String {
    let folder = try TemporaryFolder()
    let storeURL = folder.appending("Store.sqlite")
    let migratedURL = folder.appending("Migrated.sqlite")
    try Self.writeStore(at: storeURL)
    let before = try Data(contentsOf: storeURL)
    let manager = NSMigrationManager(sourceModel: try sourceModel ?? Self.version1(), destinationModel: try Self.version2())
    let error = expectCode(
      code, { try manager.migrateStore(from: storeURL, type: .sqlite, mapping: mapping, to: migratedURL, type: .sqlite) },
      sourceLocation: sourceLocation)
    #expect(try Data(contentsOf: storeURL) == before, "the source changed", sourceLocation: sourceLocation)
    #expect(Self.noFiles(at: migratedURL), "a destination file is left", sourceLocation: sourceLocation)
    #expect(manager.migrationProgress < 1, sourceLocation: sourceLocation)
    return error?.message ?? ""
  }

  @Test("a policy that throws: 134110 naming the mapping, the step and the policy's error")
  func policyThrows() throws {
    let message = try expectFailure(.migration, mapping: Self.mappingModel(notePolicy: FailingPolicy()))
    #expect(message.contains("'NoteToNote'"))
    #expect(message.contains("createDestinationInstances"))
    #expect(message.contains("note 5 cannot be migrated"))
  }

  @Test("cancelMigrationWithError: 134110 naming the mapping, with the error given")
  func cancelled() throws {
    let message = try expectFailure(.migration, mapping: Self.mappingModel(notePolicy: CancellingPolicy()))
    #expect(message.contains("'NoteToNote' cancelled the migration"))
    #expect(message.contains("note 5 cannot be migrated"))
  }

  @Test("an expression ObjectGraph cannot evaluate: 134110 naming the mapping and the expression, before anything is made")
  func badExpression() throws {
    let message = try expectFailure(.migration, mapping: Self.mappingModel(notebookNameExpression: "FUNCTION($source.name, 'uppercase')"))
    #expect(message.contains("'NotebookToNotebook'"))
    #expect(message.contains("FUNCTION($source.name, 'uppercase')"))
    let throughAttribute = try expectFailure(.migration, mapping: Self.mappingModel(notebookNameExpression: "$source.name.length"))
    #expect(throughAttribute.contains("name.length goes on past an attribute"))
    let unknownMapping = MigrationManagerTests.mappingModel()
    unknownMapping.entityMappings[0].relationshipMappings[0].valueExpression = Self.function("NoteToNotes", "notes")
    #expect(try expectFailure(.migration, mapping: unknownMapping).contains("no entity mapping named 'NoteToNotes'"))
  }

  @Test("a destination that fails validation: 134110 naming the mapping whose objects failed")
  func validationFails() throws {
    // The default policy does not split the name, so the required firstName is missing.
    let message = try expectFailure(.migration, mapping: Self.mappingModel(notePolicy: NSEntityMigrationPolicy()))
    #expect(message.contains("firstName"))
    #expect(message.contains("'NoteToNote'"))
  }

  @Test("a source store not made with the manager's source model: 134130")
  func wrongSourceModel() throws {
    _ = try expectFailure(.migrationMissingSourceModel, mapping: Self.mappingModel(), sourceModel: try Self.version2())
  }

  @Test("an existing destination is refused and left as it was")
  func destinationExists() throws {
    let folder = try TemporaryFolder()
    let storeURL = folder.appending("Store.sqlite")
    let migratedURL = folder.appending("Migrated.sqlite")
    try Self.writeStore(at: storeURL)
    let before = try Data(contentsOf: storeURL)
    let existing = Data("not to be overwritten".utf8)
    try existing.write(to: migratedURL)
    let manager = NSMigrationManager(sourceModel: try Self.version1(), destinationModel: try Self.version2())
    let error = expectCode(.migration) {
      try manager.migrateStore(from: storeURL, type: .sqlite, mapping: Self.mappingModel(), to: migratedURL, type: .sqlite)
    }
    #expect(error?.message.contains("exists") == true)
    #expect(try Data(contentsOf: migratedURL) == existing)
    #expect(try Data(contentsOf: storeURL) == before)
  }

  @Test("a closure giving a value of the wrong type: 134110 naming the attribute, not a crash")
  func wrongValueType() throws {
    let mapping = Self.mappingModel()
    mapping.entityMappings[1].attributeMappings = [NSPropertyMapping(name: "rating") { source, _ in source.value(forKey: "ratingText") }]
    let message = try expectFailure(.migration, mapping: mapping)
    #expect(message.contains("Note.rating"))
    #expect(message.contains("'NoteToNote'"))
  }
}
