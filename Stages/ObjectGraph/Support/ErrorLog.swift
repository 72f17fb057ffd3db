import Foundation

/// Where the engine reports a failure that Core Data's API answers with `nil` rather than an error
/// (`NSManagedObjectModel(contentsOf:)`, `NSMappingModel(contentsOf:)`, a container whose model is missing):
/// Core Data logs those to the console ("CoreData: error: …"); the engine writes its message, which names the
/// file and what is wrong, to standard error as one line:
///
/// ```
/// ObjectGraph: error: NSManagedObjectModel(contentsOf:) returned nil: The model at /…/Model.xcdatamodeld …
/// ```
///
/// Tests read the lines of their own task with ``capturing(_:)``.
enum ErrorLog {
  /// The lines logged while a test's task runs ``capturing(_:)``; `nil` (standard error) otherwise.
  @TaskLocal private static var sink: Locked<[String]>?

  /// Writes `ObjectGraph: error: <what>: <message>` to standard error (or to the capturing task's lines).
  static func write(_ what: String, _ error: any Error) {
    let message = (error as? ObjectGraphError)?.message ?? "\(error)"
    emit("ObjectGraph: error: \(what): \(message)")
  }

  /// Writes `ObjectGraph: warning: <message>` (something that works, but likely not as meant, as Core Data
  /// logs a warning) to standard error (or to the capturing task's lines).
  static func warn(_ message: String) {
    emit("ObjectGraph: warning: \(message)")
  }

  private static func emit(_ line: String) {
    if let sink {
      sink.withLock { $0.append(line) }
    } else {
      FileHandle.standardError.write(Data((line + "\n").utf8))
    }
  }

  /// Runs `body` with the lines ``write(_:_:)`` and ``warn(_:)`` log in its task collected instead of written, and returns them.
  static func capturing(_ body: () throws -> Void) rethrows -> [String] {
    let lines = Locked<[String]>([])
    try $sink.withValue(lines) { try body() }
    return lines.withLock { $0 }
  }
}
