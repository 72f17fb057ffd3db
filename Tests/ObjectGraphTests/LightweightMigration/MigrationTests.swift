import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// Lightweight migration on real SQLite files: each change Core Data can infer, with a store written by the
/// old model and opened by the new one; and the changes it cannot infer, refused with the file untouched.
@Suite("Migration: inferred (lightweight) migration", .temporaryFolders)
struct MigrationTests {
  // MARK: - A small vocabulary for two model versions

  static func attribute(
    _ name: String, _ type: NSAttributeType = .stringAttributeType, optional: Bool = true, default value: (any Sendable)? = nil,
    renamedFrom old: String? = nil
  ) -> NSPropertyDescription {
    let attribute = NSAttributeDescription(name: name, type: .init(rawValue: type), isOptional: optional, defaultValue: value)
    attribute.renamingIdentifier = old
    return .attribute(attribute)
  }

  static func relationship(
    _ name: String, to destination: String, inverse: String?, toMany: Bool = false, renamedFrom old: String? = nil
  ) -> NSPropertyDescription {
    let relationship = NSRelationshipDescription(name: name, destination: destination, inverse: inverse, toMany: toMany)
    relationship.renamingIdentifier = old
    return .relationship(relationship)
  }

  static func entity(_ name: String, _ properties: [NSPropertyDescription], renamedFrom old: String? = nil) -> NSEntityDescription {
    let entity = NSEntityDescription(name: name, properties: properties)
    entity.renamingIdentifier = old
    return entity
  }

  /// Version 1: Notebook 1-* Note, Note *-* Tag; a version 2 is version 1 with `editNote` applied to Note's
  /// properties, in this order: title, body, rating, notebook, tags.
  static func version1(editingNote editNote: (inout [NSPropertyDescription]) -> Void = { _ in }) throws -> NSManagedObjectModel {
    var note: [NSPropertyDescription] = [
      attribute("title", optional: false, default: ""), attribute("body"), attribute("rating", .integer64AttributeType),
      relationship("notebook", to: "Notebook", inverse: "notes"),
      relationship("tags", to: "Tag", inverse: "notes", toMany: true),
    ]
    editNote(&note)
    return try NSManagedObjectModel(entities: [
      entity("Notebook", [attribute("name"), relationship("notes", to: "Note", inverse: "notebook", toMany: true)]),
      entity("Note", note),
      entity("Tag", [attribute("name"), relationship("notes", to: "Note", inverse: "tags", toMany: true)]),
    ])
  }

  /// Version 1 with `extraNoteProperties` added to Note.
  static func version1(extraNoteProperties: [NSPropertyDescription]) throws -> NSManagedObjectModel {
    try version1 { $0 += extraNoteProperties }
  }

  /// Writes a version 1 store: 3 notebooks, `notes` notes (each in notebook `i % 3`, with tag `i % 2`,
  /// every third without a body), 2 tags.
  static func writeStore(_ model: NSManagedObjectModel, at url: URL, notes: Int = 30) throws {
    let stack = try StoreStack(model: model, at: url)
    let context = stack.context
    try context.performAndWait {
      guard let notebookEntity = model.entitiesByName["Notebook"], let noteEntity = model.entitiesByName["Note"],
        let tagEntity = model.entitiesByName["Tag"]
      else { throw ObjectGraphError(.unknownKey, "model lacks an entity") }
      let notebooks = (0..<3).map { index -> NSManagedObject in
        let notebook = NSManagedObject(entity: notebookEntity, insertInto: context)
        notebook.setValue("Notebook \(index)", forKey: "name")
        return notebook
      }
      let tags = (0..<2).map { index -> NSManagedObject in
        let tag = NSManagedObject(entity: tagEntity, insertInto: context)
        tag.setValue("Tag \(index)", forKey: "name")
        return tag
      }
      for index in 0..<notes {
        let note = NSManagedObject(entity: noteEntity, insertInto: context)
        note.setValue("Note \(index)", forKey: "title")
        note.setValue(index % 3 == 0 ? nil : "Body \(index)", forKey: "body")
        note.setValue(Int64(index), forKey: "rating")
        note.setValue(notebooks[index % 3], forKey: "notebook")
        note.setValue(Set([tags[index % 2]]), forKey: "tags")
      }
      try context.save()
    }
    try stack.close()
  }

  /// Opens `url` with `model` (migrating it) and returns a context on it. Without options, version 1 is
  /// passed as the source model.
  /// Core Data's two options that migrate a store when it is added, and the engine's option of the models
  /// it may have been made with.
  static func migrationOptions(sourceModels: [NSManagedObjectModel]) -> [AnyHashable: Any] {
    [
      NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
      ObjectGraphMigrationSourceModelsOption: sourceModels,
    ]
  }

  static func open(_ model: NSManagedObjectModel, at url: URL, options: [AnyHashable: Any]? = nil) throws -> NSManagedObjectContext {
    try StoreStack(model: model, at: url, options: options ?? MigrationTests.migrationOptions(sourceModels: [try version1()])).context
  }

  static func fetch(_ entity: String, in context: NSManagedObjectContext, sortedBy key: String? = nil) throws -> [NSManagedObject] {
    try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: entity)
      request.sortDescriptors = key.map { [NSSortDescriptor(key: $0, ascending: true)] } ?? []
      return try context.fetch(request)
    }
  }

  static func columns(_ url: URL, _ table: String) throws -> Set<String> {
    Set(try rawRows(url, "PRAGMA table_info(\(table))").map { $0["name"] as String })
  }

  static func tables(_ url: URL) throws -> Set<String> {
    Set(try rawRows(url, "SELECT name FROM sqlite_master WHERE type = 'table'").map { $0["name"] as String })
  }

  static func fileBytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

  /// The layout of a file, to compare a migrated store with a store made fresh by the same model: each
  /// table's columns with their types, and each index's table and columns.
  static func layout(_ url: URL) throws -> [String] {
    var lines: [String] = []
    for table in try tables(url).sorted() {
      let columns = try rawRows(url, "PRAGMA table_info(\(table))").map { "\($0["name"] as String) \($0["type"] as String)" }
      lines.append("\(table): \(columns.sorted().joined(separator: ", "))")
    }
    for row in try rawRows(url, "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL") {
      let name: String = row["name"]
      let columns = try rawRows(url, "PRAGMA index_info(\(name))").map { $0["name"] as String }
      lines.append("index \(name) on \(row["tbl_name"] as String)(\(columns.sorted().joined(separator: ", ")))")
    }
    return lines.sorted()
  }

  // MARK: - What can be inferred

  @Test("adding attributes: a new optional one is empty, a new one with a default gets it in every row")
  func addAttribute() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeStore(try Self.version1(), at: url)
    let version2 = try Self.version1(extraNoteProperties: [
      Self.attribute("subtitle"), Self.attribute("wordCount", .integer32AttributeType, optional: false, default: Int32(7)),
    ])
    let context = try Self.open(version2, at: url)
    let notes = try Self.fetch("Note", in: context, sortedBy: "rating")
    context.performAndWait {
      #expect(notes.count == 30)
      #expect(notes.allSatisfy { $0.value(forKey: "subtitle") == nil })
      #expect(notes.allSatisfy { $0.value(forKey: "wordCount") as? Int32 == 7 })
      #expect(notes.map { $0.value(forKey: "title") as? String } == (0..<30).map { "Note \($0)" })
      #expect(notes[1].value(forKey: "body") as? String == "Body 1")
    }
    #expect(try Self.columns(url, "ZNOTE").isSuperset(of: ["ZSUBTITLE", "ZWORDCOUNT"]))
  }

  @Test("removing an attribute drops its column and keeps the others' values")
  func removeAttribute() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeStore(try Self.version1(), at: url)
    let version2 = try Self.version1 { $0.remove(at: 1) }  // body
    let context = try Self.open(version2, at: url)
    let notes = try Self.fetch("Note", in: context, sortedBy: "rating")
    context.performAndWait {
      #expect(notes.count == 30)
      #expect((notes[4].value(forKey: "notebook") as? NSManagedObject)?.value(forKey: "name") as? String == "Notebook 1")
      #expect((notes[5].value(forKey: "tags") as? Set<NSManagedObject>)?.count == 1)
    }
    #expect(!(try Self.columns(url, "ZNOTE").contains("ZBODY")))
  }

  @Test("adding an entity gives it an empty table whose keys start at 1; removing one drops its table and relationships")
  func addAndRemoveEntity() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeStore(try Self.version1(), at: url)
    // Version 2: Tag is gone (and Note.tags with it), Folder is new.
    let version2 = try NSManagedObjectModel(entities: [
      Self.entity("Notebook", [Self.attribute("name"), Self.relationship("notes", to: "Note", inverse: "notebook", toMany: true)]),
      Self.entity(
        "Note",
        [
          Self.attribute("title", optional: false, default: ""), Self.attribute("body"), Self.attribute("rating", .integer64AttributeType),
          Self.relationship("notebook", to: "Notebook", inverse: "notes"),
        ]),
      Self.entity("Folder", [Self.attribute("path")]),
    ])
    let context = try Self.open(version2, at: url)
    #expect(try Self.tables(url) == ["ZFOLDER", "ZNOTE", "ZNOTEBOOK", "Z_PRIMARYKEY", "Z_METADATA", "Z_MODELCACHE"])
    let folderKey = try context.performAndWait { () -> Int64? in
      let folder = NSManagedObject(
        entity: version2.entitiesByName["Folder"] ?? NSEntityDescription(name: "?", properties: []), insertInto: context)
      folder.setValue("/tmp", forKey: "path")
      try context.save()
      return folder.objectID.primaryKey
    }
    #expect(folderKey == 1)
    #expect(try Self.fetch("Note", in: context).count == 30)
    // Entity numbers follow name order: Folder 1, Note 2, Notebook 3.
    let numbers = try rawRows(url, "SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { "\($0[0] as Int64) \($0[1] as String)" }
    #expect(numbers == ["1 Folder", "2 Note", "3 Notebook"])
    #expect(try rawRows(url, "SELECT DISTINCT Z_ENT FROM ZNOTE").map { $0[0] as Int64 } == [2])
  }

  @Test("optional to required with a default: rows without a value get the default, the others keep theirs")
  func optionalToRequiredWithDefault() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeStore(try Self.version1(), at: url)
    let version2 = try Self.changingBody(Self.attribute("body", optional: false, default: "(empty)"))
    let context = try Self.open(version2, at: url)
    let notes = try Self.fetch("Note", in: context, sortedBy: "rating")
    context.performAndWait {
      #expect(notes[0].value(forKey: "body") as? String == "(empty)")
      #expect(notes[1].value(forKey: "body") as? String == "Body 1")
      #expect(notes.filter { $0.value(forKey: "body") as? String == "(empty)" }.count == 10)
    }
  }

  @Test("optional to required without a default: refused (134110) when rows lack a value, the file untouched")
  func optionalToRequiredWithoutDefault() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeStore(try Self.version1(), at: url)
    let before = try Self.fileBytes(url)
    let version2 = try Self.changingBody(Self.attribute("body", optional: false))
    let error = expectCode(.migration) { _ = try Self.open(version2, at: url) }
    #expect(error?.message.contains("Note.body became required") == true)
    #expect(error?.message.contains("10 row(s)") == true)
    #expect(try Self.fileBytes(url) == before)
    #expect(try Self.fetch("Note", in: try Self.open(try Self.version1(), at: url)).count == 30)
  }

  @Test("required to optional keeps every value")
  func requiredToOptional() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeStore(try Self.version1(), at: url)
    let version2 = try Self.changingTitle(Self.attribute("title"))
    let notes = try Self.fetch("Note", in: try Self.open(version2, at: url), sortedBy: "rating")
    #expect(notes.count == 30)
  }

  @Test("renaming an attribute, a relationship and an entity through renaming identifiers keeps the data")
  func renames() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeStore(try Self.version1(), at: url)
    let version2 = try NSManagedObjectModel(entities: [
      Self.entity(
        "Folder", [Self.attribute("label", renamedFrom: "name"), Self.relationship("notes", to: "Note", inverse: "folder", toMany: true)],
        renamedFrom: "Notebook"),
      Self.entity(
        "Note",
        [
          Self.attribute("heading", optional: false, default: "", renamedFrom: "title"), Self.attribute("body"),
          Self.attribute("rating", .integer64AttributeType),
          Self.relationship("folder", to: "Folder", inverse: "notes", renamedFrom: "notebook"),
          Self.relationship("labels", to: "Tag", inverse: "notes", toMany: true, renamedFrom: "tags"),
        ]),
      Self.entity("Tag", [Self.attribute("name"), Self.relationship("notes", to: "Note", inverse: "labels", toMany: true)]),
    ])
    let context = try Self.open(version2, at: url)
    let notes = try Self.fetch("Note", in: context, sortedBy: "rating")
    context.performAndWait {
      #expect(notes.map { $0.value(forKey: "heading") as? String } == (0..<30).map { "Note \($0)" })
      #expect((notes[4].value(forKey: "folder") as? NSManagedObject)?.value(forKey: "label") as? String == "Notebook 1")
      #expect(
        (notes[3].value(forKey: "labels") as? Set<NSManagedObject>)?.compactMap { $0.value(forKey: "name") as? String } == ["Tag 1"])
    }
    #expect(try Self.tables(url).contains("ZFOLDER"))
    #expect(!(try Self.tables(url).contains("ZNOTEBOOK")))
    #expect(try Self.layout(url) == (try Self.freshLayout(version2)))
  }

  @Test("to-one becomes to-many (pairs carried into a join table) and to-many becomes to-one (the lowest key kept)")
  func toOneAndToManySwap() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeStore(try Self.version1(), at: url)
    let version2 = try Self.version1 {
      $0[3] = Self.relationship("notebook", to: "Notebook", inverse: "notes", toMany: true)
      $0[4] = Self.relationship("tags", to: "Tag", inverse: "notes")
    }
    let context = try Self.open(version2, at: url)
    let notes = try Self.fetch("Note", in: context, sortedBy: "rating")
    context.performAndWait {
      for (index, note) in notes.enumerated() {
        let notebooks = (note.value(forKey: "notebook") as? Set<NSManagedObject>)?.compactMap { $0.value(forKey: "name") as? String }
        #expect(notebooks == ["Notebook \(index % 3)"])
        #expect((note.value(forKey: "tags") as? NSManagedObject)?.value(forKey: "name") as? String == "Tag \(index % 2)")
      }
    }
    #expect(try Self.layout(url) == (try Self.freshLayout(version2)))
  }

  @Test("adding and removing relationships")
  func addAndRemoveRelationship() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeStore(try Self.version1(), at: url)
    // Note.tags goes away, Note.related (many-to-many to itself) and Note.pinnedIn (to-one) appear.
    let version2 = try NSManagedObjectModel(entities: [
      Self.entity(
        "Notebook",
        [
          Self.attribute("name"), Self.relationship("notes", to: "Note", inverse: "notebook", toMany: true),
          Self.relationship("pinned", to: "Note", inverse: "pinnedIn", toMany: true),
        ]),
      Self.entity(
        "Note",
        [
          Self.attribute("title", optional: false, default: ""), Self.attribute("body"), Self.attribute("rating", .integer64AttributeType),
          Self.relationship("notebook", to: "Notebook", inverse: "notes"),
          Self.relationship("pinnedIn", to: "Notebook", inverse: "pinned"),
          Self.relationship("related", to: "Note", inverse: "related", toMany: true),
        ]),
      Self.entity("Tag", [Self.attribute("name")]),
    ])
    let context = try Self.open(version2, at: url)
    let notes = try Self.fetch("Note", in: context, sortedBy: "rating")
    try context.performAndWait {
      #expect(notes.allSatisfy { $0.value(forKey: "pinnedIn") == nil })
      notes[0].setValue(Set([notes[1]]), forKey: "related")
      try context.save()
    }
    #expect(try Self.layout(url) == (try Self.freshLayout(version2)))
    #expect(try Self.fetch("Tag", in: context).count == 2)
  }

  @Test("a new child entity joins a hierarchy; a new abstract parent takes a root's table, keys and rows")
  func inheritance() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeStore(try Self.version1(), at: url)
    let item = Self.entity("Item", [Self.attribute("createdBy")])
    item.isAbstract = true
    let note = Self.entity(
      "Note",
      [
        Self.attribute("title", optional: false, default: ""), Self.attribute("body"), Self.attribute("rating", .integer64AttributeType),
        Self.relationship("notebook", to: "Notebook", inverse: "notes"),
        Self.relationship("tags", to: "Tag", inverse: "notes", toMany: true),
      ])
    let checklist = Self.entity("Checklist", [Self.attribute("done", .booleanAttributeType, optional: false, default: false)])
    note.subentities = [checklist]
    item.subentities = [note]
    let version2 = try NSManagedObjectModel(entities: [
      Self.entity("Notebook", [Self.attribute("name"), Self.relationship("notes", to: "Note", inverse: "notebook", toMany: true)]),
      item, note, checklist,
      Self.entity("Tag", [Self.attribute("name"), Self.relationship("notes", to: "Note", inverse: "tags", toMany: true)]),
    ])
    let context = try Self.open(version2, at: url)
    #expect(try Self.fetch("Note", in: context).count == 30)
    #expect(try Self.fetch("Item", in: context).count == 30)
    let newKey = try context.performAndWait { () -> Int64? in
      guard let entity = version2.entitiesByName["Checklist"] else { return nil }
      let list = NSManagedObject(entity: entity, insertInto: context)
      list.setValue("Groceries", forKey: "title")
      try context.save()
      return list.objectID.primaryKey
    }
    #expect(newKey == 31)
    #expect(try Self.fetch("Note", in: context).count == 31)
    #expect(try Self.fetch("Checklist", in: context).count == 1)
    #expect(try Self.tables(url).contains("ZITEM"))
    #expect(try Self.layout(url) == (try Self.freshLayout(version2)))
  }

  // MARK: - What cannot be inferred, and the options

  @Test("a type change is refused with 134140 naming the entity, the property and the change; the file is untouched")
  func typeChange() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeStore(try Self.version1(), at: url)
    let before = try Self.fileBytes(url)
    let version2 = try Self.changingBody(Self.attribute("body", .integer64AttributeType))
    let error = expectCode(.migrationMissingMappingModel) { _ = try Self.open(version2, at: url) }
    #expect(error?.message.contains("Note.body changed type from String to Integer 64") == true)
    #expect(error?.url == url)
    #expect(try Self.fileBytes(url) == before)
  }

  @Test("migration off: 134100; inference off: 134140; no source model: 134130 listing the hashes; each leaves the file as it was")
  func options() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeStore(try Self.version1(), at: url)
    // A store whose model is kept nowhere: as if an app that never shipped its model made it.
    let queue = try DatabaseQueue(path: url.path)
    try queue.write { try $0.execute(sql: "DROP TABLE Z_MODELCACHE") }
    try queue.close()
    let before = try Self.fileBytes(url)
    let version2 = try Self.version1(extraNoteProperties: [Self.attribute("subtitle")])
    _ = expectCode(.persistentStoreIncompatibleVersionHash) {
      _ = try Self.open(
        version2, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
    }
    let inference = expectCode(.migrationMissingMappingModel) {
      _ = try Self.open(
        version2, at: url,
        options: [
          NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: false,
          ObjectGraphMigrationSourceModelsOption: [try Self.version1()],
        ])
    }
    #expect(inference?.message.contains("NSInferMappingModelAutomaticallyOption") == true)
    let missing = expectCode(.migrationMissingSourceModel) {
      _ = try Self.open(
        version2, at: url,
        options: MigrationTests.migrationOptions(sourceModels: [try Self.version1(extraNoteProperties: [Self.attribute("x")])]))
    }
    #expect(missing?.message.contains("The store's entity version hashes: Note ") == true)
    #expect(try Self.fileBytes(url) == before)
  }

  @Test("with no source model anywhere else, the model the store keeps (Z_MODELCACHE) is the source")
  func modelKeptInTheStore() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeStore(try Self.version1(), at: url)
    #expect(try rawRows(url, "SELECT COUNT(*) AS c FROM Z_MODELCACHE")[0]["c"] as Int == 1)
    let version2 = try Self.version1(extraNoteProperties: [Self.attribute("subtitle")])
    let context = try Self.open(
      version2, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
    #expect(try Self.fetch("Note", in: context).count == 30)
    // The store now keeps version 2, so a version 3 finds its source there too.
    let version3 = try Self.version1(extraNoteProperties: [Self.attribute("subtitle"), Self.attribute("summary")])
    #expect(
      try Self.fetch(
        "Note",
        in: try Self.open(
          version3, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
      ).count == 30)
  }

  @Test("a store without a kept model gets one when opened read-write; a damaged copy counts as absent (134130)")
  func modelCacheBackfilledAndDamaged() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeStore(try Self.version1(), at: url)
    let queue = try DatabaseQueue(path: url.path)
    try queue.write { try $0.execute(sql: "DROP TABLE Z_MODELCACHE") }
    try queue.close()
    _ = try Self.open(try Self.version1(), at: url)
    #expect(try rawRows(url, "SELECT COUNT(*) AS c FROM Z_MODELCACHE")[0]["c"] as Int == 1)

    let damage = try DatabaseQueue(path: url.path)
    try damage.write { try $0.execute(sql: "UPDATE Z_MODELCACHE SET Z_CONTENT = x'3c6d6f64656c'") }
    try damage.close()
    let before = try Self.fileBytes(url)
    let version2 = try Self.version1(extraNoteProperties: [Self.attribute("subtitle")])
    let error = expectCode(.migrationMissingSourceModel) {
      _ = try Self.open(
        version2, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
    }
    #expect(error?.message.contains("the model kept in the store (absent or different)") == true)
    #expect(try Self.fileBytes(url) == before)
  }

  @Test("after a migration the metadata carries the new hashes and the same store UUID, and the model opens it without migrating")
  func metadataAfterMigration() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeStore(try Self.version1(), at: url)
    let uuid = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)[NSStoreUUIDKey] as? String
    let version2 = try Self.version1(extraNoteProperties: [Self.attribute("subtitle")])
    #expect(
      !version2.isConfiguration(
        withName: nil, compatibleWithStoreMetadata: try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)))
    _ = try Self.open(
      version2, at: url,
      options: MigrationTests.migrationOptions(sourceModels: [try Self.version1()]))
    let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
    #expect(version2.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))
    #expect(metadata[NSStoreUUIDKey] as? String == uuid)
  }

  @Test("progress starts at 0, moves in between and ends at 1, reported once the migration is on disk")
  func progress() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeStore(try Self.version1(), at: url, notes: 5_000)
    let reports = Locked<[MigrationProgress]>([])
    // Whether the file, read from another connection, was already migrated when each report came.
    let onDisk = Locked<[Bool]>([])
    let version2 = try Self.version1(extraNoteProperties: [
      Self.attribute("wordCount", .integer32AttributeType, optional: false, default: Int32(0))
    ])
    _ = try Self.open(
      version2, at: url,
      options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        ObjectGraphMigrationSourceModelsOption: [try Self.version1()],
        ObjectGraphMigrationProgressOption: { report in
          reports.withLock { $0.append(report) }
          let metadata = try? NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
          onDisk.withLock { $0.append(metadata.map { version2.isConfiguration(withName: nil, compatibleWithStoreMetadata: $0) } ?? false) }
        } as @Sendable (MigrationProgress) -> Void,
      ])
    // 1 is reported once the migration is committed, and only then.
    #expect(onDisk.withLock { $0 }.last == true)
    #expect(onDisk.withLock { $0 }.dropLast().allSatisfy { !$0 })
    let fractions = reports.withLock { $0 }.map(\.fractionCompleted)
    #expect(fractions.first == 0)
    #expect(fractions.last == 1)
    #expect(fractions.contains { $0 > 0 && $0 < 1 })
    #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 })
  }

  @Test("the asynchronous add migrates off the caller's thread and calls back once with the store")
  func asynchronousAdd() async throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.writeStore(try Self.version1(), at: url)
    let version2 = try Self.version1(extraNoteProperties: [Self.attribute("subtitle")])
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version2)
    let calls = Locked(0)
    let options: [AnyHashable: Any] = MigrationTests.migrationOptions(sourceModels: [try Self.version1()])
    let store: NSPersistentStore = try await withCheckedThrowingContinuation { continuation in
      coordinator.addPersistentStore(type: .sqlite, at: url, options: options) { result in
        calls.withLock { $0 += 1 }
        continuation.resume(with: result)
      }
    }
    #expect(store.url == url)
    #expect(calls.withLock { $0 } == 1)
    #expect(coordinator.persistentStores.count == 1)
  }

  @Test(
    "six coordinators opening the same old store at once, three times over: one migrates, the others find it migrated (while they plan, or once they have the lock)"
  )
  func concurrentOpens() throws {
    let version2 = try Self.version1(extraNoteProperties: [
      Self.attribute("wordCount", .integer32AttributeType, optional: false, default: Int32(3))
    ])
    let version1 = try Self.version1()
    for round in 0..<3 {
      let url = try TemporaryFolder().appending("Store\(round).sqlite")
      try Self.writeStore(try Self.version1(), at: url, notes: 2_000)
      let failures = Locked<[String]>([])
      DispatchQueue.concurrentPerform(iterations: 6) { _ in
        do {
          let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version2)
          let options: [AnyHashable: Any] = MigrationTests.migrationOptions(sourceModels: [version1])
          try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: url, options: options))
        } catch {
          failures.withLock { $0.append("\(error)") }
        }
      }
      #expect(failures.withLock { $0 } == [])
      let context = try Self.open(version2, at: url)
      let notes = try Self.fetch("Note", in: context)
      context.performAndWait {
        #expect(notes.count == 2_000)
        #expect(notes.allSatisfy { $0.value(forKey: "wordCount") as? Int32 == 3 })
      }
    }
  }

  @Test("a store left with a live -wal by a killed app: a refused or failed migration leaves the main file and the -wal as they were")
  func liveWriteAheadLog() throws {
    let folder = try TemporaryFolder()
    let original = folder.appending("Original.sqlite")
    // Copy the files while the writing coordinator is still open: the rows are in the -wal only.
    let writer = try StoreStack(model: try Self.version1(), at: original)
    let context = writer.context
    try context.performAndWait {
      for index in 0..<500 {
        let note = NSManagedObject(entity: writer.entity("Note"), insertInto: context)
        note.setValue("Note \(index) " + String(repeating: "x", count: 200), forKey: "title")
      }
      try context.save()
    }
    let url = folder.appending("Store.sqlite")
    for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: original.path + suffix, toPath: url.path + suffix) }
    let wal = URL(fileURLWithPath: url.path + "-wal")
    let before = (try Self.fileBytes(url), try Self.fileBytes(wal))
    #expect(before.1.count > 0)

    // Refused while planning: a new required attribute without a default, and rows.
    let required = try Self.version1(extraNoteProperties: [Self.attribute("wordCount", .integer32AttributeType, optional: false)])
    _ = expectCode(.migration) { _ = try Self.open(required, at: url) }
    #expect(try Self.fileBytes(url) == before.0)
    #expect(try Self.fileBytes(wal) == before.1)

    // Failed while running: the disk fills up (SQLite's max_page_count).
    let pages = try rawRows(url, "PRAGMA page_count")[0][0] as Int
    let full: [AnyHashable: Any] = [
      NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
      NSSQLitePragmasOption: ["max_page_count": "\(pages)"], ObjectGraphMigrationSourceModelsOption: [try Self.version1()],
    ]
    let version2 = try Self.version1(extraNoteProperties: [
      Self.attribute("summary", optional: false, default: String(repeating: "s", count: 100))
    ])
    let error = expectCode(.migration) { _ = try Self.open(version2, at: url, options: full) }
    #expect(error?.sqlitePrimaryResultCode == 13)
    // A migration's full disk is not a save's: no "save again", the file is as it was.
    #expect(error?.message.contains("the file was left as it was") == true, "\(error?.message ?? "")")
    #expect(error?.message.contains("save again") == false)
    #expect(try Self.fileBytes(url) == before.0)
    #expect(try Self.fetch("Note", in: try Self.open(version2, at: url)).count == 500)
  }

  @Test(
    "a store from a version the app does not have migrates from the model kept in the store, whatever its name sorts as (no version order)"
  )
  func storeFromAVersionTheAppDoesNotHave() throws {
    let folder = try TemporaryFolder()
    /// Writes `model` as the only version `version` of `<bundle>.xcdatamodeld` and loads it back from there.
    func xcodeModel(_ model: NSManagedObjectModel, bundle: String, version: String) throws -> NSManagedObjectModel {
      let versionFolder = folder.appending("\(bundle).xcdatamodeld/\(version).xcdatamodel")
      try FileManager.default.createDirectory(at: versionFolder, withIntermediateDirectories: true)
      try XcodeModelWriter.contents(of: model).write(to: versionFolder.appendingPathComponent("contents"))
      return try NSManagedObjectModel(loadingContentsOf: folder.appending("\(bundle).xcdatamodeld"))
    }
    let app = try xcodeModel(try Self.version1(extraNoteProperties: [Self.attribute("subtitle")]), bundle: "App", version: "DataModel 2")
    // "DataModel 3" sorts after the app's "DataModel 2", "Zebra" after both: neither is refused for it.
    for (bundle, version) in [("Later", "DataModel 3"), ("Other", "Zebra")] {
      let url = folder.appending("\(bundle).sqlite")
      try Self.writeStore(try xcodeModel(try Self.version1(), bundle: bundle, version: version), at: url)
      let context = try Self.open(
        app, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
      let notes = try Self.fetch("Note", in: context, sortedBy: "rating")
      #expect(notes.count == 30, "\(version)")
      context.performAndWait { #expect(notes.first?.value(forKey: "title") as? String == "Note 0") }
    }
  }

  // MARK: - Helpers for the cases

  /// Version 1 with Note.body replaced.
  static func changingBody(_ body: NSPropertyDescription) throws -> NSManagedObjectModel { try version1 { $0[1] = body } }

  /// Version 1 with Note.title replaced.
  static func changingTitle(_ title: NSPropertyDescription) throws -> NSManagedObjectModel { try version1 { $0[0] = title } }

  /// The layout a store made fresh by `model` has.
  static func freshLayout(_ model: NSManagedObjectModel) throws -> [String] {
    let url = try TemporaryFolder().appending("Fresh-\(UUID().uuidString).sqlite")
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
    try coordinator.remove(store)
    return try layout(url)
  }
}

/// The tutorial's own model: a version 1 store opened by version 2 finds version 1 next to it in the
/// `.xcdatamodeld` and migrates to the same layout a fresh version 2 store has.
@Suite("Migration: the tutorial model's two versions", .temporaryFolders)
struct TutorialMigrationTests {
  static func tutorialModelURL() -> URL {
    TestFolders.repository.appendingPathComponent("Stages/NotesModel/DataModel.xcdatamodeld")
  }

  @Test("a version 1 store migrates on open: renamed values kept, new attribute defaulted, links and keys carried on")
  func versionOneToTwo() throws {
    let versions = try NSManagedObjectModel.versions(in: Self.tutorialModelURL())
    #expect(versions.map(\.name) == ["DataModel", "DataModel 2"])
    let current = try NSManagedObjectModel(loadingContentsOf: Self.tutorialModelURL())
    let url = try TemporaryFolder().appending("DataModel.sqlite")
    let version1 = versions[0].model
    let date = Date(timeIntervalSinceReferenceDate: 700_000_000)
    // Version 1 passed in: read through NotesModel's bundle, it would register the tutorial's classes by name.
    try TutorialStack.writeVersionOneStore(
      at: url, model: version1, titles: (0..<10).map { "Note \($0)" }, createdAt: date,
      updatedAt: { index in index.isMultiple(of: 2) ? date : nil }
    ) { context, notes in
      let tag = NSManagedObject(entity: try #require(version1.entitiesByName["Tag"]), insertInto: context)
      tag.setValue("home", forKey: "name")
      for note in notes { note.setValue(Set([tag]), forKey: "tags") }
    }
    let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
    #expect(metadata[ObjectGraphModelVersionNameKey] as? String == "DataModel")
    #expect(!current.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata))

    let context = try StoreStack(model: current, at: url).context
    try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      let notes = try context.fetch(request)
      #expect(notes.count == 10)
      #expect(notes.filter { $0.value(forKey: "modifiedAt") as? Date == date }.count == 5)
      #expect(notes.allSatisfy { $0.value(forKey: "wordCount") as? Int32 == 0 })
      #expect(notes.allSatisfy { ($0.value(forKey: "tags") as? Set<NSManagedObject>)?.count == 1 })
      let attachment = NSManagedObject(entity: try #require(current.entitiesByName["Attachment"]), insertInto: context)
      attachment.setValue("photo.jpg", forKey: "fileName")
      attachment.setValue(notes[0], forKey: "note")
      let note = NSManagedObject(entity: try #require(current.entitiesByName["Note"]), insertInto: context)
      note.setValue("Note 10", forKey: "title")
      note.setValue(date, forKey: "createdAt")
      try context.save()
      #expect(note.objectID.primaryKey == 11)
    }
    let migrated = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: url)
    #expect(migrated[ObjectGraphModelVersionNameKey] as? String == "DataModel 2")
    #expect(try MigrationTests.layout(url) == (try MigrationTests.freshLayout(current)))
  }
}

/// Fetch indexes are not part of the version hash: a model that only changes its indexes opens the store
/// without a migration, and the store's indexes follow the model.
@Suite("Migration: fetch indexes follow the model", .temporaryFolders)
struct FetchIndexStoreTests {
  static func model(indexes: [NSFetchIndexDescription]) throws -> NSManagedObjectModel {
    let note = NSEntityDescription(
      name: "Note",
      properties: [
        .attribute(NSAttributeDescription(name: "title", type: .string)),
        .attribute(NSAttributeDescription(name: "createdAt", type: .date)),
      ])
    note.indexes = indexes
    return try NSManagedObjectModel(entities: [note])
  }

  static func indexes(_ url: URL) throws -> [String] {
    try rawRows(url, "SELECT sql FROM sqlite_master WHERE type = 'index' AND name LIKE 'Z\\_Note\\_%' ESCAPE '\\' ORDER BY name")
      .map { $0["sql"] as String }
  }

  static func open(_ model: NSManagedObjectModel, _ url: URL) throws {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: url))
  }

  @Test("a new store has the model's fetch indexes; adding, changing and removing one needs no migration")
  func indexesFollowTheModel() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let byDate = NSFetchIndexDescription(name: "byCreatedAt", elements: [.init(propertyName: "createdAt", isAscending: false)])
    try Self.open(try Self.model(indexes: [byDate]), url)
    #expect(try Self.indexes(url) == ["CREATE INDEX Z_Note_byCreatedAt ON ZNOTE (ZCREATEDAT COLLATE BINARY DESC)"])

    let byTitle = NSFetchIndexDescription(name: "byTitle", elements: [.init(propertyName: "title")])
    try Self.open(try Self.model(indexes: [byDate, byTitle]), url)
    #expect(
      try Self.indexes(url) == [
        "CREATE INDEX Z_Note_byCreatedAt ON ZNOTE (ZCREATEDAT COLLATE BINARY DESC)",
        "CREATE INDEX Z_Note_byTitle ON ZNOTE (ZTITLE COLLATE BINARY ASC)",
      ])

    let both = NSFetchIndexDescription(name: "byTitle", elements: [.init(propertyName: "title"), .init(propertyName: "createdAt")])
    try Self.open(try Self.model(indexes: [both]), url)
    #expect(try Self.indexes(url) == ["CREATE INDEX Z_Note_byTitle ON ZNOTE (ZTITLE COLLATE BINARY ASC, ZCREATEDAT COLLATE BINARY ASC)"])

    try Self.open(try Self.model(indexes: []), url)
    #expect(try Self.indexes(url).isEmpty)
  }

  @Test("a read-only open leaves the indexes alone")
  func readOnlyLeavesIndexes() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Self.open(try Self.model(indexes: []), url)
    let before = try Data(contentsOf: url)
    let coordinator = NSPersistentStoreCoordinator(
      managedObjectModel: try Self.model(indexes: [NSFetchIndexDescription(name: "byTitle", elements: [.init(propertyName: "title")])]))
    try coordinator.addPersistentStore(
      type: .sqlite, at: url,
      options: [NSReadOnlyPersistentStoreOption: true])
    #expect(try Self.indexes(url).isEmpty)
    #expect(try Data(contentsOf: url) == before)
  }
}
