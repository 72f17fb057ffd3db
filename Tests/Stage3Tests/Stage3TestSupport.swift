import Dispatch
import EngineTestSupport
import Foundation
import NotesModel
import ObjectGraph
import Stage3
import Synchronization
import TestSupport
import Testing

/// One launch of a ``PersistenceController``, made on the main queue as an app makes it, with everything
/// its callback saw.
final class Launch: Sendable {
  /// What the callback said, where it ran, and whether the initialiser had returned by then.
  struct Callback: Sendable {
    let result: Result<Void, PersistenceControllerError>
    let onMainQueue: Bool
    let afterInitialiserReturned: Bool
  }

  let controller: PersistenceController
  /// Whether the callback had run when the initialiser returned (it must not have).
  let callbackRanBeforeReturn: Bool
  /// How many times the callback has run so far.
  var callbackCount: Int { calls.withLock { $0 } }

  private let calls: Shared<Int>
  private let first: Signal<Callback>

  /// Makes a controller in a block on the main queue, and returns once the initialiser has returned
  /// (the callback may still be to come: ``callback()`` waits for it).
  init(
    modelName: String = NotesModel.name, bundle: Bundle = NotesModel.bundle, storeFolder: URL,
    migrationProgress: (@Sendable (MigrationProgress) -> Void)? = nil
  ) async throws {
    let calls = Shared(0)
    let first = Signal<Callback>()
    let returned = Shared(false)
    let made: (PersistenceController, Bool) = try await Watchdog.callback("the initialiser, on the main queue") { done in
      DispatchQueue.main.async {
        let controller = PersistenceController(
          modelName: modelName, bundle: bundle, storeFolder: storeFolder, migrationProgress: migrationProgress
        ) { result in
          calls.withLock { $0 += 1 }
          first.fulfil(
            Callback(result: result, onMainQueue: MainQueueProbe.isOnMainQueue, afterInitialiserReturned: returned.withLock { $0 }))
        }
        returned.withLock { $0 = true }
        done((controller, calls.withLock { $0 } > 0))
      }
    }
    controller = made.0
    callbackRanBeforeReturn = made.1
    self.calls = calls
    self.first = first
  }

  /// Whether the callback has run yet.
  var hasCalledBack: Bool { first.value != nil }

  /// Waits for the callback's first call and returns it.
  func callback() async throws -> Callback { try await first.wait("the controller's callback") }

  /// Waits for the callback and returns its error, recording an issue when it reported success or did
  /// not run on the main queue.
  func failure(sourceLocation: SourceLocation = #_sourceLocation) async throws -> PersistenceControllerError {
    let call = try await callback()
    #expect(call.onMainQueue, "the callback runs on the main queue", sourceLocation: sourceLocation)
    guard case .failure(let error) = call.result else {
      Issue.record("the callback reported success", sourceLocation: sourceLocation)
      throw CancellationError()
    }
    return error
  }
}

extension PersistenceController {
  /// Calls ``PersistenceController/saveChanges(completion:)`` from the main queue, as an app would, and
  /// waits for the completion, 30 seconds at most. An error of either half is thrown.
  func saveChangesAndWait() async throws {
    let written: Result<Void, any Error> = try await Watchdog.callback("saveChanges' completion") { completion in
      DispatchQueue.main.async {
        do {
          try self.saveChanges(completion: completion)
        } catch {
          completion(.failure(error))
        }
      }
    }
    try written.get()
  }
}

// MARK: - Stores and models

/// The tutorial's model, version by version (`DataModel` is version 1, `DataModel 2` the current one).
func tutorialModel(version name: String) throws -> NSManagedObjectModel {
  try TutorialStack.model(version: name)
}

/// Writes `folder`/DataModel.sqlite with version 1 of the tutorial's model: `count` notes titled
/// "Note 1", "Note 2"…, each with an `updatedAt` (the attribute version 2 renames to `modifiedAt`).
@discardableResult
func writeVersion1Store(in folder: URL, notes count: Int) throws -> URL {
  let url = folder.appendingPathComponent("\(NotesModel.name).sqlite")
  try TutorialStack.writeVersionOneStore(
    at: url, titles: (0..<count).map { "Note \($0 + 1)" },
    updatedAt: { index in Date(timeIntervalSinceReferenceDate: Double(index + 1)) })
  return url
}

/// Writes `folder`/DataModel.sqlite (or `<name>.sqlite`) with `model`, with what `fill` inserts, and
/// closes it.
@discardableResult
func writeStore(
  in folder: URL, named name: String = NotesModel.name, model: NSManagedObjectModel, _ fill: (NSManagedObjectContext) throws -> Void
) throws -> URL {
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  let url = folder.appendingPathComponent("\(name).sqlite")
  let stack = try StoreStack(model: model, at: url)
  try stack.context.performAndWait {
    try fill(stack.context)
    try stack.context.save()
  }
  try stack.close()
  return url
}

/// Every file of a store (the file and its `-wal`, `-shm`, `-journal` companions that exist), by name,
/// with its bytes: equal before and after means untouched.
func storeFiles(_ storeURL: URL) throws -> [String: Data] {
  var files: [String: Data] = [:]
  for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: storeURL.path + suffix) {
    files[storeURL.lastPathComponent + suffix] = try Data(contentsOf: URL(fileURLWithPath: storeURL.path + suffix))
  }
  return files
}

/// Checks that every file of `before` (from ``storeFiles(_:)``) still has the same bytes. SQLite may
/// leave side files of its own (an empty `-wal`, a `-shm`) after a refused open; what was there is what
/// must not change.
func expectUntouched(_ storeURL: URL, since before: [String: Data], sourceLocation: SourceLocation = #_sourceLocation) throws {
  let after = try storeFiles(storeURL)
  for (name, bytes) in before.sorted(by: { $0.key < $1.key }) {
    #expect(
      after[name] == bytes, "\(name) changed: \(bytes.count) bytes before, \(after[name]?.count ?? 0) after", sourceLocation: sourceLocation
    )
  }
}

/// The `contents` of the tutorial's model version `name`, as the file has it.
func tutorialModelContents(version name: String) throws -> String {
  let url = try #require(NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld"))
  return try String(contentsOf: url.appendingPathComponent("\(name).xcdatamodel/contents"), encoding: .utf8)
}

/// A one-entity model's `contents`: entity `Item` with an attribute `value` of `type` ("String",
/// "Integer 64", …).
func itemModelContents(valueType type: String) -> String {
  """
  <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
  <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
      <entity name="Item" syncable="YES">
          <attribute name="value" optional="YES" attributeType="\(type)"/>
      </entity>
  </model>
  """
}

/// Holds a migration at its first progress report until ``release()``: the test can look at the world
/// while the store is, provably, still being migrated.
final class MigrationGate: Sendable {
  private let reached = Signal<Void>()
  private let released = DispatchSemaphore(value: 0)
  private let reports = Mutex<[(progress: MigrationProgress, onMainQueue: Bool)]>([])

  /// The progress handler to give the controller.
  var progress: @Sendable (MigrationProgress) -> Void {
    { [self] progress in
      let first = reports.withLock { reports in
        reports.append((progress, MainQueueProbe.isOnMainQueue))
        return reports.count == 1
      }
      if first {
        reached.fulfil(())
        // Blocks the migrating thread (a background one) until the test lets it go, however long the
        // test takes to get there: a 30 s cap let the migration go on under a loaded machine (other
        // tests holding the cooperative pool), and the test then saw a store it meant to hold back.
        // Tests release the gate in a defer; 10 minutes is only a guard against a gate left shut.
        _ = released.wait(timeout: .now() + 600)
      }
    }
  }

  /// Waits until the migration has started and is held.
  func waitUntilMigrating() async throws { try await reached.wait("the migration's first progress report") }

  /// Lets the migration go on. Call it in a `defer` right after making the gate: a second call is
  /// harmless.
  func release() { released.signal() }

  /// Every progress report so far.
  var reported: [MigrationProgress] { reports.withLock { $0.map(\.progress) } }

  /// Whether any report came on the main queue (none should).
  var anyOnMainQueue: Bool { reports.withLock { $0.contains { $0.onMainQueue } } }
}
