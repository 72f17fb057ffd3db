import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// The bookmarks store Core Data wrote (`duckduckgo__BrowserServicesKit__Bookmarks`, framework 1251, WAL mode) opens
/// with the model version that made it, `BookmarksModel 2`, whose entity has two ordered to-manys (`children`,
/// `favorites`) and two attributes with a version hash modifier: every value, and each ordered to-many in the
/// order its `Z_FOK_` column keeps, is what SQLite holds, read-only and read-write.
@Suite("The bookmarks store Core Data wrote", .temporaryFolders)
struct BookmarksStoreTests {
  static let fixtureFolder = "duckduckgo__BrowserServicesKit__Bookmarks"
  static let version = "BookmarksModel 2"

  /// A copy of `Bookmarks_V2.sqlite` and its `-wal` and `-shm` (the store's last transactions are in the
  /// `-wal`), with the model version that made it.
  struct Fixture {
    let url: URL
    let model: NSManagedObjectModel

    init(in folder: TemporaryFolder) throws {
      let source = try Fixtures.appleStores().appendingPathComponent(BookmarksStoreTests.fixtureFolder)
      let versions = try NSManagedObjectModel.versions(in: source.appendingPathComponent("BookmarksModel.xcdatamodeld"))
      model = try #require(versions.first { $0.name == BookmarksStoreTests.version }?.model)
      url = folder.appending("Bookmarks_V2.sqlite")
      try copyStoreFiles(source.appendingPathComponent("Bookmarks_V2.sqlite"), to: url)
    }
  }

  /// One `ZBOOKMARKENTITY` row as `sqlite3` shows it (`SELECT * FROM ZBOOKMARKENTITY`).
  struct Bookmark: Equatable, CustomStringConvertible {
    var key: Int64
    var isFavorite: Bool
    var isFolder: Bool
    var title: String?
    var url: String?
    var uuid: String?
    var parent: Int64?
    var favoriteFolder: Int64?
    /// The members' primary keys, in the relationship's order.
    var children: [Int64]
    var favorites: [Int64]

    var description: String {
      "#\(key) fav \(isFavorite) folder \(isFolder) \(title ?? "nil") \(url ?? "nil") \(uuid ?? "nil") parent \(parent.map(String.init) ?? "nil") "
        + "favoriteFolder \(favoriteFolder.map(String.init) ?? "nil") children \(children) favorites \(favorites)"
    }
  }

  /// The ten rows of the fixture, as `sqlite3` prints them; the to-manys in the order of `Z_FOK_PARENT` and
  /// `Z_FOK_FAVORITEFOLDER` (1024 apart, as Core Data numbers positions).
  static let sqlite3Rows: [Bookmark] = [
    Bookmark(
      key: 1, isFavorite: false, isFolder: true, title: "3", url: nil, uuid: "3", parent: 5, favoriteFolder: nil,
      children: [10, 8, 6], favorites: []),
    Bookmark(
      key: 2, isFavorite: false, isFolder: false, title: "1", url: "1", uuid: "1", parent: 5, favoriteFolder: nil,
      children: [], favorites: []),
    Bookmark(
      key: 3, isFavorite: true, isFolder: false, title: "5", url: "5", uuid: "5", parent: 5, favoriteFolder: 7,
      children: [], favorites: []),
    Bookmark(
      key: 4, isFavorite: true, isFolder: false, title: "4", url: "4", uuid: "4", parent: 5, favoriteFolder: 7,
      children: [], favorites: []),
    Bookmark(
      key: 5, isFavorite: false, isFolder: true, title: "bookmarks_root", url: nil, uuid: "bookmarks_root", parent: nil,
      favoriteFolder: nil, children: [2, 9, 1, 4, 3], favorites: []),
    Bookmark(
      key: 6, isFavorite: true, isFolder: false, title: "33", url: "33", uuid: "33", parent: 1, favoriteFolder: 7,
      children: [], favorites: []),
    Bookmark(
      key: 7, isFavorite: false, isFolder: true, title: "favorites_root", url: nil, uuid: "favorites_root", parent: nil,
      favoriteFolder: nil, children: [], favorites: [3, 4, 6, 8, 9]),
    Bookmark(
      key: 8, isFavorite: true, isFolder: false, title: "32", url: "32", uuid: "32", parent: 1, favoriteFolder: 7,
      children: [], favorites: []),
    Bookmark(
      key: 9, isFavorite: true, isFolder: false, title: "2", url: "2", uuid: "2", parent: 5, favoriteFolder: 7,
      children: [], favorites: []),
    Bookmark(
      key: 10, isFavorite: false, isFolder: true, title: "31", url: nil, uuid: "31", parent: 1, favoriteFolder: nil,
      children: [], favorites: []),
  ]

  /// Every bookmark read with plain SQL: the columns, and each to-many as the rows pointing at it, ordered
  /// by the `Z_FOK_` column next to the pointer.
  static func bookmarksBySQL(_ url: URL) throws -> [Bookmark] {
    let rows = try rawRows(url, "SELECT * FROM ZBOOKMARKENTITY ORDER BY Z_PK")
    func members(_ pointer: String, of key: Int64) throws -> [Int64] {
      try rawRows(url, "SELECT Z_PK FROM ZBOOKMARKENTITY WHERE Z\(pointer) = \(key) ORDER BY Z_FOK_\(pointer)").map { $0[0] }
    }
    return try rows.map { row in
      let key: Int64 = row["Z_PK"]
      return Bookmark(
        key: key, isFavorite: (row["ZISFAVORITE"] as Int64?) == 1, isFolder: (row["ZISFOLDER"] as Int64?) == 1,
        title: row["ZTITLE"], url: row["ZURL"], uuid: row["ZUUID"], parent: row["ZPARENT"],
        favoriteFolder: row["ZFAVORITEFOLDER"], children: try members("PARENT", of: key),
        favorites: try members("FAVORITEFOLDER", of: key))
    }
  }

  /// Every bookmark as the engine reads it (`value(forKey:)`, as ported code does), by primary key.
  static func bookmarksByEngine(_ context: NSManagedObjectContext) throws -> [Bookmark] {
    try context.performAndWait {
      let objects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "BookmarkEntity"))
      func key(_ object: Any?) -> Int64? { (object as? NSManagedObject)?.objectID.primaryKey }
      func keys(_ value: Any?) -> [Int64] { ((value as? NSOrderedSet)?.array ?? []).compactMap(key) }
      return try objects.map { object in
        Bookmark(
          key: try #require(object.objectID.primaryKey),
          isFavorite: try #require(object.value(forKey: "isFavorite") as? Bool),
          isFolder: try #require(object.value(forKey: "isFolder") as? Bool),
          title: object.value(forKey: "title") as? String, url: object.value(forKey: "url") as? String,
          uuid: object.value(forKey: "uuid") as? String, parent: key(object.value(forKey: "parent")),
          favoriteFolder: key(object.value(forKey: "favoriteFolder")), children: keys(object.value(forKey: "children")),
          favorites: keys(object.value(forKey: "favorites")))
      }.sorted { $0.key < $1.key }
    }
  }

  @Test("Read-only, every value and each ordered to-many's order is what SQLite holds; no byte changes", .needsFixtures)
  func readOnly() throws {
    let folder = try TemporaryFolder()
    let fixture = try Fixture(in: folder)
    #expect(try Self.bookmarksBySQL(fixture.url) == Self.sqlite3Rows, "the fixture is the file described here")
    let bytes = try ["", "-wal", "-shm"].map { try Data(contentsOf: URL(fileURLWithPath: fixture.url.path + $0)) }
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: fixture.model)
    let store = try coordinator.addPersistentStore(
      type: .sqlite, at: fixture.url,
      options: [
        NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true,
        NSReadOnlyPersistentStoreOption: true,
      ])
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    let read = try Self.bookmarksByEngine(context)
    #expect(read == Self.sqlite3Rows, "\(read.map(\.description).joined(separator: "\n"))")
    try coordinator.remove(store)
    #expect(try ["", "-wal"].map { try Data(contentsOf: URL(fileURLWithPath: fixture.url.path + $0)) } == Array(bytes.prefix(2)))
  }

  @Test(
    "Read-write, a change and an insert into both ordered to-manys are saved, read back after a reopen, and the file checks ok",
    .needsFixtures)
  func readWrite() throws {
    let folder = try TemporaryFolder()
    let fixture = try Fixture(in: folder)
    let hashes = try CoreDataVersionHashTests.storedHashes(fixture.url)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: fixture.model)
    let store = try coordinator.addPersistentStore(
      type: .sqlite, at: fixture.url,
      options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    #expect(try Self.bookmarksByEngine(context) == Self.sqlite3Rows)
    try context.performAndWait {
      let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "BookmarkEntity"))
      let byKey = Dictionary(uniqueKeysWithValues: all.compactMap { object in object.objectID.primaryKey.map { ($0, object) } })
      let changed = try #require(byKey[2])
      let root = try #require(byKey[5])
      let favoritesRoot = try #require(byKey[7])
      changed.setValue("Changed on Linux", forKey: "title")
      let inserted = NSManagedObject(entity: try #require(fixture.model.entitiesByName["BookmarkEntity"]), insertInto: context)
      inserted.setValue(true, forKey: "isFavorite")
      inserted.setValue(false, forKey: "isFolder")
      inserted.setValue("Swift", forKey: "title")
      inserted.setValue("https://swift.org", forKey: "url")
      inserted.setValue("swift-org", forKey: "uuid")
      // Setting the to-one puts the bookmark at the end of its inverse, the ordered to-many.
      inserted.setValue(root, forKey: "parent")
      inserted.setValue(favoritesRoot, forKey: "favoriteFolder")
      try context.save()
    }
    try coordinator.remove(store)

    #expect(try rawRows(fixture.url, "PRAGMA integrity_check")[0][0] as String == "ok")
    var expected = Self.sqlite3Rows
    expected[1].title = "Changed on Linux"
    expected[4].children.append(11)
    expected[6].favorites.append(11)
    expected.append(
      Bookmark(
        key: 11, isFavorite: true, isFolder: false, title: "Swift", url: "https://swift.org", uuid: "swift-org", parent: 5,
        favoriteFolder: 7, children: [], favorites: []))
    #expect(try Self.bookmarksBySQL(fixture.url) == expected, "what SQLite holds after the save")
    // Core Data reads a list in the order of its positions: the new member's is the list's greatest, and no
    // two members share one.
    for (pointer, list) in [("PARENT", 5), ("FAVORITEFOLDER", 7)] {
      let positions: [Int64?] = try rawRows(
        fixture.url, "SELECT Z_FOK_\(pointer) FROM ZBOOKMARKENTITY WHERE Z\(pointer) = \(list) ORDER BY Z_PK"
      ).map { $0[0] }
      let new = try rawRows(fixture.url, "SELECT Z_FOK_\(pointer) FROM ZBOOKMARKENTITY WHERE Z_PK = 11")[0][0] as Int64?
      #expect(new != nil && new == positions.compactMap { $0 }.max(), "Z_FOK_\(pointer): \(positions)")
      #expect(Set(positions).count == positions.count && !positions.contains(nil), "Z_FOK_\(pointer): \(positions)")
    }
    #expect(try rawRows(fixture.url, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 1")[0][0] as Int64 == 11)
    #expect(try CoreDataVersionHashTests.storedHashes(fixture.url) == hashes, "the metadata keeps Core Data's hashes")

    let again = NSPersistentStoreCoordinator(managedObjectModel: fixture.model)
    let reopened = try again.addPersistentStore(
      type: .sqlite, at: fixture.url,
      options: [NSReadOnlyPersistentStoreOption: true])
    let reader = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    reader.persistentStoreCoordinator = again
    #expect(try Self.bookmarksByEngine(reader) == expected, "what the engine reads back")
    try again.remove(reopened)
  }
}
