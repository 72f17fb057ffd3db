// objectgraph: look inside a SQLite store, one Core Data wrote or one of the engine's, through the engine.
//
//   swift run objectgraph inspect STORE                  # what the store says about the model that made it
//   swift run objectgraph inspect STORE --model MODEL    # its objects, read through that model, read-only
//
// Chapter 0 ("Looking inside a store Core Data wrote") runs it on Docs/Examples/CoreDataPlus.
import ArgumentParser
import Foundation
import ObjectGraph

@main
struct ObjectGraphCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "objectgraph",
    abstract: "Tools for ObjectGraph stores and Core Data's SQLite stores.",
    subcommands: [Inspect.self])
}

struct Inspect: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show what a store holds: its metadata, and with its model, its objects.",
    discussion: """
      Without --model, only the store's metadata is read: who wrote it, its UUID, and the entities and \
      version hashes of the model that made it. With --model (an Xcode .xcdatamodeld or .xcdatamodel, or \
      a compiled .momd or .mom), the version whose hashes are the store's opens it read-only, and each \
      entity's objects are counted and the first few shown, with their attributes and relationships. \
      The file is never written: no byte changes and no -wal or -shm file is left beside it.
      """)

  @Argument(help: "The store file, for example a .sqlite copied from a simulator's app container.")
  var store: String

  @Option(help: "The model that made the store: .xcdatamodeld, .xcdatamodel, .momd or .mom.")
  var model: String?

  @Option(help: "How many objects to show per entity.")
  var limit = 3

  func validate() throws {
    guard limit >= 0 else { throw ValidationError("--limit must be 0 or more.") }
  }

  func run() throws {
    let storeURL = URL(fileURLWithPath: store)
    do {
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(atPath: storeURL.path, isDirectory: &isFolder), isFolder.boolValue {
        throw InspectError(message: "\(store) is a folder. Pass the store's file (often a .sqlite) inside it.")
      }
      let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: storeURL)
      let summary = StoreSummary(path: store, url: storeURL, metadata: metadata)
      if let model {
        let version = try ModelChoice.version(at: URL(fileURLWithPath: model), path: model, for: summary)
        let lines = try StoreReader(url: storeURL, version: version, limit: limit).objectLines()
        emit(summary.headerLines() + version.lines() + [""] + lines)
      } else {
        emit(summary.headerLines() + [""] + summary.modelLines())
      }
    } catch let error as ObjectGraphError {
      complain(error.message)
      throw ExitCode.failure
    } catch let error as InspectError {
      complain(error.message)
      throw ExitCode.failure
    }
  }

  /// Prints `lines` on standard output.
  private func emit(_ lines: [String]) {
    print(lines.joined(separator: "\n"))
  }

  /// Prints `message` on standard error, as the one line (or paragraph) the user sees of a failure.
  private func complain(_ message: String) {
    FileHandle.standardError.write(Data("objectgraph: \(message)\n".utf8))
  }
}

/// A failure of the command's own (the engine's are ``ObjectGraphError``s): one message for the user.
struct InspectError: Error {
  let message: String
}
