// stage1-demo: the life of an app whose only context is on the main queue.
//
// 1. Launch: build a CoreDataManager, create a notebook with a few tagged notes, save.
// 2. Relaunch: build a second manager on the same folder and find the notes on disk.
// 3. Import: insert and save many notes on the main queue while a 60 Hz "UI" ticks, and measure how
//    long the main queue could not tick. That stall is the cost stage 2 removes.
//
// The main queue is driven by dispatchMain(), as an app's run loop would drive it; everything below
// runs in blocks on the main queue.
//
//   swift run stage1-demo [--count N] [--store-folder PATH]

import Dispatch
import Foundation
import NotesModel
import ObjectGraph
import Stage1

// MARK: - Command line

let usageText = """
  usage: stage1-demo [--count N] [--store-folder PATH]

    --count N            how many notes the import saves (default 10000)
    --store-folder PATH  where the store goes (default: a new temporary folder)
    -com.apple.CoreData.ConcurrencyDebug 1, -com.apple.CoreData.SQLDebug 1
                         Core Data's debug switches, which ObjectGraph reads
  """

struct Options {
  var count = 10_000
  var storeFolder: URL?

  init(arguments: [String]) throws {
    var rest = arguments[...]
    while let argument = rest.popFirst() {
      switch argument {
      case "--count":
        guard let value = rest.popFirst(), let count = Int(value), count > 0 else {
          throw DemoError.usage("--count needs a whole number above zero")
        }
        self.count = count
      case "--store-folder":
        guard let path = rest.popFirst(), !path.isEmpty else { throw DemoError.usage("--store-folder needs a path") }
        storeFolder = URL(fileURLWithPath: path, isDirectory: true)
      case "-com.apple.CoreData.ConcurrencyDebug", "-com.apple.CoreData.SQLDebug":
        // Core Data's debug switches. ObjectGraph reads them from the command line itself.
        guard let value = rest.popFirst(), Int(value) != nil else { throw DemoError.usage("\(argument) needs a number, such as 1") }
      case "-h", "--help":
        print(usageText)
        exit(0)
      default:
        throw DemoError.usage("unknown argument '\(argument)'")
      }
    }
  }
}

enum DemoError: Error, CustomStringConvertible {
  case usage(String)

  var description: String {
    switch self {
    case .usage(let problem): return "\(problem)\n\(usageText)"
    }
  }
}

/// Prints `error` to stderr and ends the program with exit code 1.
func fail(_ error: any Error) -> Never {
  FileHandle.standardError.write(Data("stage1-demo: error: \(error)\n".utf8))
  exit(1)
}

func milliseconds(_ duration: Duration) -> Int {
  Int((duration / .milliseconds(1)).rounded())
}

// MARK: - Launch, save, relaunch

let notebookName = "Weekend"
let launchNotes: [(title: String, tags: [String])] = [
  ("Buy milk", ["errands"]),
  ("Call the plumber", ["errands", "home"]),
  ("Plan the hike", ["outdoors"]),
]

/// The first launch: creates a notebook, its notes and their tags on the main context, and saves.
@MainActor
func firstLaunch(storeFolder: URL) throws {
  let manager = CoreDataManager(modelName: NotesModel.name, storeFolder: storeFolder)
  let context = try manager.mainContext
  print("Launch: the store is \(manager.storeURL.path)")

  let now = Date()
  let notebook = Notebook(context: context)
  notebook.name = notebookName
  notebook.createdAt = now
  var tags: [String: Tag] = [:]
  for (title, tagNames) in launchNotes {
    let note = Note(context: context)
    note.title = title
    note.createdAt = now
    note.notebook = notebook
    for name in tagNames {
      let tag = tags[name] ?? Tag(context: context)
      tag.name = name
      tags[name] = tag
      note.tags.insert(tag)
    }
  }
  try context.save()
  print("  created \(launchNotes.count) notes in notebook '\(notebookName)' with \(tags.count) tags, and saved")
}

/// The second launch: a new manager on the same folder, as after quitting and reopening the app.
@MainActor
func relaunch(storeFolder: URL) throws -> CoreDataManager {
  let manager = CoreDataManager(modelName: NotesModel.name, storeFolder: storeFolder)
  let context = try manager.mainContext
  let request = FetchRequest<Note>(entityName: "Note")
  request.predicate = try FetchPredicate(format: "notebook.name == %@", notebookName)
  request.sortDescriptors = [FetchSortDescriptor(key: "title")]
  let notes = try context.fetch(request)
  print("Relaunch: a second CoreDataManager on the same folder found \(notes.count) notes in '\(notebookName)':")
  for note in notes {
    let tags = note.tags.map(\.name).sorted().joined(separator: ", ")
    print("  - \(note.title) [\(tags)]")
  }
  return manager
}

// MARK: - A 60 Hz "UI" on the main queue

/// Stands in for the app's screen: a timer on the main queue that should fire every 1/60 s, and notes
/// when each tick really ran. Whenever the main queue is busy, ticks are late: those are dropped frames.
@MainActor
final class FrameTicker {
  static let frame = Duration.seconds(1) / 60

  private let timer = DispatchSource.makeTimerSource(queue: .main)
  private var ticks: [ContinuousClock.Instant] = []

  func start() {
    timer.schedule(deadline: .now(), repeating: .nanoseconds(16_666_667), leeway: .milliseconds(1))
    timer.setEventHandler { [weak self] in
      MainActor.assumeIsolated { self?.ticks.append(.now) }
    }
    timer.resume()
  }

  /// Stops the timer and sums up the gaps between the ticks.
  func stop() -> (longestGap: Duration, missedFrames: Int) {
    timer.cancel()
    var longestGap = Duration.zero
    var missedFrames = 0
    for (previous, next) in zip(ticks, ticks.dropFirst()) {
      let gap = next - previous
      longestGap = max(longestGap, gap)
      // A gap of about n frames means n - 1 ticks that never happened.
      missedFrames += max(0, Int((gap / Self.frame).rounded()) - 1)
    }
    return (longestGap, missedFrames)
  }
}

// MARK: - A large save on the main queue

/// Inserts `count` notes and saves them, all in one block on the main queue: what a stage 1 app does
/// when the user imports a batch of notes.
@MainActor
func importNotes(count: Int, into context: ManagedObjectContext) throws -> (insert: Duration, save: Duration) {
  let clock = ContinuousClock()
  let now = Date()
  let insertTime = clock.measure {
    let notebook = Notebook(context: context)
    notebook.name = "Imported"
    notebook.createdAt = now
    for number in 1...count {
      let note = Note(context: context)
      note.title = "Imported note \(number)"
      note.body = "Text of imported note \(number)."
      note.createdAt = now
      note.notebook = notebook
    }
  }
  let saveTime = try clock.measure { try context.save() }
  return (insertTime, saveTime)
}

/// Starts the ticker, lets it settle, runs the import in its own main-queue block, lets the ticker
/// catch up, then reports and exits.
@MainActor
func measureImport(count: Int, manager: CoreDataManager) throws {
  let context = try manager.mainContext
  let ticker = FrameTicker()
  ticker.start()
  print("Import: saving \(count) notes on the main queue while the UI ticks at 60 Hz...")

  DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(250)) {
    do {
      let times = try importNotes(count: count, into: context)
      DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(100)) {
        let stall = ticker.stop()
        print("  inserting took \(milliseconds(times.insert)) ms, saving took \(milliseconds(times.save)) ms, both on the main queue")
        print("  the longest gap between two UI ticks was \(milliseconds(stall.longestGap)) ms (at 60 Hz a frame lasts 16.7 ms)")
        print("  look inside: sqlite3 \(manager.storeURL.path) 'SELECT COUNT(*) FROM ZNOTE'")
        let frames = stall.missedFrames == 1 ? "1 frame" : "\(stall.missedFrames) frames"
        print("Main queue stalled for \(milliseconds(stall.longestGap)) ms (\(frames) missed) while saving \(count) notes.")
        exit(0)
      }
    } catch {
      fail(error)
    }
  }
}

// MARK: - The app's life

DispatchQueue.main.async {
  do {
    let options = try Options(arguments: Array(CommandLine.arguments.dropFirst()))
    let storeFolder =
      options.storeFolder
      ?? FileManager.default.temporaryDirectory.appendingPathComponent("stage1-demo-\(UUID().uuidString)", isDirectory: true)
    try firstLaunch(storeFolder: storeFolder)
    let manager = try relaunch(storeFolder: storeFolder)
    try measureImport(count: options.count, manager: manager)
  } catch {
    fail(error)
  }
}

dispatchMain()
