import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// Uniqueness constraints that name a to-one relationship (with attributes or alone): Core Data's form of
/// SwiftData's unique relationships. The destination's primary key is the value compared.
@Suite("Uniqueness constraints on to-one relationships", .temporaryFolders)
struct RelationshipConstraintTests {
  /// Folder(name); Page(title, position, folder) with [title, folder] unique; Cover(folder) with [folder] unique.
  static func model() throws -> NSManagedObjectModel {
    let folder = NSEntityDescription(
      name: "Folder",
      properties: [
        .attribute(NSAttributeDescription(name: "name", type: .string)),
        .relationship(NSRelationshipDescription(name: "pages", destination: "Page", inverse: "folder", toMany: true)),
        .relationship(NSRelationshipDescription(name: "covers", destination: "Cover", inverse: "folder", toMany: true)),
      ])
    let page = NSEntityDescription(
      name: "Page",
      properties: [
        .attribute(NSAttributeDescription(name: "title", type: .string)),
        .attribute(NSAttributeDescription(name: "position", type: .integer64, isOptional: false, defaultValue: Int64(0))),
        .relationship(NSRelationshipDescription(name: "folder", destination: "Folder", inverse: "pages")),
      ])
    page.uniquenessConstraints = [["title", "folder"]]
    let cover = NSEntityDescription(
      name: "Cover",
      properties: [
        .attribute(NSAttributeDescription(name: "colour", type: .string)),
        .relationship(NSRelationshipDescription(name: "folder", destination: "Folder", inverse: "covers")),
      ])
    cover.uniquenessConstraints = [["folder"]]
    return try NSManagedObjectModel(entities: [folder, page, cover])
  }

  private func insert(_ name: String, _ context: NSManagedObjectContext, _ values: [String: Any?]) -> NSManagedObject {
    let object = NSEntityDescription.insertNewObject(forEntityName: name, into: context)
    for (key, value) in values { object.setValue(value ?? nil, forKey: key) }
    return object
  }

  @Test("Error policy: a page repeating a stored page's title in the same folder fails with 133021; another folder is fine")
  func repeatInStore() throws {
    let stack = try StoreStack(model: try Self.model())
    let context = stack.context
    try context.performAndWait {
      let inbox = insert("Folder", context, ["name": "Inbox"])
      let archive = insert("Folder", context, ["name": "Archive"])
      _ = insert("Page", context, ["title": "Plan", "folder": inbox])
      _ = insert("Page", context, ["title": "Plan", "folder": archive])
      try context.save()

      _ = insert("Page", context, ["title": "Plan", "folder": inbox])
      let error = try #require(throws: ObjectGraphError.self) { try context.save() }
      #expect(error.code == 133021)
      let conflict = try #require(error.constraintConflictRecords.first)
      #expect(conflict.constraint == ["title", "folder"])
      #expect(conflict.databaseObjectID != nil, "the stored page is named")
      #expect((conflict.constraintValues["folder"] as? NSManagedObjectID) == inbox.objectID)
      context.rollback()

      _ = insert("Page", context, ["title": "Plan", "folder": nil])
      _ = insert("Page", context, ["title": "Plan", "folder": nil])
      try context.save()
    }
    #expect(try stack.storedCount("Page") == 4, "no folder is no value: nils never repeat")
  }

  @Test("Two new pages with one title in one new folder conflict among themselves, before the folder has a key")
  func repeatAmongInserts() throws {
    let stack = try StoreStack(model: try Self.model())
    let context = stack.context
    try context.performAndWait {
      let folder = insert("Folder", context, ["name": "New"])
      _ = insert("Page", context, ["title": "Twice", "folder": folder])
      _ = insert("Page", context, ["title": "Twice", "folder": folder])
      let error = try #require(throws: ObjectGraphError.self) { try context.save() }
      #expect(error.code == 133021)
      #expect(error.constraintConflictRecords.first?.databaseObjectID == nil)
    }
    #expect(try stack.storedCount("Page") == 0 && stack.storedCount("Folder") == 0)
  }

  @Test("Object trump: a cover for a folder that has one is merged into the stored cover (an upsert)")
  func upsertByRelationship() throws {
    let stack = try StoreStack(model: try Self.model())
    let context = stack.context
    context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
    try context.performAndWait {
      let folder = insert("Folder", context, ["name": "Inbox"])
      let first = insert("Cover", context, ["colour": "red", "folder": folder])
      try context.save()
      let second = insert("Cover", context, ["colour": "blue", "folder": folder])
      try context.save()
      #expect(second.objectID == first.objectID, "the new cover's ID names the stored one")
      #expect(first.value(forKey: "colour") as? String == "blue")
    }
    #expect(try stack.stored("Cover") { $0.value(forKey: "colour") as? String } == ["blue"])
  }

  @Test("Moving a stored page into a folder that has its title is refused under every policy; the store keeps both")
  func updateIntoConflict() throws {
    let stack = try StoreStack(model: try Self.model())
    let context = stack.context
    context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
    try context.performAndWait {
      let inbox = insert("Folder", context, ["name": "Inbox"])
      let archive = insert("Folder", context, ["name": "Archive"])
      _ = insert("Page", context, ["title": "Plan", "folder": inbox])
      let moving = insert("Page", context, ["title": "Plan", "folder": archive])
      try context.save()
      moving.setValue(inbox, forKey: "folder")
      let error = try #require(throws: ObjectGraphError.self) { try context.save() }
      #expect(error.code == 133021)
    }
    #expect(try stack.storedCount("Page") == 2)
  }

  @Test("No unique index is made for a constraint naming a to-one: a store holding repeats written before still opens")
  func storeWithRepeatsOpens() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    var folderID: NSManagedObjectID?
    do {
      let stack = try StoreStack(model: try Self.model(), at: url)
      try stack.context.performAndWait {
        let folder = insert("Folder", stack.context, ["name": "Inbox"])
        _ = insert("Cover", stack.context, ["colour": "red"])
        _ = insert("Cover", stack.context, ["colour": "blue"])
        try stack.context.save()
        folderID = folder.objectID
      }
    }
    // Both covers given the one folder behind the engine's back, as a store written without the check holds.
    let queue = try DatabaseQueue(path: url.path)
    try queue.write { db in try db.execute(sql: "UPDATE ZCOVER SET ZFOLDER = 1") }
    let unique = try queue.read { db in
      try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql LIKE '%UNIQUE%'")
    }
    #expect(unique.isEmpty, "\(unique)")
    try queue.close()

    let stack = try StoreStack(model: try Self.model(), at: url)
    try stack.context.performAndWait {
      let folder = try stack.context.existingObject(with: try #require(folderID))
      _ = insert("Cover", stack.context, ["colour": "green", "folder": folder])
      let error = try #require(throws: ObjectGraphError.self) { try stack.context.save() }
      #expect(error.code == 133021, "a new repeat is still refused")
    }
    #expect(try stack.storedCount("Cover") == 2)
  }
}
