import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// Core Data's model cache (`Z_MODELCACHE`: the compiled model, raw DEFLATE of a `.mom` archive) read as the
/// model that made the store, and used, as Core Data uses it, to migrate a store whose model version the app
/// no longer ships.
@Suite("Core Data's model cache", .temporaryFolders)
struct ModelCacheTests {
  /// A fixture store that has a model cache, with its folder (the framework version is for messages).
  struct CachedStore {
    let folder: String
    let store: String
    let framework: Int
    /// The `.xcdatamodeld` in the folder and its version that made the store.
    var model = ""
    var version = ""
  }

  /// Every fixture store with a `Z_MODELCACHE` (the Artsy stores, framework 479, have none).
  static func cachedStores() throws -> [CachedStore] {
    [
      CachedStore(
        folder: "alemar11__CoreDataPlus__SampleModel", store: "SampleModel_V1.sqlite", framework: 1044, model: "SampleModel.xcdatamodeld",
        version: "SampleModel"),
      CachedStore(
        folder: "alemar11__CoreDataPlus__SampleModel", store: "SampleModel_V2.sqlite", framework: 1044, model: "SampleModel.xcdatamodeld",
        version: "SampleModel2"),
      CachedStore(
        folder: "bignerdranch__CoreDataStack__TestModel", store: "TestModel.sqlite", framework: 637, model: "Sample.xcdatamodeld",
        version: "TestModel"),
      CachedStore(
        folder: "duckduckgo__BrowserServicesKit__Bookmarks", store: "Bookmarks_V2.sqlite", framework: 1251,
        model: "BookmarksModel.xcdatamodeld", version: "BookmarksModel 2"),
      CachedStore(
        folder: "duckduckgo__BrowserServicesKit__SyncMetadata", store: "SyncMetadata_V3.sqlite", framework: 1338,
        model: "SyncMetadata.xcdatamodeld", version: "SyncMetadata 3"),
    ]
  }

  /// Copies a fixture store, with the `-wal` and `-shm` files committed beside it, into `folder` (as writable
  /// files, whatever the fixture's permissions).
  static func copy(_ store: CachedStore, into folder: TemporaryFolder) throws -> URL {
    let source = try Fixtures.appleStores().appendingPathComponent(store.folder)
    try copyStoreFiles(source.appendingPathComponent(store.store), to: folder.appending(store.store))
    return folder.appending(store.store)
  }

  /// Every file of `folder` with its bytes (the `-shm` file by name only), to show that nothing was written or
  /// left beside a store.
  static func contents(of folder: TemporaryFolder) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.url.path) {
      var isDirectory: ObjCBool = false
      let url = folder.appending(name)
      // The -shm file is SQLite's shared-memory index of the WAL, rebuilt by any reader: not the store's data.
      if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue, !name.hasSuffix("-shm") {
        files[name] = try Data(contentsOf: url)
      } else if name.hasSuffix("-shm") {
        files[name] = Data()
      }
    }
    return files
  }

  /// The version of its `.xcdatamodeld` that made a fixture store.
  static func bundledVersion(of store: CachedStore) throws -> NSManagedObjectModel {
    let bundle = try Fixtures.appleStores().appendingPathComponent(store.folder).appendingPathComponent(store.model)
    return try #require(try NSManagedObjectModel.versions(in: bundle).first { $0.name == store.version }?.model)
  }

  @Test(
    "Each fixture store's cache (frameworks 637, 1044, 1251, 1338) reads to a model whose entity version hashes are the store's; the file is not changed",
    .needsFixtures)
  func cachesRead() throws {
    for store in try Self.cachedStores() {
      let folder = try TemporaryFolder()
      let url = try Self.copy(store, into: folder)
      let before = try Self.contents(of: folder)
      let metadata = try NSPersistentStore.readMetadata(url: url)
      #expect(metadata["NSPersistenceFrameworkVersion"] as? Int == store.framework, "\(store.store)")
      let hashes = try #require(metadata[NSStoreModelVersionHashesKey] as? [String: Data], "\(store.store)")
      let model = try #require(try StoreModelCache.load(url: url), "\(store.store): no model read from its cache")
      #expect(model.entityVersionHashesByName == hashes, "\(store.store): the cache's model is not the one that made the store")
      #expect(StoreModelCache.read(url: url)?.entityVersionHashesByName == hashes, "\(store.store)")
      #expect(try Self.contents(of: folder) == before, "\(store.store): a file was changed or left beside the store")
    }
  }

  @Test(
    "Each fixture store's cache reads to the version of its .xcdatamodeld that made the store, field for field, and names the store's fetch indexes",
    .needsFixtures)
  func cacheIsTheVersion() throws {
    for store in try Self.cachedStores() {
      let folder = try TemporaryFolder()
      let url = try Self.copy(store, into: folder)
      let cached = try #require(try StoreModelCache.load(url: url))
      // Two fields may differ. A cache Core Data wrote in a migration names no classes (SampleModel_V2.sqlite's);
      // and a cache may list more fetch indexes than the version's source (Bookmarks_V2.sqlite's `uuid` and
      // `url` beside `byUUID` and `byURL`): the store has them all, as checked below. Neither is a version hash
      // input or anything a migration source needs.
      let fields = { (model: NSManagedObjectModel) in
        CompiledModelTests.fields(of: model).filter { !$0.contains(" class ") && !$0.contains(" indexes ") }
      }
      let (mine, theirs) = (fields(cached), fields(try Self.bundledVersion(of: store)))
      #expect(
        mine == theirs,
        "\(store.store): only in the cache's model \(mine.filter { !theirs.contains($0) }), only in the version \(theirs.filter { !mine.contains($0) })"
      )
      let storeIndexes = Set(try rawRows(url, "SELECT name FROM sqlite_master WHERE type = 'index'").map { $0["name"] as String })
      for entity in cached.entities {
        for index in entity.indexes {
          #expect(
            storeIndexes.contains("Z_\(entity.entityName)_\(index.name)"), "\(store.store): index \(index.name) of \(entity.entityName)")
        }
      }
    }
  }

  /// A copy of SampleModel.xcdatamodeld without the version `SampleModel`, which made SampleModel_V1.sqlite:
  /// only `SampleModel2` (current) and `SampleModel3`, as an app that stopped shipping its first version.
  static func bundleWithoutFirstVersion(in folder: TemporaryFolder) throws -> URL {
    let source = try CompiledModelTests.xcdatamodeld()
    let bundle = folder.appending("SampleModel.xcdatamodeld")
    for version in ["SampleModel2.xcdatamodel", "SampleModel3.xcdatamodel"] {
      let target = bundle.appendingPathComponent(version, isDirectory: true)
      try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
      for name in try FileManager.default.contentsOfDirectory(atPath: source.appendingPathComponent(version).path) {
        try Data(contentsOf: source.appendingPathComponent(version).appendingPathComponent(name))
          .write(to: target.appendingPathComponent(name))
      }
    }
    let current = """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0">
      <dict>
      	<key>_XCCurrentVersionName</key>
      	<string>SampleModel2.xcdatamodel</string>
      </dict>
      </plist>
      """
    try Data(current.utf8).write(to: bundle.appendingPathComponent(".xccurrentversion"))
    return bundle
  }

  static func registerColorTransformer() {
    // The app registers its own transformer for Car.color; a stand-in does here (every stored value is NULL).
    if AttributeValueTransformer.valueTransformer(forName: "ColorTransformer") == nil {
      AttributeValueTransformer.setValueTransformer(UTF8Transformer(), forName: "ColorTransformer")
    }
  }

  @Test(
    "A store whose model version is gone from the bundle migrates from Core Data's cache, with the counts Core Data's own migration gave",
    .needsFixtures)
  func migratesFromCache() throws {
    Self.registerColorTransformer()
    let folder = try TemporaryFolder()
    let url = try Self.copy(
      CachedStore(folder: "alemar11__CoreDataPlus__SampleModel", store: "SampleModel_V1.sqlite", framework: 1044), into: folder)
    let bundle = try Self.bundleWithoutFirstVersion(in: folder)
    let model = try NSManagedObjectModel(loadingContentsOf: bundle)
    #expect(try NSManagedObjectModel.versions(in: bundle).map(\.name) == ["SampleModel2", "SampleModel3"])
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let store = try coordinator.addPersistentStore(
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
    try coordinator.remove(store)
    #expect(
      try NSPersistentStore.readMetadata(url: url)[NSStoreModelVersionHashesKey] as? [String: Data] == model.entityVersionHashesByName)
    #expect(try rawRows(url, "PRAGMA integrity_check")[0][0] as String == "ok")
    // The old cache no longer describes the store: the migration replaced it with the new model.
    #expect(StoreModelCache.read(url: url)?.entityVersionHashesByName == model.entityVersionHashesByName)
  }

  @Test(
    "A damaged cache is no source: the open fails with 'no source model' (134130), the file unchanged, and the cache's reader says what is wrong",
    .needsFixtures)
  func damagedCache() throws {
    Self.registerColorTransformer()
    let damages: [(what: String, reason: String, change: (Data) -> Data)] = [
      (
        "bytes changed", "is not readable compressed data (raw DEFLATE)",
        { data in
          var data = data
          for index in stride(from: data.startIndex + 40, to: data.endIndex - 40, by: 97) { data[index] ^= 0x5A }
          return data
        }
      ),
      ("cut short", "cut short", { $0.prefix($0.count / 2) }),
      // A valid stored block of bytes that are no property list.
      ("not a model", "not a readable binary property list", { _ in Data([0x01, 0x05, 0x00, 0xFA, 0xFF]) + Data("hello".utf8) }),
    ]
    for damage in damages {
      let folder = try TemporaryFolder()
      let url = try Self.copy(
        CachedStore(folder: "alemar11__CoreDataPlus__SampleModel", store: "SampleModel_V1.sqlite", framework: 1044), into: folder)
      try DatabaseQueue(path: url.path).write { db in
        let cache = try #require(try StoreModelCache.stored(in: db))
        try db.execute(sql: "UPDATE Z_MODELCACHE SET Z_CONTENT = ?", arguments: [damage.change(cache)])
      }
      let bundle = try Self.bundleWithoutFirstVersion(in: folder)
      let before = try Self.contents(of: folder)
      let error = #expect(throws: ObjectGraphError.self, "\(damage.what)") { try StoreModelCache.load(url: url) }
      #expect(error?.code == .modelInvalid, "\(damage.what)")
      #expect(error?.message.contains("Z_MODELCACHE") == true, "\(damage.what): \(error?.message ?? "")")
      #expect(error?.message.contains(damage.reason) == true, "\(damage.what): \(error?.message ?? "")")
      #expect(StoreModelCache.read(url: url) == nil)
      let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try NSManagedObjectModel(loadingContentsOf: bundle))
      let refusal = expectCode(.migrationMissingSourceModel) {
        _ = try coordinator.addPersistentStore(
          type: .sqlite, at: url,
          options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
      }
      #expect(refusal?.message.contains("the model kept in the store") == true, "\(refusal?.message ?? "")")
      #expect(try Self.contents(of: folder) == before, "\(damage.what): the store was written")
    }
  }
}
