import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// Stores written by Apple's Core Data (`../shared/fixtures/apple-stores`) open here with their models: read-only
/// without a byte changed or a file left beside them, and read-write, where a save changes only what it must.
@Suite("Stores Apple's Core Data wrote", .temporaryFolders)
struct AppleStoreTests {
  /// A copy of one fixture store in a temporary folder, with the model version that made it.
  struct Fixture {
    let url: URL
    let model: NSManagedObjectModel
    let name: String

    init(_ fixture: (folder: String, model: String, version: String, store: String), in folder: TemporaryFolder) throws {
      let source = try Fixtures.appleStores().appendingPathComponent(fixture.folder)
      let versions = try NSManagedObjectModel.versions(in: source.appendingPathComponent(fixture.model))
      model = try #require(versions.first { $0.name == fixture.version }?.model)
      url = folder.appending(fixture.store)
      // With its -wal and -shm when the repository committed them (their saves may be in the -wal).
      try copyStoreFiles(source.appendingPathComponent(fixture.store), to: url)
      name = fixture.store
      // The app registers its own transformer for Car.color; a stand-in does here (every stored value is NULL).
      if AttributeValueTransformer.valueTransformer(forName: "ColorTransformer") == nil {
        AttributeValueTransformer.setValueTransformer(UTF8Transformer(), forName: "ColorTransformer")
      }
    }
  }

  @Test(
    "Each Apple-written store opens read-only: every count and value is what SQLite holds; no byte changes, no file is left", .needsFixtures
  )
  func readOnly() throws {
    for entry in Fixtures.appleStoreFiles {
      let folder = try TemporaryFolder()
      let fixture = try Fixture(entry, in: folder)
      let bytes = try Data(contentsOf: fixture.url)
      let files = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
      let coordinator = NSPersistentStoreCoordinator(managedObjectModel: fixture.model)
      let store = try coordinator.addPersistentStore(
        type: .sqlite, at: fixture.url,
        options: [
          NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true,
          NSReadOnlyPersistentStoreOption: true,
        ])
      let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      context.persistentStoreCoordinator = coordinator
      try Self.expectEveryValueMatchesSQLite(fixture, context: context, store: store)
      try coordinator.remove(store)
      #expect(try Data(contentsOf: fixture.url) == bytes, "\(fixture.name): the file changed")
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == files, "\(fixture.name): files left beside it")
    }
  }

  @Test(
    "Each Apple-written store opens read-write; a save of one change and one insert keeps its indexes, model cache and hashes, and advances Z_MAX and Z_OPT",
    .needsFixtures)
  func readWrite() throws {
    for entry in Fixtures.appleStoreFiles {
      let folder = try TemporaryFolder()
      let fixture = try Fixture(entry, in: folder)
      let indexes = try Self.indexes(fixture.url)
      let cache = try Self.modelCache(fixture.url)
      // A counter below its table's highest key (ArtsyPartner_2.0.sqlite: one Artwork, Z_MAX 0) is raised on
      // a read-write open, so that no key is handed out twice.
      let keys = try Self.maxima(fixture.url).merging(try Self.highestKeys(fixture.url), uniquingKeysWith: max)
      let metadataBefore = try Self.plist(fixture.url)
      let metadataBytes = try rawRows(fixture.url, "SELECT Z_PLIST FROM Z_METADATA")[0]["Z_PLIST"] as Data
      let coordinator = NSPersistentStoreCoordinator(managedObjectModel: fixture.model)
      let store = try coordinator.addPersistentStore(
        type: .sqlite, at: fixture.url,
        options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
      let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      context.persistentStoreCoordinator = coordinator
      try Self.expectEveryValueMatchesSQLite(fixture, context: context, store: store)
      let change = try Self.changeAndInsert(fixture, context: context)
      try coordinator.remove(store)

      #expect(try rawRows(fixture.url, "PRAGMA integrity_check")[0][0] as String == "ok", "\(fixture.name)")
      let after = try Self.indexes(fixture.url)
      for (name, sql) in indexes { #expect(after[name] == sql, "\(fixture.name): index \(name) was dropped or changed") }
      #expect(try Self.modelCache(fixture.url) == cache, "\(fixture.name): Z_MODELCACHE")
      #expect(
        try rawRows(fixture.url, "SELECT Z_PLIST FROM Z_METADATA")[0]["Z_PLIST"] as Data == metadataBytes,
        "\(fixture.name): the metadata was rewritten")
      let metadataAfter = try Self.plist(fixture.url)
      #expect(
        metadataAfter["NSStoreModelVersionHashes"] as? [String: Data] == metadataBefore["NSStoreModelVersionHashes"] as? [String: Data])
      #expect(Set(metadataAfter.keys).isSuperset(of: metadataBefore.keys), "\(fixture.name): a metadata key was dropped")
      let maxima = try Self.maxima(fixture.url)
      for (entity, before) in keys {
        let expected = before + (change.inserted[entity] ?? 0)
        #expect(maxima[entity] == expected, "\(fixture.name): Z_MAX of entity \(entity)")
      }
      if let changed = change.changed {
        let versions = try rawRows(fixture.url, "SELECT Z_OPT FROM \(changed.table) WHERE Z_PK = \(changed.key)")
        #expect(versions.first?["Z_OPT"] as Int64? == changed.version + 1, "\(fixture.name): Z_OPT of the changed row")
      }
      // Reopened, the store reads back what was saved.
      let again = NSPersistentStoreCoordinator(managedObjectModel: fixture.model)
      let reopened = try again.addPersistentStore(
        type: .sqlite, at: fixture.url,
        options: [NSReadOnlyPersistentStoreOption: true])
      let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      reader.persistentStoreCoordinator = again
      try Self.expectEveryValueMatchesSQLite(fixture, context: reader, store: reopened)
      try again.remove(reopened)
    }
  }

  @Test(
    "The compiled model an app ships (.momd) opens the store Core Data made with it, and migrates the version 1 store to version 2 as Core Data did",
    .needsFixtures)
  func compiledModel() throws {
    let folder = try TemporaryFolder()
    let source = try Fixtures.sampleModelFolder()
    let momd = source.appendingPathComponent("SampleModel.momd")
    let url = folder.appending("V1.sqlite")
    try FileManager.default.copyItem(at: source.appendingPathComponent("SampleModel_V1.sqlite"), to: url)
    if AttributeValueTransformer.valueTransformer(forName: "ColorTransformer") == nil {
      AttributeValueTransformer.setValueTransformer(UTF8Transformer(), forName: "ColorTransformer")
    }
    // The current version (SampleModel) made the store: it opens as it is.
    let current = try NSManagedObjectModel(loadingContentsOf: momd)
    let reader = NSPersistentStoreCoordinator(managedObjectModel: current)
    try reader.remove(
      try reader.addPersistentStore(
        type: .sqlite, at: url,
        options: [
          NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true,
          NSReadOnlyPersistentStoreOption: true,
        ]))
    // Version 2 of the same .momd: the engine finds version 1 beside it and migrates, as Core Data made
    // SampleModel_V2.sqlite from SampleModel_V1.sqlite (ExpensiveSportCar renamed LuxuryCar, Person.id dropped).
    let version2 = try #require(try NSManagedObjectModel.versions(in: momd).first { $0.name == "SampleModel2" }?.model)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version2)
    try coordinator.addPersistentStore(
      type: .sqlite, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    let counts = try context.performAndWait {
      try ["Car", "SportCar", "LuxuryCar", "Person"].map { name -> Int in
        let request = NSFetchRequest<NSManagedObject>(entityName: name)
        request.includesSubentities = false
        return try context.count(for: request)
      }
    }
    #expect(counts == [115, 5, 5, 20], "the counts Core Data's own migration gave (SampleModel_V2.sqlite)")
    let hashes = try Self.plist(url)["NSStoreModelVersionHashes"] as? [String: Data]
    #expect(hashes == version2.entityVersionHashesByName)
  }

  @Test("A store the engine makes has the schema Core Data made for the same model, statement for statement", .needsFixtures)
  func sameSchema() throws {
    for entry in Fixtures.appleStoreFiles {
      let folder = try TemporaryFolder()
      let fixture = try Fixture(entry, in: folder)
      // Core Data before framework 600 (Artsy's 479) indexed `indexed="YES"` attributes as <TABLE>_<COLUMN>_INDEX,
      // made no join-table index and no Z_MODELCACHE: the engine makes today's. StoreLayoutTests compares
      // those stores' tables and numbering.
      guard try Self.plist(fixture.url)["NSPersistenceFrameworkVersion"] as? Int ?? 0 >= 600 else { continue }
      let url = folder.appending("Engine.sqlite")
      let coordinator = NSPersistentStoreCoordinator(managedObjectModel: fixture.model)
      try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: url))
      let statements = { (url: URL) in
        try rawRows(url, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL").map { $0["sql"] as String }
      }
      // Core Data's decimal columns are DECIMAL; the engine's VARCHAR keeps all 38 digits ("Files Core Data wrote").
      let mine = Set(try statements(url))
      let theirs = Set(try statements(fixture.url).map { $0.replacingOccurrences(of: " DECIMAL", with: " VARCHAR") })
      #expect(mine.subtracting(theirs).isEmpty, "\(fixture.name): only the engine makes \(mine.subtracting(theirs).sorted())")
      let expectedExtras = Self.onlyCoreDataMakes[fixture.name] ?? []
      #expect(
        theirs.subtracting(mine) == expectedExtras,
        "\(fixture.name): only Core Data made \(theirs.subtracting(mine).sorted())")
      #expect(try rawRows(url, "PRAGMA auto_vacuum")[0][0] as Int == 2)
      // Entity numbers and hierarchy as Core Data numbered them (its names may be older: a renamed entity
      // keeps its first name in Z_PRIMARYKEY).
      let numbering = { (url: URL) in
        try rawRows(url, "SELECT Z_ENT, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT").map { "\($0[0] as Int)/\($0[1] as Int)" }
      }
      #expect(try numbering(url) == (try numbering(fixture.url)), "\(fixture.name)")
      let myMetadata = try Self.plist(url)
      let theirMetadata = try Self.plist(fixture.url)
      for key in ["NSStoreModelVersionHashes", "NSStoreModelVersionHashesVersion", "NSStoreType", "_NSAutoVacuumLevel"] {
        #expect(myMetadata[key] as? NSObject == theirMetadata[key] as? NSObject, "\(fixture.name): \(key)")
      }
      if let digest = theirMetadata["NSStoreModelVersionHashesDigest"] as? String {
        #expect(myMetadata["NSStoreModelVersionHashesDigest"] as? String == digest, "\(fixture.name): the digest")
      }
    }
  }

  @Test("A store whose hashes match no model is refused, naming its hashes and what was searched; nothing is written", .needsFixtures)
  func noMatchingModel() throws {
    let folder = try TemporaryFolder()
    let fixture = try Fixture(Fixtures.appleStoreFiles[0], in: folder)
    // Without Core Data's model cache: the model kept there would be found and the store migrated from it.
    try DatabaseQueue(path: fixture.url.path).write { try $0.execute(sql: "DELETE FROM Z_MODELCACHE") }
    let bytes = try Data(contentsOf: fixture.url)
    let car = NSEntityDescription(name: "Car", properties: [.attribute(NSAttributeDescription(name: "maker", type: .string))])
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(entities: [car]))
    let error = expectCode(.migrationMissingSourceModel) {
      _ = try coordinator.addPersistentStore(
        type: .sqlite, at: fixture.url,
        options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
    }
    for part in ["Car 9e5555", "ExpensiveSportCar 3dc7e3", "Person 164268", "SportCar 514ec1", "Searched"] {
      #expect(error?.message.contains(part) == true, "\(part) in \(error?.message ?? "")")
    }
    #expect(try Data(contentsOf: fixture.url) == bytes)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == [fixture.name])
  }

  @Test(
    "What the engine did not make stays through a migration: another index, a newer Core Data's metadata keys",
    .needsFixtures)
  func foreignThingsStay() throws {
    let folder = try TemporaryFolder()
    let fixture = try Fixture(Fixtures.appleStoreFiles[0], in: folder)
    let newerKeys: [String: Any] = ["NSPersistenceMaximumFrameworkVersion": 1518, "AppSyncToken": Data([1, 2, 3])]
    try DatabaseQueue(path: fixture.url.path).write { db in
      try db.execute(sql: "CREATE INDEX Z_Car_maker_numberPlate ON ZCAR (ZMAKER, ZNUMBERPLATE)")
      let data = try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA") ?? Data()
      var plist = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] ?? [:]
      plist.merge(newerKeys) { _, new in new }
      try db.execute(
        sql: "UPDATE Z_METADATA SET Z_PLIST = ?",
        arguments: [try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)])
    }
    try DatabaseQueue(path: fixture.url.path).writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = DELETE") }
    // Version 2 of the model: a migration, which rewrites ZCAR but not another index or unknown metadata keys.
    let version2 = try #require(
      try NSManagedObjectModel.versions(in: try Fixtures.sampleModelFolder().appendingPathComponent("SampleModel.xcdatamodeld"))
        .first { $0.name == "SampleModel2" }?.model)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: version2)
    try coordinator.remove(
      try coordinator.addPersistentStore(
        type: .sqlite, at: fixture.url,
        options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]))
    let metadata = try Self.plist(fixture.url)
    #expect(metadata["NSPersistenceMaximumFrameworkVersion"] as? Int == 1518)
    #expect(metadata["AppSyncToken"] as? Data == Data([1, 2, 3]))
    #expect(metadata["NSPersistenceFrameworkVersion"] as? Int == 1044)
    #expect(metadata["NSStoreModelVersionHashes"] as? [String: Data] == version2.entityVersionHashesByName)
    // Opened again, the index the engine did not make stays even though the model has no such fetch index.
    try DatabaseQueue(path: fixture.url.path).write { try $0.execute(sql: "CREATE INDEX Z_Car_color ON ZCAR (ZMAKER)") }
    let again = NSPersistentStoreCoordinator(managedObjectModel: version2)
    try again.remove(
      try again.addPersistentStore(
        type: .sqlite, at: fixture.url,
        options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]))
    #expect(try Self.indexes(fixture.url)["Z_Car_color"] != nil)
  }

  @Test(
    "A store with Core Data's history: tracking on is refused; without tracking it opens read-only, as in Core Data, and a save says why; nothing is written",
    .needsFixtures)
  func coreDataHistoryStaysHonest() throws {
    let folder = try TemporaryFolder()
    let fixture = try Fixture(Fixtures.appleStoreFiles[0], in: folder)
    try DatabaseQueue(path: fixture.url.path).write { db in
      try db.execute(
        sql:
          "CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR )"
      )
      try db.execute(sql: "CREATE INDEX ATRANSACTION_ZTIMESTAMP_INDEX ON ATRANSACTION (ZTIMESTAMP)")
      try db.execute(sql: "INSERT INTO ATRANSACTION VALUES (1, 16002, 1, NULL, 1.5, NULL)")
    }
    try DatabaseQueue(path: fixture.url.path).writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = DELETE") }
    let bytes = try Data(contentsOf: fixture.url)
    let tracking = NSPersistentStoreCoordinator(managedObjectModel: fixture.model)
    let refusal = expectCode(.unsupportedFeature) {
      _ = try tracking.addPersistentStore(
        type: .sqlite, at: fixture.url,
        options: [
          NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
          NSPersistentHistoryTrackingKey: true,
        ])
    }
    #expect(refusal?.message.contains("Core Data recorded") == true)
    // Without tracking: read-only, every object readable, a save refused with the reason.
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: fixture.model)
    let store = try coordinator.addPersistentStore(type: .sqlite, at: fixture.url)
    #expect(store.storeOptions.readOnly)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait {
      let cars = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Car"))
      #expect(cars.count == 125)
      cars.first?.setValue("Changed", forKey: "model")
      let error = expectCode(.persistentStoreSave) { try context.save() }
      #expect(error?.message.contains("history") == true, "\(error?.message ?? "")")
    }
    try coordinator.remove(store)
    // A migration would write too: refused the same way.
    let version2 = try #require(
      try NSManagedObjectModel.versions(in: try Fixtures.sampleModelFolder().appendingPathComponent("SampleModel.xcdatamodeld"))
        .first { $0.name == "SampleModel2" }?.model)
    let migrating = NSPersistentStoreCoordinator(managedObjectModel: version2)
    let migration = expectCode(.persistentStoreIncompatibleVersionHash) {
      _ = try migrating.addPersistentStore(
        type: .sqlite, at: fixture.url,
        options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
    }
    #expect(migration?.message.contains("history") == true, "\(migration?.message ?? "")")
    #expect(try Data(contentsOf: fixture.url) == bytes)
  }

  @Test("A Core Data store without a model cache gets none of the engine's, and no engine key in its metadata", .needsFixtures)
  func noCacheAdded() throws {
    let folder = try TemporaryFolder()
    let fixture = try Fixture(Fixtures.appleStoreFiles[1], in: folder)
    try DatabaseQueue(path: fixture.url.path).write { try $0.execute(sql: "DELETE FROM Z_MODELCACHE") }
    let metadata = try rawRows(fixture.url, "SELECT Z_PLIST FROM Z_METADATA")[0]["Z_PLIST"] as Data
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: fixture.model)
    try coordinator.remove(try coordinator.addPersistentStore(type: .sqlite, at: fixture.url))
    #expect(try rawRows(fixture.url, "SELECT count(*) FROM Z_MODELCACHE")[0][0] as Int == 0)
    #expect(try rawRows(fixture.url, "SELECT Z_PLIST FROM Z_METADATA")[0]["Z_PLIST"] as Data == metadata)
  }

  /// Statements of a Core Data store that a store the engine makes for the same model does not have, by store.
  ///
  /// SyncMetadata (framework 1338) and Bookmarks (1251) have, beside each fetch index of one attribute
  /// (`byKey`, `byUUID`), an index `Z_<Entity>_<attribute>` on the same column, in the same order, that no
  /// version of the Xcode model names; the compiled model in each store's Z_MODELCACHE lists it as a fetch
  /// index of its own (the model compiler's doing). The engine does not add it: it indexes nothing more.
  static let onlyCoreDataMakes: [String: Set<String>] = [
    "Bookmarks_V2.sqlite": [
      "CREATE INDEX Z_BookmarkEntity_url ON ZBOOKMARKENTITY (ZURL COLLATE BINARY ASC)",
      "CREATE INDEX Z_BookmarkEntity_uuid ON ZBOOKMARKENTITY (ZUUID COLLATE BINARY ASC)",
    ],
    "SyncMetadata_V3.sqlite": [
      "CREATE INDEX Z_SyncFeatureEntity_name ON ZSYNCFEATUREENTITY (ZNAME COLLATE BINARY ASC)",
      "CREATE INDEX Z_SyncableSettingsMetadata_key ON ZSYNCABLESETTINGSMETADATA (ZKEY COLLATE BINARY ASC)",
    ],
  ]

  /// What `changeAndInsert` did, for the checks on the file.
  struct Change {
    /// Objects inserted, by the entity number of their table's root.
    let inserted: [Int64: Int64]
    /// The row changed and its version before, or `nil` when the store had no row to change.
    let changed: (table: String, key: Int64, version: Int64)?
  }

  /// Changes one row and inserts objects, as an app would, and saves.
  static func changeAndInsert(_ fixture: Fixture, context: NSManagedObjectContext) throws -> Change {
    try context.performAndWait {
      if fixture.model.entitiesByName["Person"] != nil {
        let cars = NSFetchRequest<NSManagedObject>(entityName: "Car")
        cars.sortDescriptors = [NSSortDescriptor(key: "numberPlate", ascending: true)]
        let car = try #require(try context.fetch(cars).first)
        let key = try #require(car.objectID.primaryKey)
        let version = try rawRows(fixture.url, "SELECT Z_OPT FROM ZCAR WHERE Z_PK = \(key)")[0]["Z_OPT"] as Int64
        car.setValue("Changed on Linux", forKey: "model")
        let personEntity = try #require(fixture.model.entitiesByName["Person"])
        let person = NSManagedObject(entity: personEntity, insertInto: context)
        person.setValue("Grace", forKey: "firstName")
        person.setValue("Hopper", forKey: "lastName")
        if personEntity.attributesByName["id"] != nil { person.setValue(UUID(), forKey: "id") }
        person.setValue(Date(timeIntervalSinceReferenceDate: 700_000_000), forKey: "updatedAt")
        person.setValue(Set([car]), forKey: "cars")
        try context.save()
        let number = try #require(context.persistentStoreCoordinator?.persistentStores.first?.schema.entities["Person"]?.number)
        return Change(inserted: [number: 1], changed: ("ZCAR", key, version))
      }
      guard fixture.model.entitiesByName["Author"] != nil else { return try changeAndInsertAny(fixture, context: context) }
      let author = NSManagedObject(entity: try #require(fixture.model.entitiesByName["Author"]), insertInto: context)
      author.setValue("Ada", forKey: "firstName")
      let book = NSManagedObject(entity: try #require(fixture.model.entitiesByName["Book"]), insertInto: context)
      book.setValue("Notes", forKey: "title")
      author.setValue(Set([book]), forKey: "books")
      try context.save()
      let key = try #require(book.objectID.primaryKey)
      book.setValue("Notes, revised", forKey: "title")
      try context.save()
      return Change(inserted: [1: 1, 2: 1], changed: ("ZBOOK", key, 1))
    }
  }

  /// Any other store: the first root entity (in number order) with a stored string attribute gets a new
  /// object, every required attribute without a default filled, and its first row, when it has one, a new
  /// value for that attribute.
  static func changeAndInsertAny(_ fixture: Fixture, context: NSManagedObjectContext) throws -> Change {
    let store = try #require(context.persistentStoreCoordinator?.persistentStores.first)
    let mappings = store.schema.entities.values.filter { $0.entity.superentity == nil && !$0.entity.isAbstract }.sorted {
      $0.number < $1.number
    }
    let mapping = try #require(
      mappings.first { mapping in
        mapping.entity.layout.slots.contains { $0.attribute?.attributeType == .stringAttributeType && $0.isPersistent }
      })
    let entity = mapping.entity
    let text = try #require(entity.layout.slots.first { $0.attribute?.attributeType == .stringAttributeType && $0.isPersistent })
    let request = NSFetchRequest<NSManagedObject>(entityName: entity.entityName)
    request.sortDescriptors = [NSSortDescriptor(key: text.name, ascending: true)]
    var changed: (table: String, key: Int64, version: Int64)?
    if let first = try context.fetch(request).first {
      let key = try #require(first.objectID.primaryKey)
      let version = try rawRows(fixture.url, "SELECT Z_OPT FROM \(mapping.table) WHERE Z_PK = \(key)")[0]["Z_OPT"] as Int64
      first.setValue("Changed on Linux", forKey: text.name)
      changed = (mapping.table, key, version)
    }
    let object = NSManagedObject(entity: entity, insertInto: context)
    for slot in entity.layout.slots where slot.isPersistent && !slot.isOptional && slot.attribute?.defaultValue == nil {
      guard case .attribute(let type) = slot.kind else { continue }
      let value: Any? =
        switch type {
        case .stringAttributeType: "Inserted on Linux \(UUID().uuidString)"
        case .integer16AttributeType: Int16(1)
        case .integer32AttributeType: Int32(1)
        case .integer64AttributeType: Int64(1)
        case .booleanAttributeType: true
        case .doubleAttributeType: 1.5
        case .floatAttributeType: Float(1.5)
        case .dateAttributeType: Date(timeIntervalSinceReferenceDate: 700_000_000)
        case .decimalAttributeType: Decimal(string: "1.25")
        case .UUIDAttributeType: UUID()
        case .binaryDataAttributeType: Data([1, 2, 3])
        case .URIAttributeType: URL(string: "https://example.com")
        default: nil
        }
      object.setValue(value, forKey: slot.name)
    }
    if object.value(forKey: text.name) == nil { object.setValue("Inserted on Linux", forKey: text.name) }
    try context.save()
    return Change(inserted: [mapping.number: 1], changed: changed)
  }

  /// Every object of every entity, read through the engine, equals its row read with plain SQL: counts per
  /// entity, every attribute, every to-one's key and every to-many's members.
  static func expectEveryValueMatchesSQLite(_ fixture: Fixture, context: NSManagedObjectContext, store: NSPersistentStore) throws {
    let schema = store.schema
    try context.performAndWait {
      for entity in fixture.model.entities {
        let mapping = try #require(schema.entities[entity.entityName])
        let rows = try rawRows(fixture.url, "SELECT * FROM \(mapping.table) WHERE Z_ENT = \(mapping.number) ORDER BY Z_PK")
        let request = NSFetchRequest<NSManagedObject>(entityName: entity.entityName)
        request.includesSubentities = false
        let objects = try context.fetch(request).sorted { ($0.objectID.primaryKey ?? 0) < ($1.objectID.primaryKey ?? 0) }
        #expect(objects.count == rows.count, "\(fixture.name): \(entity.entityName) count")
        #expect(try context.count(for: request) == rows.count, "\(fixture.name): \(entity.entityName) count(for:)")
        for (object, row) in zip(objects, rows) {
          #expect(object.objectID.primaryKey == row["Z_PK"], "\(fixture.name): \(entity.entityName) keys")
          for (slot, storage) in zip(entity.layout.slots, mapping.storage) {
            let value = object.value(forKey: slot.name)
            switch storage {
            case .column(let column):
              guard let attribute = slot.attribute else { continue }
              #expect(
                Self.same(value, row[column] as DatabaseValue, attribute.attributeType),
                "\(fixture.name): \(entity.entityName).\(slot.name) of \(row["Z_PK"] as Int64): \(String(describing: value)) vs \(row[column] as DatabaseValue)"
              )
            case .toOne(let column, _):
              let key: Int64? = row[column]
              #expect((value as? NSManagedObject)?.objectID.primaryKey == key, "\(fixture.name): \(entity.entityName).\(slot.name)")
            case .foreignKeyOnDestination(let column, _):
              guard let destination = slot.relationship?.destinationEntity, let other = schema.entities[destination.entityName] else {
                continue
              }
              let members = try rawRows(fixture.url, "SELECT Z_PK FROM \(other.table) WHERE \(column) = \(row["Z_PK"] as Int64)")
              #expect(Self.memberCount(value) == members.count, "\(fixture.name): \(entity.entityName).\(slot.name)")
            case .joinTable(let join, _):
              let members = try rawRows(fixture.url, "SELECT * FROM \(join.name) WHERE \(join.sourceColumn) = \(row["Z_PK"] as Int64)")
              #expect(Self.memberCount(value) == members.count, "\(fixture.name): \(entity.entityName).\(slot.name)")
            case .none:
              continue
            }
          }
        }
      }
    }
  }

  /// The number of members of a to-many's value, a set or an ordered set; `nil` for anything else.
  static func memberCount(_ value: Any?) -> Int? {
    (value as? Set<NSManagedObject>)?.count ?? (value as? NSOrderedSet)?.count
  }

  /// Whether an attribute's value, read through the engine, is what the column holds, as Core Data stores it.
  static func same(_ value: Any?, _ stored: DatabaseValue, _ type: NSAttributeType) -> Bool {
    guard !stored.isNull else { return value == nil }
    switch type {
    case .stringAttributeType, .URIAttributeType:
      return (value as? String ?? (value as? URL)?.absoluteString) == String.fromDatabaseValue(stored)
    case .integer16AttributeType: return (value as? Int16).map(Int64.init) == Int64.fromDatabaseValue(stored)
    case .integer32AttributeType: return (value as? Int32).map(Int64.init) == Int64.fromDatabaseValue(stored)
    case .integer64AttributeType: return value as? Int64 == Int64.fromDatabaseValue(stored)
    case .booleanAttributeType: return value as? Bool == Int64.fromDatabaseValue(stored).map { $0 != 0 }
    case .doubleAttributeType: return value as? Double == Double.fromDatabaseValue(stored)
    case .floatAttributeType: return (value as? Float).map(Double.init) == Double.fromDatabaseValue(stored).map { Double(Float($0)) }
    case .dateAttributeType: return (value as? Date)?.timeIntervalSinceReferenceDate == Double.fromDatabaseValue(stored)
    case .UUIDAttributeType: return (value as? UUID).map { withUnsafeBytes(of: $0.uuid) { Data($0) } } == Data.fromDatabaseValue(stored)
    case .binaryDataAttributeType: return value as? Data == Data.fromDatabaseValue(stored)
    default: return value != nil
    }
  }

  /// What `Z_MODELCACHE` holds, or `nil` when the store has none (Core Data before framework 600 made none).
  static func modelCache(_ url: URL) throws -> Data? {
    guard try rawRows(url, "SELECT count(*) FROM sqlite_master WHERE name = 'Z_MODELCACHE'")[0][0] as Int == 1 else { return nil }
    return try rawRows(url, "SELECT Z_CONTENT FROM Z_MODELCACHE")[0]["Z_CONTENT"] as Data
  }

  static func indexes(_ url: URL) throws -> [String: String] {
    Dictionary(
      try rawRows(url, "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").map { ($0["name"], $0["sql"]) },
      uniquingKeysWith: { first, _ in first })
  }

  /// The highest `Z_PK` of each root entity's table, by the entity's number.
  static func highestKeys(_ url: URL) throws -> [Int64: Int64] {
    var keys: [Int64: Int64] = [:]
    for row in try rawRows(url, "SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY WHERE Z_SUPER = 0") {
      let table = "Z" + (row["Z_NAME"] as String).uppercased()
      if let highest = try? rawRows(url, "SELECT max(Z_PK) FROM \(table)")[0][0] as Int64? { keys[row["Z_ENT"]] = highest }
    }
    return keys
  }

  static func maxima(_ url: URL) throws -> [Int64: Int64] {
    Dictionary(
      try rawRows(url, "SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY").map { ($0["Z_ENT"], $0["Z_MAX"]) }, uniquingKeysWith: { a, _ in a })
  }

  static func plist(_ url: URL) throws -> [String: Any] {
    let data = try rawRows(url, "SELECT Z_PLIST FROM Z_METADATA")[0]["Z_PLIST"] as Data
    return try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
  }
}
