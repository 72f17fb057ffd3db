import EngineTestSupport
import Foundation
import GRDB
import SHA256
import TestSupport
import Testing

@testable import ObjectGraph

/// A version 1 / version 2 pair of the notes model, built in code so that the migration proofs do not
/// depend on the tutorial's `.xcdatamodeld`. The change between them is the tutorial's (version 1 is
/// `DataModel`, version 2 is `DataModel 2`):
///
/// - a new entity `Attachment`, which sorts before `Note`, so every entity number (`Z_ENT`) and the name
///   of the Note-Tag join table shift;
/// - `Note.wordCount`, an Integer 32 that is required with default 0, which every old row must get;
/// - `Note.updatedAt` renamed to `Note.modifiedAt` through its renaming identifier, keeping its values.
///
/// Entities use plain `NSManagedObject`s, so these models never meet the typed classes of `ObjectGraphTestSupport.swift`.
enum ProofModels {
  /// Version 1: Note, Notebook, Tag.
  static func version1() throws -> NSManagedObjectModel {
    try NSManagedObjectModel(entities: [note(version: 1), notebook(), tag()])
  }

  /// Version 2: version 1 plus Attachment, `Note.wordCount`, and `Note.modifiedAt` renamed from `updatedAt`.
  static func version2() throws -> NSManagedObjectModel {
    let attachment = NSEntityDescription(
      name: "Attachment",
      properties: [
        .attribute(NSAttributeDescription(name: "byteCount", type: .integer64, isOptional: false, defaultValue: Int64(0))),
        .attribute(NSAttributeDescription(name: "fileName", type: .string, isOptional: false, defaultValue: "")),
        .relationship(NSRelationshipDescription(name: "note", destination: "Note", inverse: "attachments")),
      ])
    return try NSManagedObjectModel(entities: [attachment, note(version: 2), notebook(), tag()])
  }

  /// Version 1 with `Note.title` turned from String into Integer 64: a change no inferred mapping can make.
  static func titleAsInteger() throws -> NSManagedObjectModel {
    try NSManagedObjectModel(entities: [note(version: 1, titleType: .integer64), notebook(), tag()])
  }

  private static func note(version: Int, titleType: NSAttributeDescription.AttributeType = .string) -> NSEntityDescription {
    var properties: [NSPropertyDescription] = [
      .attribute(NSAttributeDescription(name: "body", type: .string)),
      .attribute(NSAttributeDescription(name: "createdAt", type: .date, isOptional: false)),
      .attribute(NSAttributeDescription(name: "isPinned", type: .boolean, isOptional: false, defaultValue: false)),
      .attribute(
        NSAttributeDescription(
          name: "title", type: titleType, isOptional: false, defaultValue: titleType == .string ? "" : Int64(0))),
      .relationship(NSRelationshipDescription(name: "notebook", destination: "Notebook", inverse: "notes")),
      .relationship(NSRelationshipDescription(name: "tags", destination: "Tag", inverse: "notes", toMany: true)),
    ]
    if version == 1 {
      properties.append(.attribute(NSAttributeDescription(name: "updatedAt", type: .date)))
    } else {
      let modifiedAt = NSAttributeDescription(name: "modifiedAt", type: .date)
      modifiedAt.renamingIdentifier = "updatedAt"
      properties.append(.attribute(modifiedAt))
      properties.append(
        .attribute(NSAttributeDescription(name: "wordCount", type: .integer32, isOptional: false, defaultValue: Int32(0))))
      properties.append(
        .relationship(
          NSRelationshipDescription(
            name: "attachments", destination: "Attachment", inverse: "note", toMany: true, deleteRule: .cascadeDeleteRule)))
    }
    return NSEntityDescription(name: "Note", properties: properties)
  }

  private static func notebook() -> NSEntityDescription {
    NSEntityDescription(
      name: "Notebook",
      properties: [
        .attribute(NSAttributeDescription(name: "createdAt", type: .date, isOptional: false)),
        .attribute(NSAttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: "")),
        .relationship(
          NSRelationshipDescription(name: "notes", destination: "Note", inverse: "notebook", toMany: true, deleteRule: .cascadeDeleteRule)),
      ])
  }

  private static func tag() -> NSEntityDescription {
    NSEntityDescription(
      name: "Tag",
      properties: [
        .attribute(NSAttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: "")),
        .relationship(NSRelationshipDescription(name: "notes", destination: "Note", inverse: "tags", toMany: true)),
      ])
  }
}

/// Version 1 stores for the migration proofs, and what their files hold, read with plain SQL.
enum ProofStores {
  /// Store options that never migrate: opening a store with them tells which model it belongs to, as it is.
  static var noMigration: [AnyHashable: Any] {
    [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: false]
  }

  /// Makes a version 1 store at `url` with `notes` notes in 10 notebooks, each note tagged with 2 of 20 tags;
  /// every other note has an `updatedAt` (the rest keep `nil`), so the renamed attribute carries both.
  static func makeVersion1(at url: URL, notes count: Int) throws {
    let model = try ProofModels.version1()
    let stack = try StoreStack(model: model, at: url)
    let context = stack.context
    let entities = model.entitiesByName
    guard let noteEntity = entities["Note"], let notebookEntity = entities["Notebook"], let tagEntity = entities["Tag"] else {
      throw ProofFailure("the version 1 model lacks Note, Notebook or Tag")
    }
    try context.performAndWait {
      let start = Date(timeIntervalSinceReferenceDate: 700_000_000)
      let notebooks = (0..<10).map { number in
        let notebook = NSManagedObject(entity: notebookEntity, insertInto: context)
        notebook.setValue("Notebook \(number)", forKey: "name")
        notebook.setValue(start, forKey: "createdAt")
        return notebook
      }
      let tags = (0..<20).map { number in
        let tag = NSManagedObject(entity: tagEntity, insertInto: context)
        tag.setValue("tag-\(number)", forKey: "name")
        return tag
      }
      for number in 0..<count {
        let note = NSManagedObject(entity: noteEntity, insertInto: context)
        note.setValue("Note \(number)", forKey: "title")
        note.setValue("Body of note \(number): " + String(repeating: "lorem ipsum ", count: 1 + number % 7), forKey: "body")
        note.setValue(start.addingTimeInterval(Double(number)), forKey: "createdAt")
        note.setValue(number % 5 == 0, forKey: "isPinned")
        if number % 2 == 1 { note.setValue(start.addingTimeInterval(Double(number) + 0.5), forKey: "updatedAt") }
        note.setValue(notebooks[number % notebooks.count], forKey: "notebook")
        note.setValue(Set([tags[number % tags.count], tags[(number * 7 + 3) % tags.count]]), forKey: "tags")
      }
      try context.save()
    }
    try stack.close()
  }

  /// The file's bytes, and that no journal is beside it, so `unchanged(_:)` can tell a byte-identical file.
  struct FileState: Equatable, CustomStringConvertible {
    let bytes: Data
    let journalExists: Bool

    init(_ url: URL) throws {
      bytes = try Data(contentsOf: url)
      journalExists = FileManager.default.fileExists(atPath: url.path + "-journal")
    }

    var description: String { "\(bytes.count) bytes, SHA-256 \(SHA256.hash(bytes).hexString)\(journalExists ? ", with a -journal" : "")" }
  }

  /// Expects the file to hold exactly `before`'s bytes and no rollback journal beside it (one that would
  /// change the file when SQLite next opens it).
  static func expectUnchanged(_ url: URL, _ before: FileState, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let after = try FileState(url)
    // A Bool, not `after.bytes == before.bytes` inside #expect: on a failure Swift Testing would diff the two
    // byte collections element by element, which takes minutes for a store file.
    let same = after.bytes == before.bytes
    #expect(same, "the store file changed: was \(before), is \(after)", sourceLocation: sourceLocation)
    #expect(!after.journalExists, "a -journal file is left beside \(url.lastPathComponent)", sourceLocation: sourceLocation)
  }

  /// The store's metadata, read with plain SQL (the entity version hashes by entity name).
  static func versionHashes(_ url: URL) throws -> [String: Data] {
    let rows = try rawRows(url, "SELECT Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION LIMIT 1")
    guard let data = rows.first?["Z_PLIST"] as Data?, let metadata = StoreMetadata.decode(data),
      let hashes = metadata[NSStoreModelVersionHashesKey] as? [String: Data]
    else { throw ProofFailure("\(url.lastPathComponent) has no readable version hashes") }
    return hashes
  }

  /// The notes and their tags as the file holds them, in a form both versions share: version 1's
  /// `ZUPDATEDAT` and version 2's `ZMODIFIEDAT` are the same column of `NoteContents`.
  ///
  /// Each is one text made by SQLite (`quote()` of every value, rows in key order), so comparing two
  /// stores of tens of thousands of notes costs two queries, not a `Row` per note.
  struct NoteContents: Equatable, CustomStringConvertible {
    /// One line per note, in key order: `Z_PK`, title, body, createdAt, isPinned, updatedAt/modifiedAt,
    /// notebook.
    let notes: String
    /// How many notes.
    let count: Int
    /// One line per (note key, tag key) pair, sorted.
    let tagLinks: String

    /// Reads them from a store of `version` 1 or 2.
    init(_ url: URL, version: Int) throws {
      let dateColumn = version == 1 ? "ZUPDATEDAT" : "ZMODIFIEDAT"
      let row = try rawRows(
        url,
        """
        SELECT COUNT(*) AS count, group_concat(line, char(10)) AS lines FROM (
          SELECT Z_PK || ' ' || quote(ZTITLE) || ' ' || quote(ZBODY) || ' ' || quote(ZCREATEDAT) || ' ' || quote(ZISPINNED)
            || ' ' || quote(\(dateColumn)) || ' ' || quote(ZNOTEBOOK) AS line
          FROM ZNOTE ORDER BY Z_PK)
        """)[0]
      count = row["count"]
      notes = row["lines"] ?? ""
      tagLinks = try ProofStores.tagLinks(url)
    }

    var description: String { "\(count) notes (\(notes.utf8.count) bytes of values), \(tagLinks.utf8.count) bytes of tag links" }
  }

  /// The Note-Tag join table's rows as lines `<note key> <tag key>`, sorted. Its name and column names carry
  /// entity numbers (`Z_<n>TAGS`), which a migration may change; the column named after the inverse
  /// (`…NOTES`) holds the note.
  static func tagLinks(_ url: URL) throws -> String {
    let tables = try rawRows(url, "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Z_[0-9]*TAGS'")
    guard tables.count == 1, let table = tables[0]["name"] as String? else {
      throw ProofFailure("expected one Note-Tag join table in \(url.lastPathComponent), found \(tables.count)")
    }
    let columns = try rawRows(url, "SELECT name FROM pragma_table_info('\(table)')").compactMap { $0["name"] as String? }
    guard let noteColumn = columns.first(where: { $0.hasSuffix("NOTES") }),
      let tagColumn = columns.first(where: { $0.hasSuffix("TAGS") })
    else { throw ProofFailure("\(table) has columns \(columns), expected one for notes and one for tags") }
    let row = try rawRows(
      url,
      """
      SELECT group_concat(line, char(10)) AS lines FROM (
        SELECT \(noteColumn) || ' ' || \(tagColumn) AS line FROM \(table) ORDER BY \(noteColumn), \(tagColumn))
      """)[0]
    return row["lines"] ?? ""
  }

  /// How many notes a store holds, counted by the engine through `model` (migration off).
  static func engineNoteCount(_ url: URL, model: NSManagedObjectModel) throws -> Int {
    let stack = try StoreStack(model: model, at: url, options: noMigration)
    defer { try? stack.close() }
    return try stack.storedCount("Note")
  }
}

/// A failed precondition of a proof (a fixture that is not what the test expects), thrown with a message.
struct ProofFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

extension Data {
  /// Lower-case hexadecimal.
  var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
