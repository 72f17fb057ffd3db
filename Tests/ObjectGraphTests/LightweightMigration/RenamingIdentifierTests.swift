import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// Inferred migration matches renaming identifiers as Core Data documents them: a destination entity or
/// property takes the rows or values of the source one that has the same identifier, the identifier being
/// the renaming identifier or else the name, on both sides (so an `elementID` Xcode keeps from version to
/// version maps to itself); it never loses or gains a row of an entity both versions have; and it migrates
/// from whichever version matches the store, whatever the versions' names sort as.
@Suite("Migration: renaming identifiers, rows in and out, no version order", .temporaryFolders)
struct RenamingIdentifierTests {
  typealias M = MigrationTests

  // MARK: - Models in code

  /// Shelf 1-* Book, Book *-* Tag, where Book and most of its properties carry a renaming identifier that
  /// both versions keep (as Xcode keeps an `elementID` in a new version): Book is "Volume", Book.title
  /// "heading", Book.pages "leaves", Book.shelf "place", Book.tags "labels", Shelf.label "caption",
  /// Shelf.books "volumes", Tag.books "items". Version 2 adds `Book.subtitle`, so the hashes differ.
  static func library(version: Int) throws -> NSManagedObjectModel {
    var book: [NSPropertyDescription] = [
      M.attribute("title", renamedFrom: "heading"), M.attribute("pages", .integer64AttributeType, renamedFrom: "leaves"),
      M.relationship("shelf", to: "Shelf", inverse: "books", renamedFrom: "place"),
      M.relationship("tags", to: "Tag", inverse: "books", toMany: true, renamedFrom: "labels"),
    ]
    if version > 1 { book.append(M.attribute("subtitle")) }
    return try NSManagedObjectModel(entities: [
      M.entity(
        "Shelf",
        [
          M.attribute("label", renamedFrom: "caption"),
          M.relationship("books", to: "Book", inverse: "shelf", toMany: true, renamedFrom: "volumes"),
        ]),
      M.entity("Book", book, renamedFrom: "Volume"),
      M.entity("Tag", [M.attribute("name"), M.relationship("books", to: "Book", inverse: "tags", toMany: true, renamedFrom: "items")]),
    ])
  }

  /// Writes a library store: 2 shelves, 3 tags, 12 books (book `i` on shelf `i % 2` with tags `i % 3` and
  /// `(i + 1) % 3`, `pages` 100 + i).
  static func writeLibrary(_ model: NSManagedObjectModel, at url: URL) throws {
    try write(model, at: url) { context, entities in
      let shelves = try (0..<2).map { index in
        let shelf = NSManagedObject(entity: try entities("Shelf"), insertInto: context)
        shelf.setValue("Shelf \(index)", forKey: "label")
        return shelf
      }
      let tags = try (0..<3).map { index in
        let tag = NSManagedObject(entity: try entities("Tag"), insertInto: context)
        tag.setValue("Tag \(index)", forKey: "name")
        return tag
      }
      for index in 0..<12 {
        let book = NSManagedObject(entity: try entities("Book"), insertInto: context)
        book.setValue("Book \(index)", forKey: "title")
        book.setValue(Int64(100 + index), forKey: "pages")
        book.setValue(shelves[index % 2], forKey: "shelf")
        book.setValue(Set([tags[index % 3], tags[(index + 1) % 3]]), forKey: "tags")
      }
    }
  }

  /// The entities of a model by name, for a store writer: `entities("Book")`.
  struct Entities {
    let model: NSManagedObjectModel
    func callAsFunction(_ name: String) throws -> NSEntityDescription { try #require(model.entitiesByName[name]) }
  }

  /// Creates a store with `model` and saves what `fill` inserts.
  static func write(
    _ model: NSManagedObjectModel, at url: URL, fill: (NSManagedObjectContext, Entities) throws -> Void
  ) throws {
    let stack = try StoreStack(model: model, at: url)
    let context = stack.context
    try context.performAndWait {
      try fill(context, Entities(model: model))
      try context.save()
    }
    try stack.close()
  }

  /// A library store made by version 1 and opened (migrated) by version 2.
  static func migratedLibrary() throws -> (url: URL, context: NSManagedObjectContext) {
    let url = try TemporaryFolder().appending("Library.sqlite")
    try writeLibrary(try library(version: 1), at: url)
    let context = try M.open(
      try library(version: 2), at: url,
      options: MigrationTests.migrationOptions(sourceModels: [try library(version: 1)]))
    return (url, context)
  }

  // MARK: - (a) Identifiers kept from version to version

  @Test("an entity that keeps its renaming identifier in both versions keeps every row")
  func entityKeepingItsIdentifierKeepsItsRows() throws {
    let (url, context) = try Self.migratedLibrary()
    #expect(try M.fetch("Book", in: context).count == 12)
    #expect(try M.fetch("Shelf", in: context).count == 2)
    #expect(try M.fetch("Tag", in: context).count == 3)
    #expect(try rawRows(url, "SELECT COUNT(*) FROM ZBOOK")[0][0] as Int == 12)
  }

  @Test("an attribute that keeps its renaming identifier keeps its values; the new one is empty")
  func attributeKeepingItsIdentifierKeepsItsValues() throws {
    let (_, context) = try Self.migratedLibrary()
    let books = try M.fetch("Book", in: context, sortedBy: "pages")
    let shelves = try M.fetch("Shelf", in: context, sortedBy: "label")
    context.performAndWait {
      #expect(books.map { $0.value(forKey: "title") as? String } == (0..<12).map { "Book \($0)" })
      #expect(books.map { $0.value(forKey: "pages") as? Int64 } == (0..<12).map { Int64(100 + $0) })
      #expect(books.allSatisfy { $0.value(forKey: "subtitle") == nil })
      #expect(shelves.map { $0.value(forKey: "label") as? String } == ["Shelf 0", "Shelf 1"])
    }
  }

  @Test("relationships that keep their renaming identifiers keep their members: to-one, to-many, many-to-many")
  func relationshipKeepingItsIdentifierKeepsItsMembers() throws {
    let (_, context) = try Self.migratedLibrary()
    let books = try M.fetch("Book", in: context, sortedBy: "pages")
    let shelves = try M.fetch("Shelf", in: context, sortedBy: "label")
    let tags = try M.fetch("Tag", in: context, sortedBy: "name")
    try #require(books.count == 12 && shelves.count == 2 && tags.count == 3)
    context.performAndWait {
      for (index, book) in books.enumerated() {
        #expect((book.value(forKey: "shelf") as? NSManagedObject)?.value(forKey: "label") as? String == "Shelf \(index % 2)")
        let names = (book.value(forKey: "tags") as? Set<NSManagedObject>)?.compactMap { $0.value(forKey: "name") as? String }.sorted()
        #expect(names == ["Tag \(index % 3)", "Tag \((index + 1) % 3)"].sorted())
      }
      for (index, shelf) in shelves.enumerated() {
        let titles = (shelf.value(forKey: "books") as? Set<NSManagedObject>)?.compactMap { $0.value(forKey: "title") as? String }
        #expect(Set(titles ?? []) == Set((0..<12).filter { $0 % 2 == index }.map { "Book \($0)" }))
      }
      for (index, tag) in tags.enumerated() {
        let count = (tag.value(forKey: "books") as? Set<NSManagedObject>)?.count
        #expect(count == (0..<12).filter { $0 % 3 == index || ($0 + 1) % 3 == index }.count)
      }
    }
  }

  /// Version 1 names the entity Book and the attribute title; version 2 renames them Novel and heading
  /// (renaming identifiers Book and title); version 3 renames them again, Story and headline, keeping the
  /// identifiers, and adds `year`.
  static func renamedTwice(version: Int) throws -> NSManagedObjectModel {
    let names = [1: ("Book", "title"), 2: ("Novel", "heading"), 3: ("Story", "headline")]
    let (entity, attribute) = names[version] ?? ("Book", "title")
    var properties = [M.attribute(attribute, renamedFrom: version == 1 ? nil : "title"), M.attribute("pages", .integer64AttributeType)]
    if version == 3 { properties.append(M.attribute("year", .integer64AttributeType)) }
    return try NSManagedObjectModel(entities: [M.entity(entity, properties, renamedFrom: version == 1 ? nil : "Book")])
  }

  @Test("a rename through renaming identifiers works from the first version and from the renamed one (identifier to identifier)")
  func renamedTwiceMigratesFromEveryVersion() throws {
    for version in [1, 2] {
      let model = try Self.renamedTwice(version: version)
      let url = try TemporaryFolder().appending("Books-\(version).sqlite")
      try Self.write(model, at: url) { context, entities in
        for index in 0..<5 {
          let book = NSManagedObject(entity: try entities(version == 1 ? "Book" : "Novel"), insertInto: context)
          book.setValue("Title \(index)", forKey: version == 1 ? "title" : "heading")
          book.setValue(Int64(index), forKey: "pages")
        }
      }
      let context = try M.open(
        try Self.renamedTwice(version: 3), at: url,
        options: MigrationTests.migrationOptions(sourceModels: [model]))
      let stories = try M.fetch("Story", in: context, sortedBy: "pages")
      context.performAndWait {
        #expect(stories.map { $0.value(forKey: "headline") as? String } == (0..<5).map { "Title \($0)" }, "from version \(version)")
      }
    }
  }

  @Test("two old entities sharing the identifier a new one looks for is 134140 naming both; the file is untouched")
  func ambiguousIdentifierIsRefused() throws {
    let old = try NSManagedObjectModel(entities: [
      M.entity("Collection", [M.attribute("name")]), M.entity("Album", [M.attribute("name")], renamedFrom: "Collection"),
    ])
    let url = try TemporaryFolder().appending("Albums.sqlite")
    try Self.write(old, at: url) { context, entities in
      NSManagedObject(entity: try entities("Album"), insertInto: context).setValue("An album", forKey: "name")
    }
    let before = try ProofStores.FileState(url)
    let new = try NSManagedObjectModel(entities: [
      M.entity("Album", [M.attribute("name"), M.attribute("year", .integer64AttributeType)], renamedFrom: "Collection")
    ])
    let error = expectCode(.migrationMissingMappingModel) {
      _ = try M.open(
        new, at: url,
        options: MigrationTests.migrationOptions(sourceModels: [old]))
    }
    #expect(error?.message.contains("Album and Collection") == true, "\(String(describing: error))")
    try ProofStores.expectUnchanged(url, before)
  }

  // MARK: - (b) Rows in, rows out

  @Test(
    "a migration that would lose rows (a trigger of the store deletes some on UPDATE) is 134110 naming the entity and both counts; nothing is written"
  )
  func rowsLostToATriggerAreRefused() throws {
    let version1 = try NSManagedObjectModel(entities: [M.entity("Item", [M.attribute("name")])])
    let version2 = try NSManagedObjectModel(entities: [
      M.entity("Item", [M.attribute("name"), M.attribute("rank", .integer64AttributeType, optional: false, default: Int64(7))])
    ])
    let url = try TemporaryFolder().appending("Items.sqlite")
    try Self.write(version1, at: url) { context, entities in
      for index in 0..<10 { NSManagedObject(entity: try entities("Item"), insertInto: context).setValue("Item \(index)", forKey: "name") }
    }
    // An app's own trigger: every update of an even row deletes it. The migration's UPDATE (the new
    // attribute's default) fires it.
    try DatabaseQueue(path: url.path).write { db in
      try db.execute(
        sql: "CREATE TRIGGER APP_PRUNE AFTER UPDATE ON ZITEM WHEN NEW.Z_PK % 2 = 0 BEGIN DELETE FROM ZITEM WHERE Z_PK = NEW.Z_PK; END")
    }
    let before = try ProofStores.FileState(url)
    let error = expectCode(.migration) {
      _ = try M.open(
        version2, at: url,
        options: MigrationTests.migrationOptions(sourceModels: [version1]))
    }
    #expect(error?.message.contains("would leave Item with 5 row(s) where the store has 10") == true, "\(String(describing: error))")
    #expect(error?.message.contains("Nothing was written") == true)
    try ProofStores.expectUnchanged(url, before)
    #expect(try rawRows(url, "SELECT COUNT(*) FROM ZITEM")[0][0] as Int == 10)
  }

  @Test(
    "a row whose Z_ENT no entity of its table has, and that renumbering would turn into a row of another entity, is 134110; nothing is written"
  )
  func strayEntityNumberIsRefused() throws {
    // Shape and its subentity Circle share ZSHAPE; version 2 adds a third, Arc, so numbers move.
    func shapes(withArc: Bool) throws -> NSManagedObjectModel {
      let shape = M.entity("Shape", [M.attribute("name")])
      var subentities = [M.entity("Circle", [M.attribute("radius", .integer64AttributeType)])]
      if withArc { subentities.append(M.entity("Arc", [M.attribute("angle", .integer64AttributeType)])) }
      shape.subentities = subentities
      return try NSManagedObjectModel(entities: [shape] + subentities)
    }
    let version1 = try shapes(withArc: false)
    let version2 = try shapes(withArc: true)
    let folder = try TemporaryFolder()
    let url = folder.appending("Shapes.sqlite")
    try Self.write(version1, at: url) { context, entities in
      for index in 0..<3 { NSManagedObject(entity: try entities("Shape"), insertInto: context).setValue("Shape \(index)", forKey: "name") }
      for index in 0..<2 {
        NSManagedObject(entity: try entities("Circle"), insertInto: context).setValue("Circle \(index)", forKey: "name")
      }
    }
    // The numbers each version gives, from the stores themselves.
    let fresh = folder.appending("Fresh.sqlite")
    try Self.write(version2, at: fresh) { _, _ in }
    func numbers(_ url: URL) throws -> [String: Int64] {
      Dictionary(uniqueKeysWithValues: try rawRows(url, "SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY").map { ($0[0] as String, $0[1] as Int64) })
    }
    let old = try numbers(url)
    let new = try numbers(fresh)
    // A number no entity of ZSHAPE has in the store, which one that both versions have takes after the migration.
    let stray = try #require(
      ["Shape", "Circle"].compactMap { new[$0] }.first { !Set(old.values).contains($0) },
      "version 2 gives Shape or Circle a number version 1 does not use")
    try DatabaseQueue(path: url.path).write { db in
      try db.execute(sql: "INSERT INTO ZSHAPE (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (100, ?, 1, 'stray')", arguments: [stray])
    }
    let before = try ProofStores.FileState(url)
    let error = expectCode(.migration) {
      _ = try M.open(
        version2, at: url,
        options: MigrationTests.migrationOptions(sourceModels: [version1]))
    }
    let entity = new.first { $0.value == stray }?.key ?? "?"
    let counts = entity == "Shape" ? "with 4 row(s) where the store has 3" : "with 3 row(s) where the store has 2"
    #expect(error?.message.contains("would leave \(entity) \(counts)") == true, "\(String(describing: error))")
    try ProofStores.expectUnchanged(url, before)
  }

  // MARK: - (c) No version order

  /// Writes `versions` (name → model) as `<bundle>.xcdatamodeld` in `folder`, with `current` as the current
  /// version, and returns the bundle's URL.
  static func writeBundle(
    _ bundle: String, versions: [(String, NSManagedObjectModel)], current: String, in folder: TemporaryFolder
  ) throws -> URL {
    let url = folder.appending("\(bundle).xcdatamodeld")
    for (name, model) in versions {
      let version = url.appendingPathComponent("\(name).xcdatamodel", isDirectory: true)
      try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
      try XcodeModelWriter.contents(of: model).write(to: version.appendingPathComponent("contents"))
    }
    let plist: [String: String] = ["_XCCurrentVersionName": "\(current).xcdatamodel"]
    try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
      .write(to: url.appendingPathComponent(".xccurrentversion"))
    return url
  }

  @Test("a store made by a version whose name sorts after the current one migrates to the current one")
  func versionSortingAfterTheCurrentOneMigrates() throws {
    let folder = try TemporaryFolder()
    // "Partner 5" sorts after the current "Catalog v2", as "ArtsyPartner 5" after "ArtsyFolio v2.4".
    let bundle = try Self.writeBundle(
      "Catalog", versions: [("Partner 5", try Self.library(version: 1)), ("Catalog v2", try Self.library(version: 2))],
      current: "Catalog v2", in: folder)
    let versions = try NSManagedObjectModel.versions(in: bundle)
    let partner = try #require(versions.first { $0.name == "Partner 5" }?.model)
    let url = folder.appending("Library.sqlite")
    try Self.writeLibrary(partner, at: url)
    let current = try NSManagedObjectModel(loadingContentsOf: bundle)
    let context = try M.open(
      current, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
    let books = try M.fetch("Book", in: context, sortedBy: "pages")
    context.performAndWait {
      #expect(books.map { $0.value(forKey: "title") as? String } == (0..<12).map { "Book \($0)" })
    }
    #expect(try ProofStores.versionHashes(url) == current.entityVersionHashesByName)
  }

  // MARK: - (d) The Artsy app's thirteen versions

  static func artsy() throws -> URL {
    try Fixtures.appleStores().appendingPathComponent("artsy__energy-legacy__ArtsyPartner")
  }

  /// The Artsy app's `.xcdatamodeld`.
  static func artsyBundle() throws -> URL { try artsy().appendingPathComponent("ArtsyPartner.xcdatamodeld") }

  /// One version of the Artsy app's model, by name.
  static func artsyVersion(_ name: String) throws -> NSManagedObjectModel {
    try #require(try NSManagedObjectModel.versions(in: try artsyBundle()).first { $0.name == name }?.model)
  }

  @Test(
    "the real ArtsyFolio models: every entity of v2.0 maps to the v2.4 entity of the same identifier (Album keeps elementID Collection)",
    .needsFixtures)
  func artsyMappingByIdentifier() throws {
    let v20 = try Self.artsyVersion("ArtsyFolio v2.0")
    let v24 = try Self.artsyVersion("ArtsyFolio v2.4")
    let mapping = try InferredMapping.infer(from: v20.entities, to: v24.entities)
    for entity in v20.entities {
      let destination = try #require(v24.entitiesByName[entity.entityName])
      #expect(mapping.mapping(of: destination)?.source?.name == entity.entityName, "\(entity.entityName)")
    }
    let user = try #require(v24.entitiesByName["User"])
    let typeSlot = try #require(user.layout.indexByName["type"])
    #expect(mapping.mapping(of: user)?.sourceSlots[typeSlot]?.name == "type", "User.type keeps elementID user_role")
  }

  @Test(
    "a store the engine made with ArtsyFolio v2.0 migrates to the current v2.4 keeping its Album and User rows and values", .needsFixtures)
  func artsyEngineStoreMigrates() throws {
    let bundle = try Self.artsyBundle()
    let v20 = try Self.artsyVersion("ArtsyFolio v2.0")
    let url = try TemporaryFolder().appending("Artsy.sqlite")
    try Self.write(v20, at: url) { context, entities in
      let album = NSManagedObject(entity: try entities("Album"), insertInto: context)
      album.setValue("Spring show", forKey: "name")
      album.setValue("spring-show", forKey: "slug")
      album.setValue(Int16(3), forKey: "sortKey")
      let user = NSManagedObject(entity: try entities("User"), insertInto: context)
      user.setValue("Ada", forKey: "name")
      user.setValue("admin", forKey: "type")
    }
    let current = try NSManagedObjectModel(loadingContentsOf: bundle)
    #expect(current.versionName == "ArtsyFolio v2.4")
    let context = try M.open(
      current, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
    let albums = try M.fetch("Album", in: context)
    let users = try M.fetch("User", in: context)
    context.performAndWait {
      #expect(albums.map { $0.value(forKey: "name") as? String } == ["Spring show"])
      #expect(albums.first?.value(forKey: "slug") as? String == "spring-show")
      #expect(albums.first?.value(forKey: "sortKey") as? Int16 == 3)
      #expect(users.map { $0.value(forKey: "type") as? String } == ["admin"])
    }
  }

  @Test(
    "a store the engine made with ArtsyPartner 5, whose name sorts after the current ArtsyFolio v2.4, is not refused as newer: it migrates; with a link its real change (Album.cover from Artwork to Image) cannot carry, it is refused with nothing written",
    .needsFixtures)
  func artsyPartner5IsNotRefusedAsNewer() throws {
    let bundle = try Self.artsyBundle()
    let partner5 = try Self.artsyVersion("ArtsyPartner 5")
    let url = try TemporaryFolder().appending("Partner5.sqlite")
    try Self.write(partner5, at: url) { context, entities in
      NSManagedObject(entity: try entities("Collection"), insertInto: context).setValue("Early works", forKey: "name")
    }
    let context = try M.open(
      try NSManagedObjectModel(loadingContentsOf: bundle), at: url,
      options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
    let albums = try M.fetch("Album", in: context)
    context.performAndWait { #expect(albums.map { $0.value(forKey: "name") as? String } == ["Early works"]) }
    // A cover that is an Artwork has no place in Album.cover (an Image) after the migration.
    let linked = try TemporaryFolder().appending("Partner5Cover.sqlite")
    try Self.write(partner5, at: linked) { context, entities in
      let collection = NSManagedObject(entity: try entities("Collection"), insertInto: context)
      collection.setValue("Early works", forKey: "name")
      collection.setValue(NSManagedObject(entity: try entities("Artwork"), insertInto: context), forKey: "cover")
    }
    let before = try ProofStores.FileState(linked)
    let error = expectCode(.migrationMissingMappingModel) {
      _ = try M.open(
        try NSManagedObjectModel(loadingContentsOf: bundle), at: linked,
        options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
    }
    #expect(
      error?.message.contains("Album.cover pointed to Artwork and now points to Image, but 1 of its links") == true,
      "\(String(describing: error))")
    #expect(error?.message.contains("newer") == false)
    try ProofStores.expectUnchanged(linked, before)
  }

  /// Version 1: Show *-1 Picture (`pictures`/`show`); version 2 adds InstallShot below Picture and points
  /// Show.pictures (and the inverse) at it, as ArtsyFolio v2.1 did with Show.installationImages.
  static func gallery(version: Int) throws -> NSManagedObjectModel {
    let picture = M.entity(
      "Picture",
      version == 1 ? [M.attribute("caption"), M.relationship("show", to: "Show", inverse: "pictures")] : [M.attribute("caption")])
    let show = M.entity(
      "Show",
      [M.attribute("title"), M.relationship("pictures", to: version == 1 ? "Picture" : "InstallShot", inverse: "show", toMany: true)])
    guard version > 1 else { return try NSManagedObjectModel(entities: [picture, show]) }
    let shot = M.entity("InstallShot", [M.relationship("show", to: "Show", inverse: "pictures")])
    picture.subentities = [shot]
    return try NSManagedObjectModel(entities: [picture, shot, show])
  }

  @Test(
    "a relationship whose destination narrows to a new subentity migrates when no link points outside it; with such links it is 134140 and the file is untouched"
  )
  func narrowedDestination() throws {
    for linked in [false, true] {
      let url = try TemporaryFolder().appending("Gallery.sqlite")
      try Self.write(try Self.gallery(version: 1), at: url) { context, entities in
        let show = NSManagedObject(entity: try entities("Show"), insertInto: context)
        show.setValue("Spring", forKey: "title")
        let picture = NSManagedObject(entity: try entities("Picture"), insertInto: context)
        picture.setValue("Wall", forKey: "caption")
        if linked { picture.setValue(show, forKey: "show") }
      }
      let before = try ProofStores.FileState(url)
      let options: [AnyHashable: Any] = MigrationTests.migrationOptions(sourceModels: [try Self.gallery(version: 1)])
      if linked {
        let error = expectCode(.migrationMissingMappingModel) { _ = try M.open(try Self.gallery(version: 2), at: url, options: options) }
        #expect(
          error?.message.contains("Show.pictures pointed to Picture and now points to InstallShot, but 1 of its links") == true,
          "\(String(describing: error))")
        try ProofStores.expectUnchanged(url, before)
      } else {
        let context = try M.open(try Self.gallery(version: 2), at: url, options: options)
        let pictures = try M.fetch("Picture", in: context)
        context.performAndWait { #expect(pictures.map { $0.value(forKey: "caption") as? String } == ["Wall"]) }
        #expect(try M.fetch("Show", in: context).count == 1)
      }
    }
  }

  @Test(
    "Core Data's ArtsyPartner_2.0.sqlite (ArtsyFolio v2.0), with an Album added in plain SQL, opens with the current v2.4: migrated, every row kept as it was",
    .needsFixtures)
  func artsyFixtureStoreMigrates() throws {
    let url = try TemporaryFolder().appending("ArtsyPartner_2.0.sqlite")
    try FileManager.default.copyItem(at: try Self.artsy().appendingPathComponent("ArtsyPartner_2.0.sqlite"), to: url)
    // The fixture's only row is in ZARTWORK; ZALBUM is empty. An Album as Core Data would write it: its
    // number from the store's own Z_PRIMARYKEY, and Z_MAX raised.
    try DatabaseQueue(path: url.path).write { db in
      let album = try #require(try Int64.fetchOne(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Album'"))
      try db.execute(
        sql:
          "INSERT INTO ZALBUM (Z_PK, Z_ENT, Z_OPT, ZNAME, ZSLUG, ZSORTKEY, ZISPRIVATE) VALUES (1, ?, 1, 'Spring show', 'spring-show', 3, 0)",
        arguments: [album])
      try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_NAME = 'Album'")
    }
    let tables = try rawRows(
      url, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z%' AND name NOT LIKE 'Z\\_%' ESCAPE '\\'"
    )
    .map { $0[0] as String }
    /// Every row of every entity table: column → value, by table, in key order.
    func snapshot() throws -> [String: [[String: String]]] {
      var rows: [String: [[String: String]]] = [:]
      for table in tables {
        // A to-one's entity column is named after its destination's number (Z7_COVER), which v2.4's new
        // entities shift (Z8_COVER): compared without the number.
        rows[table] = try rawRows(url, "SELECT * FROM \(table) ORDER BY Z_PK").map { row in
          Dictionary(
            uniqueKeysWithValues: row.columnNames.map { name in
              (name.replacingOccurrences(of: #"^Z[0-9]+_"#, with: "Z#_", options: .regularExpression), "\(row[name] as DatabaseValue)")
            })
        }
      }
      return rows
    }
    let before = try snapshot()
    #expect(before.values.map(\.count).reduce(0, +) == 2, "the fixture's row and the Album")
    let bundle = try Self.artsyBundle()
    let current = try NSManagedObjectModel(loadingContentsOf: bundle)
    #expect(current.versionName == "ArtsyFolio v2.4")
    let context = try M.open(
      current, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
    #expect(try ProofStores.versionHashes(url) == current.entityVersionHashesByName)
    let albums = try M.fetch("Album", in: context)
    context.performAndWait {
      #expect(albums.map { $0.value(forKey: "name") as? String } == ["Spring show"])
      #expect(albums.first?.value(forKey: "slug") as? String == "spring-show")
      #expect(albums.first?.value(forKey: "sortKey") as? Int16 == 3)
    }
    let after = try snapshot()
    for (table, rows) in before {
      // Every row of every table of v2.0 is still there with every value (v2.4 adds columns; no table goes).
      let kept = after[table] ?? []
      #expect(kept.count == rows.count, "\(table)")
      for (old, new) in zip(rows, kept) {
        #expect(old.allSatisfy { new[$0.key] == $0.value }, "\(table): \(old) became \(new)")
      }
    }
  }
}
