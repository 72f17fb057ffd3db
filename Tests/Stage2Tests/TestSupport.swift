import Foundation
import NotesModel
import ObjectGraph
import Stage2
import Synchronization

/// A fresh folder under the system's temporary folder, one per test. Call ``remove()`` when done.
struct TemporaryFolder {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent("Stage2Tests-\(UUID().uuidString)", isDirectory: true)

  init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }

  func remove() { try? FileManager.default.removeItem(at: url) }
}

extension CoreDataManager {
  /// A manager for the tutorial's model with its store in `folder`.
  convenience init(storeFolder folder: URL) {
    self.init(modelName: NotesModel.name, storeFolder: folder)
  }

  /// Calls ``CoreDataManager/saveChanges(completion:)`` from the main queue, as an app would, and waits
  /// for the disk write to end. An error of either half is thrown.
  func saveChangesAndWait() async throws {
    let context = try mainContext
    try await withCheckedThrowingContinuation { (written: CheckedContinuation<Void, any Error>) in
      context.perform {
        do {
          try self.saveChanges { written.resume(with: $0) }
        } catch {
          written.resume(throwing: error)
        }
      }
    }
  }
}

/// What the store file holds, read by a stack of its own (a second manager on the same folder, as a
/// second launch of the app would be): each note's title and body, sorted by title.
func notesInFile(_ folder: URL) async throws -> [NoteRow] {
  let context = try CoreDataManager(storeFolder: folder).mainContext
  return try await context.perform {
    let request = FetchRequest<Note>(entityName: "Note")
    request.sortDescriptors = [FetchSortDescriptor(key: "title")]
    return try context.fetch(request).map { NoteRow(title: $0.title, body: $0.body) }
  }
}

/// A note as the tests compare it.
struct NoteRow: Equatable, Sendable {
  let title: String
  let body: String?
}

/// Records the did-save notifications of one manager's two contexts, in the order they were posted, and
/// whether each was posted on the main queue.
final class SaveRecorder: Sendable {
  /// One did-save notification: `"main"` or `"private"`, and where it was posted.
  struct Event: Equatable, Sendable, CustomStringConvertible {
    let context: String
    let onMainQueue: Bool

    var description: String { "\(context) on \(onMainQueue ? "the main queue" : "another queue")" }
  }

  private let events = Mutex<[Event]>([])
  // `nonisolated(unsafe)`: set once in init, then only handed to `removeObserver`, which is thread-safe.
  nonisolated(unsafe) private var observer: (any NSObjectProtocol)?

  /// Starts recording the saves of `main` and of its parent. Call ``stop()`` when done.
  init(main: ManagedObjectContext) {
    MainQueueProbe.install
    let parent = main.parent
    observer = NotificationCenter.default.addObserver(
      forName: ManagedObjectContext.didSaveNotification, object: nil, queue: nil
    ) { [weak self] note in
      let saver = note.object as? ManagedObjectContext
      guard let self, let saver, saver === main || saver === parent else { return }
      let event = Event(context: saver === main ? "main" : "private", onMainQueue: MainQueueProbe.isOnMainQueue)
      self.events.withLock { $0.append(event) }
    }
  }

  /// The saves seen so far.
  var saves: [Event] { events.withLock { $0 } }

  func stop() {
    if let observer { NotificationCenter.default.removeObserver(observer) }
  }
}

/// Tells whether code runs on the main queue (`Thread.isMainThread` cannot: under Swift Testing on Linux,
/// main-queue blocks run on another thread).
enum MainQueueProbe {
  private static let key = DispatchSpecificKey<Bool>()
  /// Marks the main queue; evaluate it before the code to probe runs.
  static let install: Void = DispatchQueue.main.setSpecific(key: key, value: true)

  static var isOnMainQueue: Bool { DispatchQueue.getSpecific(key: key) ?? false }
}

// MARK: - Running the demo

/// Where SwiftPM put this build's products. On macOS the test bundle is a `.xctest` folder among them; on
/// Linux the `.xctest` file is itself the test runner, and `Bundle(for:)` answers with the products folder.
enum BuildProducts {
  private final class Marker {}

  static var folder: URL {
    let bundle = Bundle(for: Marker.self).bundleURL
    return bundle.pathExtension == "xctest" ? bundle.deletingLastPathComponent() : bundle
  }

  /// The executable product `name`, or `nil` when it has not been built.
  static func executable(_ name: String) -> URL? {
    let url = folder.appendingPathComponent(name)
    return FileManager.default.isExecutableFile(atPath: url.path) ? url : nil
  }
}

/// Runs `executable` with `arguments` to its end; returns its exit status and what it printed.
func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
  let process = Process()
  process.executableURL = executable
  process.arguments = arguments
  let (out, err) = (Pipe(), Pipe())
  process.standardOutput = out
  process.standardError = err
  try process.run()
  // The demo prints well under a pipe's buffer, so reading one pipe to its end first cannot block it.
  let stdout = out.fileHandleForReading.readDataToEndOfFile()
  let stderr = err.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}
