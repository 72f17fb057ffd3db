import DemoSupport
import EngineTestSupport
import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

@testable import ObjectGraph

#if canImport(Glibc)
  import Glibc
#endif

/// The files SQLite keeps beside a store: a `-wal` that is another database's never reaches the store, a
/// log without its store is never deleted by a new one, and a side file that is not a file never hangs or
/// misleads the open.
@Suite("Side files: a -wal that is not the store's, a log without its store, side files that are not files", .temporaryFolders)
struct SideFileTests {
  static func model() throws -> NSManagedObjectModel {
    try ReliabilityTests.noteModel()
  }

  /// Saves `count` notes titled `prefix 0`, `prefix 1`… in one save to the stack's store.
  static func save(_ count: Int, _ prefix: String, in stack: StoreStack) throws {
    let context = stack.context
    try context.performAndWait {
      let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Note"])
      for index in 0..<count { NSManagedObject(entity: entity, insertInto: context).setValue("\(prefix) \(index)", forKey: "title") }
      try context.save()
    }
  }

  /// A closed store at `url` with `count` notes, and no `-wal` beside it.
  static func closedStore(at url: URL, notes count: Int) throws {
    let stack = try StoreStack(model: try model(), at: url)
    try save(count, "closed", in: stack)
    try stack.close()
    #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
  }

  static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

  /// The number of notes the store at `url` opens with.
  static func count(
    _ url: URL,
    options: [AnyHashable: Any]? = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true]
  ) throws -> Int {
    try ReliabilityTests.titles(url, model: try model(), options: options).count
  }

  /// Expects every open of `url` (read-write and read-only) to be refused naming its `-wal`, with the store
  /// and the `-wal` left byte for byte as they were.
  static func expectLogRefused(_ url: URL, saying finding: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let store = try bytes(url.path)
    let log = try bytes(url.path + "-wal")
    for options in [
      [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true],
      [NSReadOnlyPersistentStoreOption: true],
    ] {
      let error = expectCode(.persistentStoreInvalidType, { _ = try count(url, options: options) }, sourceLocation: sourceLocation)
      #expect(error?.message.contains("\(url.path)-wal") == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
      #expect(error?.message.contains(finding) == true, "\(error?.message ?? "")", sourceLocation: sourceLocation)
    }
    #expect(try bytes(url.path) == store, "the store file is untouched", sourceLocation: sourceLocation)
    #expect(try bytes(url.path + "-wal") == log, "the -wal is untouched", sourceLocation: sourceLocation)
  }

  // MARK: - A -wal that is not the store's

  @Test(
    "Another store's -wal beside a store is refused, read-write and read-only, naming it; both files stay; without it the store opens whole"
  )
  func anotherStoresLog() throws {
    let folder = try TemporaryFolder()
    let store = folder.appending("Store.sqlite")
    try Self.closedStore(at: store, notes: 63)
    let other = folder.appending("Other.sqlite")
    let writer = try StoreStack(model: try Self.model(), at: other)
    try Self.save(1_223, "other", in: writer)
    try FileManager.default.copyItem(atPath: other.path + "-wal", toPath: store.path + "-wal")
    try writer.close()

    try Self.expectLogRefused(store, saying: "is not this store's")
    #expect(try rawRows(store, "PRAGMA integrity_check").first?[0] as String? == "ok")
    try FileManager.default.removeItem(atPath: store.path + "-wal")
    try? FileManager.default.removeItem(atPath: store.path + "-shm")
    #expect(try Self.count(store) == 63)
  }

  @Test("An older copy of a store with the -wal its original wrote after a checkpoint is refused: the log needs pages the copy lacks")
  func olderCopyWithLaterLog() throws {
    let folder = try TemporaryFolder()
    let original = folder.appending("Original.sqlite")
    try Self.closedStore(at: original, notes: 300)
    let copy = folder.appending("Copy.sqlite")
    try FileManager.default.copyItem(at: original, to: copy)
    let stack = try StoreStack(model: try Self.model(), at: original)
    try Self.save(600, "later", in: stack)
    // The original folds its log into its file, then saves again: its new log builds on a file the copy is not.
    let checkpointer = try DatabaseQueue(path: original.path)
    try checkpointer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    try checkpointer.close()
    try Self.save(40, "latest", in: stack)
    try FileManager.default.copyItem(atPath: original.path + "-wal", toPath: copy.path + "-wal")
    try stack.close()

    try Self.expectLogRefused(copy, saying: "pages")
  }

  @Test("A store's own -wal from before its file moved on (a log older than the file) is refused: its key counters went back")
  func staleOwnLog() throws {
    let folder = try TemporaryFolder()
    let store = folder.appending("Store.sqlite")
    try Self.closedStore(at: store, notes: 20)
    let stack = try StoreStack(model: try Self.model(), at: store)
    try Self.save(10, "early", in: stack)
    let oldLog = folder.appending("old-wal")
    try FileManager.default.copyItem(atPath: store.path + "-wal", toPath: oldLog.path)
    try Self.save(50, "late", in: stack)
    try stack.close()
    try FileManager.default.copyItem(atPath: oldLog.path, toPath: store.path + "-wal")

    try Self.expectLogRefused(store, saying: "is not this store's")
  }

  @Test("A store's own -wal, left by a killed process or copied with it, opens with every save: after a checkpoint too")
  func ownLogOpens() throws {
    let folder = try TemporaryFolder()
    let store = folder.appending("Store.sqlite")
    try Self.closedStore(at: store, notes: 5)
    let stack = try StoreStack(model: try Self.model(), at: store)
    try Self.save(200, "first", in: stack)
    let killed = folder.appending("Killed.sqlite")
    try copyStoreFiles(store, to: killed)
    let checkpointer = try DatabaseQueue(path: store.path)
    try checkpointer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
    try checkpointer.close()
    try Self.save(30, "second", in: stack)
    let killedLater = folder.appending("KilledLater.sqlite")
    try copyStoreFiles(store, to: killedLater)
    try stack.close()

    #expect(
      try Self.count(
        killed,
        options: [NSReadOnlyPersistentStoreOption: true]) == 205)
    #expect(try Self.count(killed) == 205)
    #expect(try Self.count(killedLater) == 235)
  }

  @Test(
    "replacePersistentStore copies through a rollback journal: no -wal holding the other store is ever beside the destination; a destination open elsewhere is refused, unchanged"
  )
  func replacedStoreOpens() throws {
    let folder = try TemporaryFolder()
    let destination = folder.appending("Destination.sqlite")
    try Self.closedStore(at: destination, notes: 3)
    let source = folder.appending("Source.sqlite")
    try Self.closedStore(at: source, notes: 8)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Self.model())
    // Another connection on the destination: the copy cannot leave WAL mode under it, and is refused.
    let keeper = try DatabaseQueue(path: destination.path)
    _ = try keeper.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM ZNOTE") }
    _ = expectCode(.persistentStoreOperation) {
      try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: .sqlite)
    }
    try keeper.close()
    #expect(try Self.count(destination) == 3)

    try coordinator.replacePersistentStore(at: destination, withPersistentStoreFrom: source, type: .sqlite)
    #expect((NSPersistentStore.size(destination.path + "-wal") ?? 0) == 0, "the copy wrote no log")
    #expect(try rawRows(destination, "PRAGMA journal_mode").first?[0] as String? == "wal", "the copy keeps the source's WAL mode")
    #expect(try Self.count(destination) == 8)
  }

  @Test(
    "Mutated -wal files (cut short, bytes flipped, another store's frames spliced in) beside a store: each open ends in a whole store or a refusal that leaves both files as they were"
  )
  func mutatedLogs() throws {
    let seed = UInt64(ProcessInfo.processInfo.environment["OBJECTGRAPH_FUZZ_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64(Int32.max))
    print("SideFileTests.mutatedLogs: seed \(seed) (replay: OBJECTGRAPH_FUZZ_SEED=\(seed))")
    var random = SeededGenerator(seed: seed)
    let folder = try TemporaryFolder()
    let store = folder.appending("Store.sqlite")
    try Self.closedStore(at: store, notes: 40)
    let stack = try StoreStack(model: try Self.model(), at: store)
    try Self.save(300, "logged", in: stack)
    let own = try Self.bytes(store.path + "-wal")
    let pristine = try Self.bytes(store.path)
    try stack.close()
    let other = folder.appending("Other.sqlite")
    let writer = try StoreStack(model: try Self.model(), at: other)
    try Self.save(500, "other", in: writer)
    let foreign = try Self.bytes(other.path + "-wal")
    try writer.close()

    var outcomes: [String: Int] = [:]
    for attempt in 0..<24 {
      var log = [UInt8](own)
      switch attempt % 3 {
      case 0: log = Array(log.prefix(Int.random(in: 0..<log.count, using: &random)))
      case 1:
        for _ in 0..<Int.random(in: 1...6, using: &random) {
          log[Int.random(in: 0..<log.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
        }
      default:
        // Frames of the other store's log over some of this one's, under this log's header.
        let start = 32 + Int.random(in: 0..<max(1, (log.count - 32) / 4120), using: &random) * 4120
        let length = min(log.count - start, foreign.count - 32, 4120 * Int.random(in: 1...6, using: &random))
        if length > 0 { log.replaceSubrange(start..<start + length, with: foreign[32..<32 + length]) }
      }
      let url = folder.appending("Mutated\(attempt).sqlite")
      try pristine.write(to: url)
      try Data(log).write(to: URL(fileURLWithPath: url.path + "-wal"))
      do {
        let count = try Self.count(url)
        #expect(try rawRows(url, "PRAGMA integrity_check").first?[0] as String? == "ok", "attempt \(attempt) opened a damaged store")
        #expect(count >= 40 && count <= 340, "attempt \(attempt): \(count) notes")
        outcomes["opened", default: 0] += 1
      } catch let error as ObjectGraphError {
        #expect(try Self.bytes(url.path) == pristine, "attempt \(attempt) was refused (\(error.code)) and the store changed")
        #expect(try Self.bytes(url.path + "-wal") == Data(log), "attempt \(attempt) was refused and the -wal changed")
        outcomes["refused \(error.code)", default: 0] += 1
      }
    }
    print("SideFileTests.mutatedLogs: " + outcomes.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
  }

  // MARK: - A log without its store

  @Test("A -wal with saves and no store (or an empty store file) is refused naming it; nothing is created and the -wal stays")
  func logWithoutStore() throws {
    let folder = try TemporaryFolder()
    let store = folder.appending("Store.sqlite")
    let stack = try StoreStack(model: try Self.model(), at: store)
    try Self.save(40, "kept", in: stack)
    let moved = folder.appending("Moved.sqlite")
    try FileManager.default.copyItem(atPath: store.path + "-wal", toPath: moved.path + "-wal")
    try stack.close()
    let log = try Self.bytes(moved.path + "-wal")
    for options in [
      [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true],
      [NSReadOnlyPersistentStoreOption: true],
    ] {
      let error = expectCode(.persistentStoreOpen) { _ = try Self.count(moved, options: options) }
      #expect(error?.message.contains("\(moved.path)-wal") == true, "\(error?.message ?? "")")
      #expect(!FileManager.default.fileExists(atPath: moved.path), "no store was created")
      #expect(try Self.bytes(moved.path + "-wal") == log)
    }
    // An empty store file beside it: SQLite would delete the -wal.
    #expect(FileManager.default.createFile(atPath: moved.path, contents: Data()))
    _ = expectCode(.persistentStoreOpen) { _ = try Self.count(moved) }
    #expect(try Self.bytes(moved.path + "-wal") == log)
    #expect(try Self.bytes(moved.path).isEmpty)

    // A -journal with something in it and no store.
    let journaled = folder.appending("Journaled.sqlite")
    try Data(repeating: 7, count: 512).write(to: URL(fileURLWithPath: journaled.path + "-journal"))
    let error = expectCode(.persistentStoreOpen) { _ = try Self.count(journaled) }
    #expect(error?.message.contains("\(journaled.path)-journal") == true, "\(error?.message ?? "")")
    #expect(!FileManager.default.fileExists(atPath: journaled.path))
    // Empty side files are nothing to keep: the store is created.
    let fresh = folder.appending("Fresh.sqlite")
    #expect(FileManager.default.createFile(atPath: fresh.path + "-wal", contents: Data()))
    #expect(try Self.count(fresh) == 0)
  }

  // MARK: - Side files that are not files

  /// Runs `body` on another thread and waits at most 20 seconds for it: an open that blocks (on a named
  /// pipe) fails the test instead of hanging the run.
  static func withinTimeLimit<T: Sendable>(_ body: @escaping @Sendable () throws -> T) -> Result<T, any Error>? {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<Result<T, any Error>?>(nil)
    Thread.detachNewThread {
      let outcome = Result { try body() }
      result.withLock { $0 = outcome }
      done.signal()
    }
    guard done.wait(timeout: .now() + 20) == .success else { return nil }
    return result.withLock { $0 }
  }

  @Test(
    "A named pipe or a folder at the store's -journal, -wal or -shm is refused at once, read-write and read-only, naming it; nothing is written",
    arguments: ["-journal", "-wal", "-shm"])
  func sideFilesThatAreNotFiles(suffix: String) throws {
    let folder = try TemporaryFolder()
    let store = folder.appending("Store.sqlite")
    try Self.closedStore(at: store, notes: 2)
    let before = try Self.bytes(store.path)
    let side = store.path + suffix
    for kind in ["pipe", "folder"] {
      if kind == "pipe" {
        #expect(mkfifo(side, 0o644) == 0)
      } else {
        try FileManager.default.createDirectory(atPath: side, withIntermediateDirectories: false)
      }
      for options in [
        [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true],
        [NSReadOnlyPersistentStoreOption: true],
      ] {
        let outcome = Self.withinTimeLimit { try Self.count(store, options: options) }
        guard let outcome else {
          Issue.record("The open with a \(kind) at \(suffix) did not return within 20 s")
          return
        }
        guard case .failure(let error as ObjectGraphError) = outcome else {
          Issue.record("The open with a \(kind) at \(suffix) was not refused: \(outcome)")
          continue
        }
        #expect(error.code == .persistentStoreOpen)
        #expect(error.message.contains(side), "\(error.message)")
        #expect(error.message.contains(kind == "pipe" ? "a named pipe" : "a folder"), "\(error.message)")
        #expect(!error.message.contains("full"), "\(error.message)")
      }
      // A new store there is refused as well, before SQLite opens anything.
      let fresh = folder.appending("Fresh.sqlite")
      if kind == "pipe" { #expect(mkfifo(fresh.path + suffix, 0o644) == 0) }
      if kind == "pipe", case .failure(let error as ObjectGraphError)? = Self.withinTimeLimit({ try Self.count(fresh) }) {
        #expect(error.message.contains(fresh.path + suffix), "\(error.message)")
      } else if kind == "pipe" {
        Issue.record("Creating a store with a named pipe at its \(suffix) was not refused")
      }
      try? FileManager.default.removeItem(atPath: fresh.path + suffix)
      try? FileManager.default.removeItem(atPath: fresh.path)
      try FileManager.default.removeItem(atPath: side)
    }
    #expect(try Self.bytes(store.path) == before)
    #expect(try Self.count(store) == 2)
  }
}
