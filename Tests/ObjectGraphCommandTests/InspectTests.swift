import Foundation
import TestSupport
import Testing

// Runs the built `objectgraph` as a learner would, on a copy of the store Core Data wrote that the repository
// keeps in Docs/Examples/CoreDataPlus, and checks what it prints. The expected values are what
// `sqlite3 -readonly` shows on a copy of the file (Z_PK, ZMAKER, ZFIRSTNAME, …), so they prove the engine
// reads Apple's file as Apple wrote it.

@Suite("objectgraph inspect", .timeLimit(.minutes(2)), .temporaryFolders)
struct InspectTests {
  /// `Docs/Examples/CoreDataPlus` of this checkout, found from this file's own path.
  static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Docs/Examples/CoreDataPlus")
  static let model = example.appendingPathComponent("SampleModel.xcdatamodeld")

  /// A fresh copy of the example store in `folder`: the tests never open the repository's file itself.
  static func copyOfStore(in folder: TemporaryFolder) throws -> URL {
    let url = folder.appending("SampleModel_V1.sqlite")
    try FileManager.default.copyItem(at: example.appendingPathComponent("SampleModel_V1.sqlite"), to: url)
    return url
  }

  static func inspect(_ arguments: [String]) throws -> ProcessOutput {
    try ProcessOutput.run(try BuildProducts.requireExecutable("objectgraph"), ["inspect"] + arguments)
  }

  /// The lines of `text`.
  static func lines(_ text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  /// Expects `quoted` to come in `printed` one after the other, from the first one on.
  static func expectRun(_ quoted: [String], in printed: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    guard let start = printed.firstIndex(of: quoted[0]) else {
      Issue.record("not printed: \(quoted[0])\n\(printed.joined(separator: "\n"))", sourceLocation: sourceLocation)
      return
    }
    let found = Array(printed[start..<min(printed.count, start + quoted.count)])
    #expect(found == quoted, sourceLocation: sourceLocation)
  }

  @Test("With its model, the store's counts and first objects are what SQLite holds; the version that made it is named")
  func withModel() throws {
    let folder = try TemporaryFolder()
    let store = try Self.copyOfStore(in: folder)
    let run = try Self.inspect([store.path, "--model", Self.model.path])
    #expect(run.status == 0, "stderr: \(run.stderr)")
    #expect(run.stderr.isEmpty)
    let printed = Self.lines(run.stdout)
    #expect(printed.first == "Store: \(store.path)")
    #expect(printed.contains("  written by:    Core Data (NSPersistenceFrameworkVersion 1044)"))
    #expect(printed.contains("  journal mode:  WAL (write-ahead log)"))
    #expect(printed.contains("  UUID:          753753D3-A961-4901-AB05-8CC48B1D3853"))
    #expect(
      printed.contains(
        "  version:       SampleModel, whose entity version hashes are the store's (of its 3 versions: SampleModel, SampleModel2, SampleModel3)"
      ))
    #expect(printed.contains("  opened:        read-only"))
    // Counts: own rows (Z_ENT of the entity itself), and with the subentities.
    #expect(printed.contains("Car: 115 objects of its own, 125 with its subentities (SportCar, ExpensiveSportCar)"))
    #expect(printed.contains("SportCar: 5 objects of its own, 10 with its subentities (ExpensiveSportCar)"))
    #expect(printed.contains("ExpensiveSportCar: 5 objects"))
    #expect(printed.contains("Person: 20 objects"))
    // Entities in Z_PRIMARYKEY's order: roots by name, each followed by its subentities.
    let headings = printed.filter { !$0.hasPrefix(" ") && $0.contains(": ") && !$0.hasPrefix("Store") && !$0.hasPrefix("Model") }
    #expect(headings.map { String($0.prefix { $0 != ":" }) } == ["Car", "SportCar", "ExpensiveSportCar", "Person"])
    // ZCAR row 1: FIAT Panda, plate 170, ZOWNER 17 (ZPERSON row 17: Theodora Stone), ZCOLOR and the date NULL.
    Self.expectRun(
      [
        "  Car #1", "    color: nil", "    maker: \"FIAT\"", "    markedForDeletionAsOf: nil", "    model: \"Panda\"",
        "    numberPlate: \"170\"", "    owner: Person #17 \"Theodora Stone\"", "  Car #2",
      ], in: printed)
    #expect(printed.contains("  … 112 more"))
    // ZCAR row 87 (Z_ENT 3): an expensive sports car, limited edition (1), owned by person 9.
    Self.expectRun(
      [
        "  ExpensiveSportCar #87", "    color: nil", "    maker: \"BMW\"", "    markedForDeletionAsOf: nil", "    model: \"M6 Coupe\"",
        "    numberPlate: \"300\"", "    isLimitedEdition: true", "    owner: Person #9 \"Faron Moreton\"",
      ], in: printed)
    // ZPERSON row 1: ZID FEFE4176…, ZUPDATEDAT 639503569.638733 (seconds since 2001), no cars; row 2 has car 41.
    Self.expectRun(
      [
        "  Person #1", "    firstName: \"Victoria\"", "    id: FEFE4176-912D-429F-9C83-662FFF641115", "    lastName: \"Coster\"",
        "    updatedAt: 2021-04-07T15:52:49.639Z", "    cars: 0 objects", "  Person #2",
      ], in: printed)
    #expect(printed.contains("    cars: 1 object: Car #41"))
    // Transient attributes (Car.currentDrivingSpeed, Person.isDriving) are not in the store: not shown.
    #expect(!printed.contains { $0.contains("currentDrivingSpeed") || $0.contains("isDriving") })
  }

  @Test("A to-many shows its count and its first members by primary key; --limit sets how many objects and members")
  func limitAndToMany() throws {
    let folder = try TemporaryFolder()
    let store = try Self.copyOfStore(in: folder)
    let run = try Self.inspect([store.path, "--model", Self.model.path, "--limit", "20"])
    #expect(run.status == 0, "stderr: \(run.stderr)")
    let printed = Self.lines(run.stdout)
    // Person 17 owns 100 cars (SELECT Z_PK FROM ZCAR WHERE ZOWNER = 17 ORDER BY Z_PK: 1, 2, 3, …).
    let cars = try #require(printed.firstIndex(of: "  Person #17").map { printed[$0 + 5] })
    #expect(cars.hasPrefix("    cars: 100 objects: Car #1, Car #2, Car #3, "), "\(cars)")
    #expect(cars.hasSuffix(", …"))
    #expect(cars.components(separatedBy: "#").count - 1 == 20)
    #expect(printed.filter { $0.hasPrefix("  Person #") }.count == 20)
    #expect(!printed.contains("  … 0 more"))

    let none = try Self.inspect([store.path, "--model", Self.model.path, "--limit", "0"])
    #expect(none.status == 0)
    #expect(!none.stdout.contains("Car #"))
    #expect(none.stdout.contains("Person: 20 objects"))
  }

  @Test("Every model form works: one .xcdatamodel version alone picks it")
  func singleVersion() throws {
    let folder = try TemporaryFolder()
    let store = try Self.copyOfStore(in: folder)
    let version = Self.model.appendingPathComponent("SampleModel.xcdatamodel")
    let run = try Self.inspect([store.path, "--model", version.path, "--limit", "1"])
    #expect(run.status == 0, "stderr: \(run.stderr)")
    #expect(run.stdout.contains("  version:       SampleModel, whose entity version hashes are the store's\n"))
    #expect(run.stdout.contains("Person: 20 objects"))
  }

  @Test("Without a model, only the metadata is read: who wrote the file, the entities and hashes it wants, and what to pass")
  func withoutModel() throws {
    let folder = try TemporaryFolder()
    let store = try Self.copyOfStore(in: folder)
    let run = try Self.inspect([store.path])
    #expect(run.status == 0, "stderr: \(run.stderr)")
    // NSStoreModelVersionHashes of Z_METADATA.Z_PLIST, as Python's plistlib reads them.
    Self.expectRun(
      [
        "It was made with a model whose version identifier is \"1\", with these entities (version hashes, first 8 bytes):",
        "  Car                9e55552907215822…",
        "  ExpensiveSportCar  3dc7e32b1be45b5a…",
        "  Person             164268551b45108a…",
        "  SportCar           514ec1907a568299…",
        "To see its objects, pass that model (an Xcode .xcdatamodeld or .xcdatamodel, or a compiled .momd or .mom):",
        "  objectgraph inspect \(store.path) --model MODEL",
      ], in: Self.lines(run.stdout))
    #expect(run.stdout.contains("  written by:    Core Data (NSPersistenceFrameworkVersion 1044)"))
    #expect(!run.stdout.contains("Car #"))
  }

  @Test("Inspecting changes no byte of the store and leaves no -wal or -shm beside it, with a model or without")
  func leavesTheFileAsItWas() throws {
    let folder = try TemporaryFolder()
    let store = try Self.copyOfStore(in: folder)
    let bytes = try Data(contentsOf: store)
    for arguments in [[store.path], [store.path, "--model", Self.model.path]] {
      let run = try Self.inspect(arguments)
      #expect(run.status == 0, "stderr: \(run.stderr)")
      #expect(try Data(contentsOf: store) == bytes, "\(arguments): the file changed")
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["SampleModel_V1.sqlite"], "\(arguments)")
    }
  }

  @Test("The repository's copy of the store is still the file Core Data wrote, byte for byte")
  func exampleIsUnchanged() throws {
    // Chapter 0 runs the command on it in place (and the docs tests with it): it must stay as Core Data
    // wrote it. 45,056 bytes, WAL mode in its header, and the FNV-1a hash of the fixture's bytes.
    let original = try Data(contentsOf: Self.example.appendingPathComponent("SampleModel_V1.sqlite"))
    #expect(original.count == 45_056 && original[18] == 2 && original[19] == 2)
    #expect(Self.fnv1a(original) == 0xa2e5_fda9_fc5d_da08)
  }

  /// The 64-bit FNV-1a hash of `bytes`: enough to notice any change to a file.
  static func fnv1a(_ bytes: Data) -> UInt64 {
    bytes.reduce(0xcbf2_9ce4_8422_2325) { hash, byte in (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
  }

  @Test("A model none of whose versions made the store: the store's hashes and each version tried, exit status 1")
  func noMatchingVersion() throws {
    let folder = try TemporaryFolder()
    let store = try Self.copyOfStore(in: folder)
    let bytes = try Data(contentsOf: store)
    let version2 = Self.model.appendingPathComponent("SampleModel2.xcdatamodel")
    let run = try Self.inspect([store.path, "--model", version2.path])
    #expect(run.status == 1)
    #expect(run.stdout.isEmpty)
    let printed = Self.lines(run.stderr)
    #expect(printed.first?.hasPrefix("objectgraph: No version of \(version2.path) made \(store.path)") == true, "\(run.stderr)")
    #expect(printed.contains("  Person             164268551b45108a…"))
    #expect(
      printed.contains {
        $0.hasPrefix("  SampleModel2: ") && $0.contains("LuxuryCar not in the store") && $0.contains("no ExpensiveSportCar")
      })
    #expect(!run.stderr.contains("Fatal error"))
    #expect(try Data(contentsOf: store) == bytes)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["SampleModel_V1.sqlite"])
  }

  @Test("A missing file, a file that is not SQLite, a folder, a missing model: one message on stderr, exit status 1")
  func errors() throws {
    let folder = try TemporaryFolder()
    let store = try Self.copyOfStore(in: folder)
    let text = folder.appending("notes.txt")
    try Data("not a database\n".utf8).write(to: text)
    let cases: [(arguments: [String], message: String)] = [
      (
        [folder.appending("missing.sqlite").path],
        "couldn’t be opened because there is no such file (\(folder.appending("missing.sqlite").path))"
      ),
      ([text.path, "--model", Self.model.path], "is not a SQLite database"),
      ([folder.url.path], "is a folder. Pass the store's file"),
      ([store.path, "--model", folder.appending("Missing.xcdatamodeld").path], "nothing exists at that path"),
      ([store.path, "--model", text.path], "is a file, not an Xcode model folder"),
    ]
    for (arguments, message) in cases {
      let run = try Self.inspect(arguments)
      #expect(run.status == 1, "\(arguments)")
      #expect(run.stdout.isEmpty, "\(arguments)")
      #expect(run.stderr.hasPrefix("objectgraph: ") && run.stderr.contains(message), "\(arguments): \(run.stderr)")
      #expect(Self.lines(run.stderr).filter { !$0.isEmpty }.count == 1, "\(arguments): one line, no stack trace: \(run.stderr)")
    }
    let negative = try Self.inspect([store.path, "--limit=-1"])
    #expect(negative.status == 64 && negative.stderr.contains("--limit must be 0 or more."), "\(negative.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted() == ["SampleModel_V1.sqlite", "notes.txt"])
  }
}
