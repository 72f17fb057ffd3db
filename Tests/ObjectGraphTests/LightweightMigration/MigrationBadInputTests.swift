import EngineTestSupport
import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

@testable import ObjectGraph

/// Bad input to a migration: a damaged store, a file that is not ours, a model whose current version is
/// ambiguous or missing, a full disk halfway through, and the options and model changes that forbid a
/// migration. Each is a typed error that names the file and the cause, and the store file is left byte for
/// byte as it was, with no rollback journal beside it that would change it at the next open. (A store from
/// a later version than the app's current one is not bad input: it migrates, as in Core Data.)
@Suite("Migration: bad input is a typed error and leaves the store byte-identical", .temporaryFolders)
struct MigrationBadInputTests {
  /// Notes in the version 1 stores these tests make: enough for several pages per table.
  static let noteCount = 2_000

  // MARK: - Damaged or foreign files

  @Test("A store whose SQLite header is damaged is 134000 naming the file, and is left untouched")
  func damagedHeader() throws {
    let url = try versionOneStore()
    let handle = try FileHandle(forWritingTo: url)
    try handle.write(contentsOf: Data(repeating: 0x5A, count: 100))
    try handle.close()
    let before = try ProofStores.FileState(url)
    let error = expectCode(.persistentStoreInvalidType) { try openVersion2(url) }
    #expect(error?.message.contains(url.path) == true, "\(String(describing: error))")
    #expect(error?.message.contains("not a SQLite database") == true, "\(String(describing: error))")
    try ProofStores.expectUnchanged(url, before)
  }

  @Test("A store whose Note table is damaged fails the migration with 134110 (SQLITE_CORRUPT), and is left untouched")
  func damagedTable() throws {
    let url = try versionOneStore()
    let pageSize = try rawRows(url, "PRAGMA page_size")[0][0] as Int
    let rootPage = try rawRows(url, "SELECT rootpage FROM sqlite_master WHERE name = 'ZNOTE'")[0][0] as Int
    try #require(rootPage > 1)
    let handle = try FileHandle(forWritingTo: url)
    try handle.seek(toOffset: UInt64((rootPage - 1) * pageSize))
    try handle.write(contentsOf: Data(repeating: 0xFF, count: pageSize))
    try handle.close()
    let before = try ProofStores.FileState(url)
    let error = expectCode(.migration) { try openVersion2(url) }
    #expect(error?.sqlitePrimaryResultCode == 11, "\(String(describing: error))")
    #expect(error?.url == url)
    #expect(error?.message.contains(url.path) == true)
    try ProofStores.expectUnchanged(url, before)
  }

  /// (An empty file is not among them: it is what a first launch killed before SQLite wrote anything leaves,
  /// and opening it read-write creates the store in it; `ReliabilityTests.interruptedCreation`.)
  enum Foreign: String, CaseIterable, CustomTestStringConvertible {
    case text = "a text file"
    case otherDatabase = "another app's SQLite database"
    case unreadableMetadata = "a SQLite database with store tables whose metadata is not a property list"

    var testDescription: String { rawValue }
  }

  @Test("A file that is not our store is 134000 naming the file, and is left untouched", arguments: Foreign.allCases)
  func notOurs(_ kind: Foreign) throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    switch kind {
    case .text: try Data(String(repeating: "Not a database.\n", count: 300).utf8).write(to: url)
    case .otherDatabase:
      try rawWrite(url, "CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('Ada');")
    case .unreadableMetadata:
      try rawWrite(
        url,
        """
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
        INSERT INTO Z_METADATA VALUES (1, 'x', X'00010203');
        """)
    }
    let before = try ProofStores.FileState(url)
    let error = expectCode(.persistentStoreInvalidType) { try openVersion2(url) }
    #expect(error?.message.contains(url.path) == true, "\(String(describing: error))")
    try ProofStores.expectUnchanged(url, before)
    #expect(try siblings(of: url) == [url.lastPathComponent])
  }

  // MARK: - Which model version is current

  @Test("A .xccurrentversion naming two versions is modelInvalid naming both")
  func twoCurrentVersionsInMarker() throws {
    let folder = try TemporaryFolder()
    let bundle = try XcodeModels.write(
      in: folder, versions: ["Notes": XcodeModels.version1, "Notes 2": XcodeModels.version2],
      current: "<array><string>Notes.xcdatamodel</string><string>Notes 2.xcdatamodel</string></array>")
    let error = expectCode(.modelInvalid) { _ = try NSManagedObjectModel(loadingContentsOf: bundle) }
    #expect(error?.message.contains("names 2 model versions as current") == true, "\(String(describing: error))")
    #expect(error?.message.contains("'Notes.xcdatamodel' and 'Notes 2.xcdatamodel'") == true)
    #expect(error?.url?.lastPathComponent == ".xccurrentversion")
    // Each version still loads on its own, for tools that list them.
    #expect(try NSManagedObjectModel.versions(in: bundle).map(\.name) == ["Notes", "Notes 2"])
  }

  @Test("Two version folders whose names differ only in case are modelInvalid naming both, with or without .xccurrentversion")
  func caseTwins() throws {
    for marker in [true, false] {
      let folder = try TemporaryFolder()
      let bundle = try XcodeModels.write(
        in: folder, versions: ["Notes": XcodeModels.version1, "Notes 2": XcodeModels.version2, "notes 2": XcodeModels.version2],
        current: marker ? "<string>Notes 2.xcdatamodel</string>" : nil)
      let error = expectCode(.modelInvalid) { _ = try NSManagedObjectModel(loadingContentsOf: bundle) }
      #expect(error?.message.contains("'Notes 2.xcdatamodel' and 'notes 2.xcdatamodel'") == true, "\(String(describing: error))")
      #expect(error?.message.contains("differing only in case") == true)
      #expect(error?.message.contains(marker ? ".xccurrentversion" : bundle.path) == true)
    }
  }

  @Test("A .xccurrentversion naming a missing version is modelInvalid naming the file and the version")
  func currentVersionMissing() throws {
    let folder = try TemporaryFolder()
    let bundle = try XcodeModels.write(
      in: folder, versions: ["Notes": XcodeModels.version1, "Notes 2": XcodeModels.version2],
      current: "<string>Notes 3.xcdatamodel</string>")
    let error = expectCode(.modelInvalid) { _ = try NSManagedObjectModel(loadingContentsOf: bundle) }
    #expect(error?.message.contains("names 'Notes 3.xcdatamodel' as the current model version") == true, "\(String(describing: error))")
    #expect(error?.message.contains("'Notes.xcdatamodel', 'Notes 2.xcdatamodel'") == true)
    #expect(error?.url?.lastPathComponent == ".xccurrentversion")
  }

  @Test(
    "A store made by a later version than the app's current one migrates to the current one (Core Data has no version order): from the model kept in the store, or from the bundle's version"
  )
  func storeFromALaterVersion() throws {
    // A later release added Notes 3 (Note.color) and wrote the store with it.
    let later = try XcodeModels.write(
      in: try TemporaryFolder(),
      versions: ["Notes": XcodeModels.version1, "Notes 2": XcodeModels.version2, "Notes 3": XcodeModels.version3],
      current: "<string>Notes 3.xcdatamodel</string>")
    // The app ships Notes and Notes 2 (current): Notes 3 is found only in the store's model cache. Or the
    // app's bundle has Notes 3 but Notes 2 is current: Notes 3 is found there.
    let withoutNotes3 = try XcodeModels.write(
      in: try TemporaryFolder(), versions: ["Notes": XcodeModels.version1, "Notes 2": XcodeModels.version2],
      current: "<string>Notes 2.xcdatamodel</string>")
    let withNotes3 = try XcodeModels.write(
      in: try TemporaryFolder(),
      versions: ["Notes": XcodeModels.version1, "Notes 2": XcodeModels.version2, "Notes 3": XcodeModels.version3],
      current: "<string>Notes 2.xcdatamodel</string>")
    for app in [withoutNotes3, withNotes3] {
      let url = try TemporaryFolder().appending("Store.sqlite")
      try writeOneNote(at: url, model: try NSManagedObjectModel(loadingContentsOf: later))
      let current = try NSManagedObjectModel(loadingContentsOf: app)
      let coordinator = NSPersistentStoreCoordinator(managedObjectModel: current)
      try coordinator.addPersistentStore(
        type: .sqlite, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
      #expect(try ProofStores.versionHashes(url) == current.entityVersionHashesByName)
      #expect(try rawRows(url, "SELECT COUNT(*) FROM ZNOTE")[0][0] as Int == 1)
      #expect(!(try MigrationTests.columns(url, "ZNOTE").contains("ZCOLOR")))
    }
  }

  // MARK: - A full disk

  @Test(
    "A disk that fills up during the migration (max_page_count) is 134110 with SQLITE_FULL; the store is left untouched and migrates later")
  func fullDisk() async throws {
    let url = try versionOneStore()
    let before = try ProofStores.FileState(url)
    let contents = try ProofStores.NoteContents(url, version: 1)
    let pages = try rawRows(url, "PRAGMA page_count")[0][0] as Int
    let progress = ProgressRecorder()
    let full: [AnyHashable: Any] = [
      NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
      NSSQLitePragmasOption: ["max_page_count": "\(pages)"], ObjectGraphMigrationSourceModelsOption: [try ProofModels.version1()],
      ObjectGraphMigrationProgressOption: { progress.record($0) } as @Sendable (MigrationProgress) -> Void,
    ]

    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try ProofModels.version2())
    let error = expectCode(.migration) { try coordinator.addPersistentStore(type: .sqlite, at: url, options: full) }
    #expect(error?.sqlitePrimaryResultCode == 13, "\(String(describing: error))")
    #expect(error?.url == url)
    #expect(error?.message.contains(url.path) == true)
    #expect(progress.values.first == 0, "the migration had started (progress 0 is reported inside its transaction)")
    #expect(progress.values.last != 1)
    #expect(coordinator.persistentStores.isEmpty)
    try ProofStores.expectUnchanged(url, before)

    // The asynchronous add reports the same error to its completion handler, and still changes nothing.
    let asyncCoordinator = NSPersistentStoreCoordinator(managedObjectModel: try ProofModels.version2())
    let asyncResult = await withCheckedContinuation { continuation in
      asyncCoordinator.addPersistentStore(type: .sqlite, at: url, options: full) { continuation.resume(returning: $0) }
    }
    #expect(throws: ObjectGraphError.self) { try asyncResult.get() }
    if case .failure(let asyncError as ObjectGraphError) = asyncResult {
      #expect(asyncError.code == .migration && asyncError.sqlitePrimaryResultCode == 13, "\(asyncError)")
    }
    try ProofStores.expectUnchanged(url, before)

    // The old model still opens it, unchanged; with room on the disk the migration then goes through.
    #expect(try ProofStores.engineNoteCount(url, model: try ProofModels.version1()) == Self.noteCount)
    #expect(try ProofStores.NoteContents(url, version: 1) == contents)
    try openVersion2(url)
    #expect(try ProofStores.NoteContents(url, version: 2) == contents)
    #expect(try ProofStores.versionHashes(url) == (try ProofModels.version2()).entityVersionHashesByName)
  }

  // MARK: - Options and changes that forbid the migration

  @Test("Migration off is 134100 naming the file; the store is left untouched")
  func migrationOff() throws {
    let url = try versionOneStore()
    let before = try ProofStores.FileState(url)
    let error = expectCode(.persistentStoreIncompatibleVersionHash) {
      try openVersion2(url, options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
    }
    #expect(error?.message.contains(url.path) == true, "\(String(describing: error))")
    #expect(error?.message.contains("Attachment is new in the model; Note changed") == true)
    try ProofStores.expectUnchanged(url, before)
  }

  @Test("Migration on with inference off is 134140 naming the file and the option; the store is left untouched")
  func inferenceOff() throws {
    let url = try versionOneStore()
    let before = try ProofStores.FileState(url)
    let error = expectCode(.migrationMissingMappingModel) {
      try openVersion2(
        url,
        options: [
          NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: false,
          ObjectGraphMigrationSourceModelsOption: [try ProofModels.version1()],
        ])
    }
    #expect(error?.message.contains(url.path) == true, "\(String(describing: error))")
    #expect(error?.message.contains("NSInferMappingModelAutomaticallyOption") == true)
    try ProofStores.expectUnchanged(url, before)
  }

  enum KeptModel: String, CaseIterable, CustomTestStringConvertible {
    case absent = "keeps no model (as a store written before Z_MODELCACHE existed)"
    case unreadable = "keeps a model that cannot be read"

    var testDescription: String { rawValue }
  }

  @Test(
    "A store whose model is nowhere to be found is 134130 listing its version hashes; the store is left untouched",
    arguments: KeptModel.allCases)
  func noSourceModel(_ kept: KeptModel) throws {
    let url = try versionOneStore()
    // The store's own copy of its model is the last place searched: take it away, as an older engine or
    // another tool would have left the file.
    switch kept {
    case .absent: try rawWrite(url, "DROP TABLE Z_MODELCACHE")
    case .unreadable: try rawWrite(url, "UPDATE Z_MODELCACHE SET Z_CONTENT = X'3C6D6F64656C3E'")  // "<model>"
    }
    let before = try ProofStores.FileState(url)
    let hashes = try ProofStores.versionHashes(url)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try ProofModels.version2())
    let error = expectCode(.migrationMissingSourceModel) {
      try coordinator.addPersistentStore(
        type: .sqlite, at: url,
        options: MigrationTests.migrationOptions(sourceModels: [try ProofModels.titleAsInteger()]))
    }
    #expect(error?.message.contains(url.path) == true, "\(String(describing: error))")
    #expect(error?.message.contains("1 source model(s) passed in the store options") == true)
    for (entity, hash) in hashes {
      #expect(error?.message.contains("\(entity) \(hash.prefix(6).hexString)") == true, "\(entity)'s hash is not listed")
    }
    try ProofStores.expectUnchanged(url, before)
  }

  @Test("A store that keeps its own model migrates with no source model given")
  func keptModelIsFound() throws {
    let url = try versionOneStore()
    let contents = try ProofStores.NoteContents(url, version: 1)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try ProofModels.version2())
    try coordinator.remove(
      try coordinator.addPersistentStore(
        type: .sqlite, at: url, options: [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true])
    )
    #expect(try ProofStores.NoteContents(url, version: 2) == contents)
  }

  @Test("A change no inferred mapping can make (String to Integer 64) is 134140 naming the entity, the property and the change")
  func notInferable() throws {
    let url = try versionOneStore()
    let before = try ProofStores.FileState(url)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try ProofModels.titleAsInteger())
    let error = expectCode(.migrationMissingMappingModel) {
      try coordinator.addPersistentStore(
        type: .sqlite, at: url,
        options: MigrationTests.migrationOptions(sourceModels: [try ProofModels.version1()]))
    }
    #expect(error?.message.contains(url.path) == true, "\(String(describing: error))")
    #expect(error?.message.contains("Note.title changed type from String to Integer 64") == true)
    try ProofStores.expectUnchanged(url, before)
  }

  // MARK: - Helpers

  /// A version 1 store of ``noteCount`` notes in a new temporary folder.
  private func versionOneStore() throws -> URL {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try ProofStores.makeVersion1(at: url, notes: Self.noteCount)
    return url
  }

  /// Opens `url` with the version 2 model, version 1 given as the source model (unless `options` say
  /// otherwise), and removes the store again.
  private func openVersion2(_ url: URL, options: [AnyHashable: Any]? = nil) throws {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try ProofModels.version2())
    let store = try coordinator.addPersistentStore(
      type: .sqlite, at: url,
      options: options ?? MigrationTests.migrationOptions(sourceModels: [try ProofModels.version1()]))
    try coordinator.remove(store)
  }

  private func writeOneNote(at url: URL, model: NSManagedObjectModel) throws {
    let stack = try StoreStack(model: model, at: url)
    let entity = try #require(model.entitiesByName["Note"])
    try stack.context.performAndWait {
      let note = NSManagedObject(entity: entity, insertInto: stack.context)
      note.setValue("Written by a later release", forKey: "title")
      note.setValue(Date(timeIntervalSinceReferenceDate: 0), forKey: "createdAt")
      try stack.context.save()
    }
    try stack.close()
  }

  private func rawWrite(_ url: URL, _ sql: String) throws {
    let queue = try DatabaseQueue(path: url.path)
    try queue.write { try $0.execute(sql: sql) }
    try queue.close()
  }

  private func siblings(of url: URL) throws -> Set<String> {
    Set(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path))
  }

  /// Collects the progress a migration reports.
  final class ProgressRecorder: Sendable {
    private let recorded = Mutex<[Double]>([])
    func record(_ progress: MigrationProgress) { recorded.withLock { $0.append(progress.fractionCompleted) } }
    var values: [Double] { recorded.withLock { $0 } }
  }
}

/// Xcode model folders written by the tests: the tutorial's change, as XML, in versions a test names.
enum XcodeModels {
  /// Writes `Notes.xcdatamodeld` in `folder` with one `<name>.xcdatamodel/contents` per version, and a
  /// `.xccurrentversion` whose `_XCCurrentVersionName` is `current` (a property-list value, such as
  /// `<string>Notes 2.xcdatamodel</string>`) when given.
  static func write(in folder: TemporaryFolder, versions: [String: String], current: String?) throws -> URL {
    let bundle = folder.appending("Notes.xcdatamodeld")
    for (name, entities) in versions {
      let version = bundle.appendingPathComponent("\(name).xcdatamodel", isDirectory: true)
      try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
      try Data(contents(entities).utf8).write(to: version.appendingPathComponent("contents"))
    }
    if let current {
      try Data(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>_XCCurrentVersionName</key>
        \t\(current)
        </dict>
        </plist>
        """.utf8
      ).write(to: bundle.appendingPathComponent(".xccurrentversion"))
    }
    return bundle
  }

  private static func contents(_ entities: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" \
    systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift">
    \(entities)
    </model>
    """
  }

  private static let notebookAndTag = """
        <entity name="Notebook" representedClassName="Notebook" syncable="YES" codeGenerationType="class">
            <attribute name="createdAt" attributeType="Date" usesScalarValueType="NO"/>
            <attribute name="name" attributeType="String" defaultValueString=""/>
            <relationship name="notes" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Note" inverseName="notebook" inverseEntity="Note"/>
        </entity>
        <entity name="Tag" representedClassName="Tag" syncable="YES" codeGenerationType="class">
            <attribute name="name" attributeType="String" defaultValueString=""/>
            <relationship name="notes" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Note" inverseName="tags" inverseEntity="Note"/>
        </entity>
    """

  /// The tutorial's version 1: Note, Notebook, Tag.
  static let version1 = """
        <entity name="Note" representedClassName="Note" syncable="YES" codeGenerationType="class">
            <attribute name="body" optional="YES" attributeType="String"/>
            <attribute name="createdAt" attributeType="Date" usesScalarValueType="NO"/>
            <attribute name="isPinned" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
            <attribute name="title" attributeType="String" defaultValueString=""/>
            <attribute name="updatedAt" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
            <relationship name="notebook" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Notebook" inverseName="notes" inverseEntity="Notebook"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="notes" inverseEntity="Tag"/>
        </entity>
    """ + notebookAndTag

  /// The tutorial's version 2: Attachment, `Note.wordCount`, `Note.modifiedAt` renamed from `updatedAt`.
  static let version2 = attachment + note2(extra: "") + notebookAndTag

  /// A later version 2 with `Note.color`.
  static let version3 =
    attachment + note2(extra: #"<attribute name="color" optional="YES" attributeType="String"/>"#) + notebookAndTag

  private static let attachment = """
        <entity name="Attachment" representedClassName="Attachment" syncable="YES" codeGenerationType="class">
            <attribute name="byteCount" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
            <attribute name="fileName" attributeType="String" defaultValueString=""/>
            <relationship name="note" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Note" inverseName="attachments" inverseEntity="Note"/>
        </entity>
    """

  private static func note2(extra: String) -> String {
    """
        <entity name="Note" representedClassName="Note" syncable="YES" codeGenerationType="class">
            <attribute name="body" optional="YES" attributeType="String"/>
            \(extra)
            <attribute name="createdAt" attributeType="Date" usesScalarValueType="NO"/>
            <attribute name="isPinned" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
            <attribute name="modifiedAt" optional="YES" attributeType="Date" usesScalarValueType="NO" elementID="updatedAt"/>
            <attribute name="title" attributeType="String" defaultValueString=""/>
            <attribute name="wordCount" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
            <relationship name="attachments" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Attachment" inverseName="note" inverseEntity="Attachment"/>
            <relationship name="notebook" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Notebook" inverseName="notes" inverseEntity="Notebook"/>
            <relationship name="tags" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Tag" inverseName="notes" inverseEntity="Tag"/>
        </entity>
    """
  }
}
