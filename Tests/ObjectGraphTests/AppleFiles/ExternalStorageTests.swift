import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// Attributes that allow external storage keep their values as Core Data's SQLite store keeps them: one tag
/// byte, then the bytes in the row (`01`) or the name of a file in `.<store>_SUPPORT/_EXTERNAL_DATA/` (`02`).
@Suite("Values of attributes that allow external storage", .temporaryFolders)
struct ExternalStorageTests {
  /// Photo (name, image allowing external storage, thumbnail not); `captioned` adds a caption (a new version).
  static func model(captioned: Bool = false) throws -> NSManagedObjectModel {
    let image = NSAttributeDescription(name: "image", type: .binaryData)
    image.allowsExternalBinaryDataStorage = true
    var properties: [NSPropertyDescription] = [
      .attribute(NSAttributeDescription(name: "name", type: .string)),
      .attribute(image),
      .attribute(NSAttributeDescription(name: "thumbnail", type: .binaryData)),
    ]
    if captioned { properties.append(.attribute(NSAttributeDescription(name: "caption", type: .string))) }
    return try NSManagedObjectModel(entities: [NSEntityDescription(name: "Photo", properties: properties)])
  }

  /// Makes the store at `url` what the engine wrote before it tagged values: bare bytes, format 2.
  static func untag(_ url: URL) throws {
    try write(url, "UPDATE ZPHOTO SET ZIMAGE = substr(ZIMAGE, 2) WHERE ZIMAGE IS NOT NULL")
    let queue = try DatabaseQueue(path: url.path)
    try queue.write { try StoreMetadata.update(in: $0, with: [ObjectGraphStoreFormatVersionKey: 2], url: url) }
    try queue.close()
  }

  /// Saves one photo per value of `images` (named by its position) and returns the stack.
  static func store(_ images: [Data?], folder: TemporaryFolder) throws -> StoreStack {
    let stack = try StoreStack(model: try model(), folder: folder, fileName: "Photos.sqlite")
    try stack.context.performAndWait {
      for (index, image) in images.enumerated() {
        let photo = NSManagedObject(entity: stack.model.entitiesByName["Photo"]!, insertInto: stack.context)
        photo.setValue("\(index)", forKey: "name")
        photo.setValue(image, forKey: "image")
        photo.setValue(image, forKey: "thumbnail")
      }
      try stack.context.save()
    }
    return stack
  }

  /// Each photo's image by name, fetched in a new context of `coordinator`.
  static func images(_ coordinator: NSPersistentStoreCoordinator) throws -> [String: Data?] {
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return try context.performAndWait {
      let photos = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo"))
      return Dictionary(uniqueKeysWithValues: photos.map { ($0.value(forKey: "name") as! String, $0.value(forKey: "image") as? Data) })
    }
  }

  /// The raw column of each photo, by name.
  static func columns(_ url: URL, _ column: String = "ZIMAGE") throws -> [String: Data?] {
    Dictionary(
      uniqueKeysWithValues: try rawRows(url, "SELECT ZNAME, \(column) FROM ZPHOTO").map { ($0[0] as String, $0[1] as Data?) })
  }

  /// Writes `sql` to the store file, outside the engine.
  static func write(_ url: URL, _ sql: String, _ arguments: StatementArguments = []) throws {
    let queue = try DatabaseQueue(path: url.path)
    try queue.write { try $0.execute(sql: sql, arguments: arguments) }
    try queue.close()
  }

  @Test("A value is written tagged in its row (01, then its bytes) and reads back byte for byte; other binary attributes stay bare")
  func inRow() throws {
    let folder = try TemporaryFolder()
    let tricky = Data([1, 2, 0, 255])
    let large = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    let stack = try Self.store([Data("pixels".utf8), tricky, Data(), nil, large], folder: folder)
    let columns = try Self.columns(stack.storeURL)
    #expect(columns["0"] == Data([1]) + Data("pixels".utf8))
    #expect(columns["1"] == Data([1]) + tricky)
    #expect(columns["2"] == Data([1]))
    #expect(columns["3"] == Data??.some(nil))
    #expect(columns["4"] == Data([1]) + large, "the engine keeps every value in its row, as Core Data may")
    #expect(try Self.columns(stack.storeURL, "ZTHUMBNAIL")["1"] == tricky)
    let expected: [String: Data?] = ["0": Data("pixels".utf8), "1": tricky, "2": Data(), "3": nil, "4": large]
    #expect(try Self.images(stack.coordinator) == expected)
    #expect(!FileManager.default.fileExists(atPath: folder.appending(".Photos_SUPPORT").path))
    #expect(try NSPersistentStore.readMetadata(url: stack.storeURL)[ObjectGraphStoreFormatVersionKey] as? Int == 3)
  }

  @Test("A row naming a file of the store's external data folder (02, then a UUID) reads the file, with or without a NUL after the name")
  func inFile() throws {
    let folder = try TemporaryFolder()
    let stack = try Self.store([Data("a".utf8), Data("b".utf8)], folder: folder)
    try stack.coordinator.remove(stack.store)
    let external = folder.appending(".Photos_SUPPORT/_EXTERNAL_DATA")
    try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
    let first = "5F3C1A9E-2B7D-4C8E-9A10-3D4E5F6A7B8C"
    let second = "0A1B2C3D-4E5F-4061-8293-A4B5C6D7E8F9"
    try Data("from a file".utf8).write(to: external.appendingPathComponent(first))
    try Data([9, 8, 7]).write(to: external.appendingPathComponent(second))
    try Self.write(stack.storeURL, "UPDATE ZPHOTO SET ZIMAGE = ? WHERE ZNAME = '0'", [Data([2]) + Data(first.utf8) + Data([0])])
    try Self.write(stack.storeURL, "UPDATE ZPHOTO SET ZIMAGE = ? WHERE ZNAME = '1'", [Data([2]) + Data(second.utf8)])
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: stack.model)
    _ = try coordinator.addPersistentStore(type: .sqlite, at: stack.storeURL)
    #expect(try Self.images(coordinator) == ["0": Data("from a file".utf8), "1": Data([9, 8, 7])])
    // A dictionary fetch reads them the same way.
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    let rows = try context.performAndWait {
      let request = NSFetchRequest<NSDictionary>(entityName: "Photo")
      request.resultType = .dictionaryResultType
      request.propertiesToFetch = ["name", "image"]
      return try context.fetch(request)
    }
    let byName = Dictionary(uniqueKeysWithValues: rows.map { ($0["name"] as? String ?? "", $0["image"] as? Data) })
    #expect(byName == ["0": Data("from a file".utf8), "1": Data([9, 8, 7])])
  }

  @Test("A missing file reads as nil with a warning naming it, and a save that does not set the attribute keeps the reference")
  func missingFile() throws {
    let folder = try TemporaryFolder()
    let stack = try Self.store([Data("a".utf8)], folder: folder)
    try stack.coordinator.remove(stack.store)
    let reference = Data([2]) + Data("5F3C1A9E-2B7D-4C8E-9A10-3D4E5F6A7B8C".utf8) + Data([0])
    try Self.write(stack.storeURL, "UPDATE ZPHOTO SET ZIMAGE = ?", [reference])
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: stack.model)
    _ = try coordinator.addPersistentStore(type: .sqlite, at: stack.storeURL)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    let lines = try ErrorLog.capturing {
      try context.performAndWait {
        let photo = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Photo")).first)
        #expect(photo.value(forKey: "image") == nil)
        photo.setValue("renamed", forKey: "name")
        try context.save()
      }
    }
    #expect(lines.contains { $0.contains("_EXTERNAL_DATA/5F3C1A9E-2B7D-4C8E-9A10-3D4E5F6A7B8C") && $0.contains("reads as nil") })
    #expect(try Self.columns(stack.storeURL)["renamed"] == reference)
  }

  @Test(
    "A store the engine wrote with bare values (format 2) reads them as they are read-only, and a read-write open tags them, changing no value"
  )
  func formatTwo() throws {
    let folder = try TemporaryFolder()
    let tricky = Data([1, 0x41])
    let stack = try Self.store([tricky, Data("plain".utf8), nil], folder: folder)
    try stack.coordinator.remove(stack.store)
    try Self.untag(stack.storeURL)
    #expect(try Self.columns(stack.storeURL)["0"] == tricky)

    let reader = NSPersistentStoreCoordinator(managedObjectModel: stack.model)
    _ = try reader.addPersistentStore(type: .sqlite, at: stack.storeURL, options: [NSReadOnlyPersistentStoreOption: true])
    #expect(try Self.images(reader) == ["0": tricky, "1": Data("plain".utf8), "2": nil])
    #expect(try Self.columns(stack.storeURL)["0"] == tricky, "a read-only open changes nothing")

    let writer = NSPersistentStoreCoordinator(managedObjectModel: stack.model)
    _ = try writer.addPersistentStore(type: .sqlite, at: stack.storeURL)
    let tagged: [String: Data?] = ["0": Data([1]) + tricky, "1": Data([1, 0x70, 0x6C, 0x61, 0x69, 0x6E]), "2": Data?.none]
    #expect(try Self.columns(stack.storeURL) == tagged)
    #expect(try NSPersistentStore.readMetadata(url: stack.storeURL)[ObjectGraphStoreFormatVersionKey] as? Int == 3)
    #expect(try Self.images(writer) == ["0": tricky, "1": Data("plain".utf8), "2": nil])
  }

  @Test("A format 2 store that needs a migration keeps its bare values through it, and the open that follows tags them")
  func formatTwoMigrated() throws {
    let folder = try TemporaryFolder()
    let tricky = Data([2, 0x41, 0x42])
    let stack = try Self.store([tricky], folder: folder)
    try stack.coordinator.remove(stack.store)
    try Self.untag(stack.storeURL)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.model(captioned: true))
    _ = try coordinator.addPersistentStore(type: .sqlite, at: stack.storeURL, options: StoreStack.migratingOptions)
    #expect(try Self.columns(stack.storeURL)["0"] == Data([1]) + tricky)
    #expect(try Self.images(coordinator) == ["0": tricky])
  }

  @Test("A Transformable attribute that allows external storage keeps its transformed bytes tagged, and reads back its value")
  func transformable() throws {
    let keywords = NSAttributeDescription(name: "keywords", type: .transformable)
    keywords.allowsExternalBinaryDataStorage = true
    let card = NSEntityDescription(
      name: "Card", properties: [.attribute(NSAttributeDescription(name: "title", type: .string)), .attribute(keywords)])
    let stack = try StoreStack(model: try NSManagedObjectModel(entities: [card]), folder: try TemporaryFolder())
    try stack.context.performAndWait {
      let object = NSManagedObject(entity: try #require(stack.model.entitiesByName["Card"]), insertInto: stack.context)
      object.setValue(["swift", "linux"], forKey: "keywords")
      try stack.context.save()
    }
    let column = try #require(try rawRows(stack.storeURL, "SELECT ZKEYWORDS FROM ZCARD").first?[0] as Data?)
    #expect(column.first == 1 && String(decoding: column.dropFirst().prefix(6), as: UTF8.self) == "bplist")
    let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    reader.persistentStoreCoordinator = stack.coordinator
    try reader.performAndWait {
      let object = try #require(try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Card")).first)
      #expect(object.value(forKey: "keywords") as? [String] == ["swift", "linux"])
    }
  }

  @Test("A batch update writes the value tagged")
  func batchUpdate() throws {
    let folder = try TemporaryFolder()
    let stack = try Self.store([Data("a".utf8)], folder: folder)
    try stack.context.performAndWait {
      let update = NSBatchUpdateRequest(entityName: "Photo")
      update.propertiesToUpdate = ["image": Data([2, 3])]
      _ = try stack.context.execute(update)
    }
    #expect(try Self.columns(stack.storeURL)["0"] == Data([1, 2, 3]))
    #expect(try Self.images(stack.coordinator) == ["0": Data([2, 3])])
  }

  @Test("Moving a store brings values kept in files into their rows; replacing one copies its folder; destroying one removes it")
  func files() throws {
    let folder = try TemporaryFolder()
    let stack = try Self.store([Data("a".utf8)], folder: folder)
    try stack.coordinator.remove(stack.store)
    let name = "5F3C1A9E-2B7D-4C8E-9A10-3D4E5F6A7B8C"
    let external = folder.appending(".Photos_SUPPORT/_EXTERNAL_DATA")
    try FileManager.default.createDirectory(at: external, withIntermediateDirectories: true)
    try Data("kept outside".utf8).write(to: external.appendingPathComponent(name))
    try Self.write(stack.storeURL, "UPDATE ZPHOTO SET ZIMAGE = ?", [Data([2]) + Data(name.utf8) + Data([0])])

    let replaced = folder.appending("Replaced.sqlite")
    try stack.coordinator.replacePersistentStore(at: replaced, withPersistentStoreFrom: stack.storeURL, type: .sqlite)
    #expect(FileManager.default.fileExists(atPath: folder.appending(".Replaced_SUPPORT/_EXTERNAL_DATA/\(name)").path))
    let second = NSPersistentStoreCoordinator(managedObjectModel: stack.model)
    _ = try second.addPersistentStore(type: .sqlite, at: replaced)
    #expect(try Self.images(second) == ["0": Data("kept outside".utf8)])

    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: stack.model)
    let store = try coordinator.addPersistentStore(type: .sqlite, at: stack.storeURL)
    let moved = folder.appending("Moved.sqlite")
    _ = try coordinator.migratePersistentStore(store, to: moved, options: nil, type: .sqlite)
    #expect(try Self.columns(moved)["0"] == Data([1]) + Data("kept outside".utf8))
    #expect(try Self.images(coordinator) == ["0": Data("kept outside".utf8)])

    try coordinator.destroyPersistentStore(at: stack.storeURL, type: .sqlite, options: nil)
    #expect(!FileManager.default.fileExists(atPath: folder.appending(".Photos_SUPPORT").path))
    #expect(FileManager.default.fileExists(atPath: folder.appending(".Replaced_SUPPORT").path))
  }
}
