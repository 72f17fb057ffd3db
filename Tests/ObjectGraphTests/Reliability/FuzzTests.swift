import DemoSupport
import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// Seeded fuzzing of what a learner hands the engine: predicate formats and their arguments, Xcode model
/// files, store files. Every input must end in a result or a thrown `ObjectGraphError`: never a crash, a
/// hang (the suite's time limit), another error type, or a change to the input file.
///
/// Each test prints its seed. `OBJECTGRAPH_FUZZ_SEED` replays one; `OBJECTGRAPH_FUZZ_COUNT` sets how many
/// inputs each test tries (CI's default is small; Docs/ObjectGraph.md, "Reliability: trying to lose data", gives the long run).
@Suite("Fuzzing: random and mutated inputs end in a result or an ObjectGraphError", .timeLimit(.minutes(5)), .temporaryFolders)
struct FuzzTests {
  static var count: Int { ProcessInfo.processInfo.environment["OBJECTGRAPH_FUZZ_COUNT"].flatMap(Int.init) ?? 1_500 }

  static func seed(_ test: String) -> UInt64 {
    let seed = ProcessInfo.processInfo.environment["OBJECTGRAPH_FUZZ_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1..<UInt64(Int32.max))
    print("FuzzTests.\(test): seed \(seed), \(count) inputs (replay: OBJECTGRAPH_FUZZ_SEED=\(seed))")
    return seed
  }

  // MARK: - Predicates

  /// Valid formats to mutate, over the test model's Note (title, body, rating, createdAt, notebook, tags).
  static let formats = [
    "title == %@", "rating > 3 AND NOT (body == nil)", "title BEGINSWITH[cd] 'b'", "ANY tags.name IN %@",
    "notebook.name CONTAINS 'x' OR rating BETWEEN {1, 5}", "tags.@count > 2", "%K == %@", "title MATCHES '[a-z]+'",
    "SUBQUERY(tags, $t, $t.name == 'a').@count > 0", "createdAt < %@", "TRUEPREDICATE", "title LIKE[c] '*a?'",
    "ALL tags.name != 'x'", "NONE tags.name ENDSWITH 'z'", "rating IN {1, 2, 3}", "self == %@", "%@ IN tags.name",
    "(rating == 0 OR rating == 1) AND title == 'beta'", "%1$K == %2$d OR %1$K == %2$d", "rating >= -9223372036854775808",
  ]
  /// Formats deep without parentheses (issue 35), mutated too: flat arithmetic chains, a long flat OR, and
  /// compounds folded as the old `||` printed them, on either side of the depth limit (`PredicateNode.maximumDepth`).
  static let deepFormats: [String] = {
    let ones: [String] = Array(repeating: "1", count: 3_000)
    let ors: [String] = (0..<2_000).map { "rating == \($0)" }
    let folds: [String] = (1...60).map { " OR rating == \($0))" }
    return [
      "rating == " + ones.prefix(62).joined(separator: " + "), "rating == " + ones.joined(separator: " + "),
      "rating * " + ones.prefix(70).joined(separator: " * ") + " > 0", ors.joined(separator: " OR "),
      String(repeating: "(", count: 60) + "rating == 0" + folds.joined(), String(repeating: "NOT ", count: 62) + "rating == 1",
    ]
  }()
  static let tokens = [
    "title", "body", "rating", "notebook", "tags", "name", ".", "@count", "@sum", "==", "!=", "<", ">=", "=<", "AND", "OR",
    "NOT", "!", "&&", "||", "(", ")", "{", "}", ",", "%@", "%K", "%d", "%1$@", "'", "\"", "'a'", "\"b\"", "3", "-1", "1e309",
    "9223372036854775808", "nil", "NULL", "YES", "FALSE", "ANY", "ALL", "NONE", "SOME", "IN", "BETWEEN", "BEGINSWITH",
    "CONTAINS", "LIKE", "MATCHES", "[cd]", "[c", "SUBQUERY", "$t", "SELF", "TRUEPREDICATE", "FALSEPREDICATE", " ", "\\", "#",
  ]
  static let arguments: [[any Sendable]] = [
    [], ["a"], [3], ["title", "a"], [["a", "b"]], [Date(timeIntervalSinceReferenceDate: 0)], [3.5, "x", 1], [Set(["z"])],
    [Optional<String>.none as any Sendable], [Data([0, 1])],
  ]

  @Test("random and mutated predicate formats, with random arguments, parse and fetch or throw ObjectGraphError")
  func predicates() throws {
    var random = SeededGenerator(seed: Self.seed("predicates"))
    let stack = try StoreStack(type: .inMemory)
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "a"
      try stack.context.save()
    }
    var parsed = 0
    var fetched = 0
    for _ in 0..<Self.count {
      let format: String
      switch Int.random(in: 0..<4, using: &random) {
      case 0:
        format = (0..<Int.random(in: 1...10, using: &random)).map { _ in Self.tokens.randomElement(using: &random) ?? "" }.joined(
          separator: Bool.random(using: &random) ? " " : "")
      case 1: format = Self.mutate((Self.formats + Self.deepFormats).randomElement(using: &random) ?? "", &random)
      case 2: format = Self.mutate(Self.randomPredicate(depth: 0, &random), &random)
      default: format = Self.randomPredicate(depth: 0, &random)
      }
      // Mostly one argument per specifier, of a fitting kind; sometimes any list, to try the mismatches.
      let arguments =
        Int.random(in: 0..<5, using: &random) == 0
        ? Self.arguments.randomElement(using: &random) ?? [] : Self.fittingArguments(for: format, &random)
      let predicate = NSPredicate(format: format, argumentArray: arguments.map { $0 as Any })
      // A format that does not parse makes a predicate that carries the message (never a crash).
      guard predicate.formatError == nil else { continue }
      parsed += 1
      stack.context.performAndWait {
        let request = NSFetchRequest<Note>(entityName: "Note")
        request.predicate = predicate
        do {
          _ = try stack.context.fetch(request)
          fetched += 1
        } catch is ObjectGraphError {
        } catch {
          Issue.record("fetching with \(format) and \(arguments): \(type(of: error)) instead of ObjectGraphError: \(error)")
        }
      }
    }
    print("FuzzTests.predicates: \(Self.count) formats, \(parsed) parsed, \(fetched) fetched")
  }

  /// A predicate from a small grammar over the test model: comparisons of key paths with values, joined
  /// by AND, OR and NOT. Well-formed, but not always well-typed (`rating CONTAINS 'a'`).
  static func randomPredicate(depth: Int, _ random: inout SeededGenerator) -> String {
    let keyPaths = [
      "title", "body", "rating", "createdAt", "notebook.name", "notebook", "ANY tags.name", "ALL tags.name", "tags.@count",
      "notebook.notes.@count", "SELF", "%K", "tags.name", "attachments.size", "lock.reason",
    ]
    let operators = [
      "==", "!=", "<", ">", "<=", ">=", "BEGINSWITH", "ENDSWITH[c]", "CONTAINS[cd]", "LIKE", "MATCHES", "IN", "BETWEEN",
      "=[cd]",
    ]
    let values = [
      "'a'", "\"b*\"", "3", "-2.5", "nil", "YES", "%@", "%d", "{1, 2}", "{'a', 'b'}", "title", "$x", "'[a-z'", "''", "%K",
    ]
    if depth < 3 {
      switch Int.random(in: 0..<6, using: &random) {
      case 0:
        return "(\(randomPredicate(depth: depth + 1, &random)) AND \(randomPredicate(depth: depth + 1, &random)))"
      case 1: return "(\(randomPredicate(depth: depth + 1, &random)) OR \(randomPredicate(depth: depth + 1, &random)))"
      case 2: return "NOT \(randomPredicate(depth: depth + 1, &random))"
      default: break
      }
    }
    if Int.random(in: 0..<12, using: &random) == 0 {
      return "SUBQUERY(tags, $t, $t.name \(operators.randomElement(using: &random) ?? "==") 'a').@count > 0"
    }
    return "\(keyPaths.randomElement(using: &random) ?? "title") \(operators.randomElement(using: &random) ?? "==") "
      + (values.randomElement(using: &random) ?? "'a'")
  }

  /// An argument for each `%@`, `%K` and `%d` of `format`, in order: a key for `%K`, a number for `%d`, and
  /// a string, number, date, list or nil for `%@`.
  static func fittingArguments(for format: String, _ random: inout SeededGenerator) -> [any Sendable] {
    let objects: [any Sendable] = [
      "a", 3, 2.5, Date(timeIntervalSinceReferenceDate: 0), ["a", "b"], [1, 2], Optional<String>.none as any Sendable, true,
    ]
    var arguments: [any Sendable] = []
    var rest = Substring(format)
    while let percent = rest.firstIndex(of: "%") {
      let next = rest[rest.index(after: percent)...]
      switch next.first {
      case "K": arguments.append(["title", "rating", "body", "notebook.name", "tags.name"].randomElement(using: &random) ?? "title")
      case "d": arguments.append(Int.random(in: -3...3, using: &random))
      case "@": arguments.append(objects.randomElement(using: &random) ?? "a")
      default: break
      }
      rest = next
    }
    return arguments
  }

  /// A few random edits of `text`: characters deleted, inserted, swapped, or the text cut short.
  static func mutate(_ text: String, _ random: inout SeededGenerator) -> String {
    var characters = Array(text)
    let alphabet = Array("()[]{}'\"%@$#.,=<>!&| abcKdT01-\\\u{0}é")
    for _ in 0..<Int.random(in: 1...3, using: &random) {
      guard !characters.isEmpty else {
        characters.append(alphabet.randomElement(using: &random) ?? " ")
        continue
      }
      let index = Int.random(in: 0..<characters.count, using: &random)
      switch Int.random(in: 0..<4, using: &random) {
      case 0: characters.remove(at: index)
      case 1: characters.insert(alphabet.randomElement(using: &random) ?? " ", at: index)
      case 2: characters[index] = alphabet.randomElement(using: &random) ?? " "
      default: characters = Array(characters.prefix(index))
      }
    }
    return String(characters)
  }

  // MARK: - Xcode models

  @Test("mutated contents files of the fixture models load or throw ObjectGraphError, and are left as they were", .needsFixtures)
  func xcodeModels() throws {
    var random = SeededGenerator(seed: Self.seed("xcodeModels"))
    let contentsFiles = try Self.fixtureContentsFiles()
    try #require(!contentsFiles.isEmpty)
    let folder = try TemporaryFolder()
    var loaded = 0
    for attempt in 0..<max(1, Self.count / 10) {
      let original = try Data(contentsOf: contentsFiles[attempt % contentsFiles.count])
      let mutated = Self.mutate(bytes: original, &random)
      let model = folder.url.appendingPathComponent("Fuzz\(attempt).xcdatamodel", isDirectory: true)
      try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
      let contents = model.appendingPathComponent("contents")
      try mutated.write(to: contents)
      do {
        _ = try NSManagedObjectModel(loadingContentsOf: model)
        loaded += 1
      } catch is ObjectGraphError {
      } catch {
        Issue.record("\(contentsFiles[attempt % contentsFiles.count].path), mutation \(attempt): \(type(of: error)): \(error)")
      }
      #expect(try Data(contentsOf: contents) == mutated, "the model file was changed")
    }
    print("FuzzTests.xcodeModels: \(max(1, Self.count / 10)) mutated models, \(loaded) loaded")
  }

  static func fixtureContentsFiles() throws -> [URL] {
    let enumerator = FileManager.default.enumerator(at: try Fixtures.folder(), includingPropertiesForKeys: nil)
    var files: [URL] = []
    while let url = enumerator?.nextObject() as? URL {
      if url.lastPathComponent == "contents" { files.append(url) }
    }
    return files.sorted { $0.path < $1.path }
  }

  /// Random edits of XML bytes: a byte flipped, a run deleted or duplicated, the file cut short, or an
  /// element's name or an attribute's value swapped for another from the same file.
  static func mutate(bytes: Data, _ random: inout SeededGenerator) -> Data {
    var bytes = [UInt8](bytes)
    for _ in 0..<Int.random(in: 1...4, using: &random) {
      guard bytes.count > 2 else { break }
      let index = Int.random(in: 0..<bytes.count, using: &random)
      let length = min(Int.random(in: 1...40, using: &random), bytes.count - index)
      switch Int.random(in: 0..<5, using: &random) {
      case 0: bytes[index] ^= UInt8.random(in: 1...255, using: &random)
      case 1: bytes.removeSubrange(index..<(index + length))
      case 2: bytes.insert(contentsOf: bytes[index..<(index + length)], at: index)
      case 3: bytes = Array(bytes.prefix(index))
      default:
        // Swap a quoted value for another quoted value of the file.
        let quotes = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\"") }
        guard quotes.count >= 4 else { continue }
        let pick = Int.random(in: 0..<(quotes.count / 2), using: &random) * 2
        let other = Int.random(in: 0..<(quotes.count / 2), using: &random) * 2
        let value = Array(bytes[(quotes[other] + 1)..<quotes[other + 1]])
        bytes.replaceSubrange((quotes[pick] + 1)..<quotes[pick + 1], with: value)
      }
    }
    return Data(bytes)
  }

  // MARK: - Store files

  @Test("mutated store files (cut short, pages flipped, our tables altered) open and fetch or throw ObjectGraphError, untouched")
  func storeFiles() throws {
    var random = SeededGenerator(seed: Self.seed("storeFiles"))
    let stack = try StoreStack()
    try stack.context.performAndWait {
      for index in 0..<200 {
        let note = Note(context: stack.context)
        note.title = "note \(index) " + String(repeating: "x", count: index * 7 % 300)
        note.rating = Int64(index)
      }
      try stack.context.save()
    }
    // One file, no -wal: closed, checkpointed and in the rollback-journal mode, so a copy is the whole store.
    for store in stack.coordinator.persistentStores { try stack.coordinator.remove(store) }
    try DatabaseQueue(path: stack.storeURL.path).writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
      try db.execute(sql: "PRAGMA journal_mode = DELETE")
    }
    let pristine = try Data(contentsOf: stack.storeURL)
    let alterations = [
      "DROP TABLE Z_METADATA", "DELETE FROM Z_METADATA", "UPDATE Z_METADATA SET Z_PLIST = x'00'", "DROP TABLE Z_PRIMARYKEY",
      "UPDATE Z_PRIMARYKEY SET Z_MAX = -5", "ALTER TABLE ZNOTE RENAME COLUMN ZTITLE TO ZOTHER", "DROP TABLE ZNOTE",
      "UPDATE ZNOTE SET ZTITLE = NULL", "UPDATE ZNOTE SET ZRATING = 'many'", "UPDATE ZNOTE SET Z_ENT = 99",
      "UPDATE ZNOTE SET ZNOTEBOOK = 12345", "CREATE TABLE ZSTRANGER (Z_PK INTEGER PRIMARY KEY)", "DROP TABLE Z_MODELCACHE",
      "UPDATE Z_METADATA SET Z_UUID = NULL",
    ]
    let folder = try TemporaryFolder()
    var opened = 0
    var refusedCodes: [Int: Int] = [:]
    for attempt in 0..<max(1, Self.count / 10) {
      let file = folder.url.appendingPathComponent("Fuzz\(attempt).sqlite")
      var bytes = [UInt8](pristine)
      switch attempt % 3 {
      case 0: bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random)))
      case 1:
        for _ in 0..<Int.random(in: 1...8, using: &random) {
          bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
        }
      default: break
      }
      try Data(bytes).write(to: file)
      let alteration = alterations[Int.random(in: 0..<alterations.count, using: &random)]
      if attempt % 3 == 2 {
        try DatabaseQueue(path: file.path).writeWithoutTransaction { db in try db.execute(sql: alteration) }
        bytes = [UInt8](try Data(contentsOf: file))
      }
      let coordinator = NSPersistentStoreCoordinator(managedObjectModel: stack.model)
      var refused = false
      do {
        try coordinator.addPersistentStore(
          type: .sqlite, at: file,
          options: [
            NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
            NSSQLitePragmasOption: ["journal_mode": "DELETE"],
          ])
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
          _ = try context.fetch(NSFetchRequest<Note>(entityName: "Note")).map(\.title)
          _ = try context.count(for: NSFetchRequest<Note>(entityName: "Note"))
        }
        opened += 1
      } catch let error as ObjectGraphError {
        refused = coordinator.persistentStores.isEmpty
        if refused { refusedCodes[error.code, default: 0] += 1 }
      } catch {
        Issue.record("store mutation \(attempt): \(type(of: error)) instead of ObjectGraphError: \(error)")
      }
      for store in coordinator.persistentStores { try? coordinator.remove(store) }
      // A store that was refused is left exactly as it was. (One that opened may have been brought up to
      // date, as Core Data does: its fetch indexes made to match the model, its model cache rewritten.)
      if refused {
        let kind = attempt % 3 == 0 ? "cut short" : attempt % 3 == 1 ? "bytes flipped" : alteration
        #expect(try Data(contentsOf: file) == Data(bytes), "store mutation \(attempt) (\(kind)) was refused, and changed")
      }
    }
    print(
      "FuzzTests.storeFiles: \(max(1, Self.count / 10)) mutated stores, \(opened) opened and fetched; refused, by code: "
        + refusedCodes.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
  }
}
