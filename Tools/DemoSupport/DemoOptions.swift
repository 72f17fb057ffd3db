import ArgumentParser
import Foundation

/// The options every demo takes: the size of its import, where its store goes, and Core Data's debug
/// launch arguments, which ObjectGraph reads from the command line by itself.
///
/// A demo's command holds them as an option group, saying what its `--count` counts, and parses its
/// command line with ``ParsableCommand/parseForDemo(_:)``:
///
/// ```swift
/// struct Stage1Demo: ParsableCommand {
///   static let configuration = CommandConfiguration(commandName: "stage1-demo", abstract: "…")
///   @OptionGroup var options: DemoOptions<ImportSize>
/// }
/// let options = Stage1Demo.parseForDemo().options
/// ```
public struct DemoOptions<Count: DemoCount>: ParsableArguments {
  /// How many notes the demo works with: what `Count` says they are.
  @Option(help: ArgumentHelp("\(Count.meaning) (default: 10000).", valueName: "n"), transform: DemoOptionValues.count)
  public var count = 10_000

  @Option(
    name: .customLong("store-folder"),
    help: ArgumentHelp("Where the store goes (default: a new temporary folder).", valueName: "path"),
    transform: DemoOptionValues.folder)
  var chosenStoreFolder: URL?

  @Option(
    name: .customLong("com.apple.CoreData.ConcurrencyDebug", withSingleDash: true),
    help: ArgumentHelp("Core Data's concurrency debugging, which ObjectGraph reads: 1 on, 0 off.", valueName: "n"),
    transform: DemoOptionValues.level("-com.apple.CoreData.ConcurrencyDebug"))
  var concurrencyDebug: Int?

  @Option(
    name: .customLong("com.apple.CoreData.SQLDebug", withSingleDash: true),
    help: ArgumentHelp("Core Data's SQL debugging, which ObjectGraph reads: 1 logs each statement.", valueName: "n"),
    transform: DemoOptionValues.level("-com.apple.CoreData.SQLDebug"))
  var sqlDebug: Int?

  public init() {}

  /// Where the store goes: the folder given with `--store-folder`, or a new folder named after `demo` in
  /// the temporary folder.
  public func storeFolder(for demo: String) -> URL {
    chosenStoreFolder
      ?? FileManager.default.temporaryDirectory.appendingPathComponent("\(demo)-\(UUID().uuidString)", isDirectory: true)
  }
}

/// How the demos' options read their values (outside the generic ``DemoOptions``, so that the parsing
/// closures capture no generic type).
enum DemoOptionValues {
  static func count(_ text: String) throws -> Int {
    guard let count = Int(text), count > 0 else { throw ValidationError("--count needs a whole number above zero") }
    return count
  }

  static func folder(_ path: String) throws -> URL {
    guard !path.isEmpty else { throw ValidationError("--store-folder needs a path") }
    return URL(fileURLWithPath: path, isDirectory: true)
  }

  static func level(_ name: String) -> @Sendable (String) throws -> Int {
    { text in
      guard let level = Int(text) else { throw ValidationError("\(name) needs a number, such as 1") }
      return level
    }
  }
}

/// What a demo's `--count` counts, as its `--help` says it.
public protocol DemoCount {
  /// The option's help, a phrase without its default: "How many notes an import saves".
  static var meaning: String { get }
}

/// `--count` is the size of an import: the notes it saves.
public enum ImportSize: DemoCount {
  public static let meaning = "How many notes an import saves"
}

/// `--count` is the size of the store the demo writes before it opens it: the notes in it.
public enum StoreSize: DemoCount {
  public static let meaning = "How many notes the store holds (the old app writes them before the launch)"
}

extension ParsableCommand {
  /// Parses `arguments` (the program's own when `nil`) as the demos do: `--help` prints the help and ends
  /// the program; a bad argument is reported on standard error with the usage, and ends it with exit
  /// status 1.
  public static func parseForDemo(_ arguments: [String]? = nil) -> Self {
    do {
      guard let command = try parseAsRoot(arguments) as? Self else {
        print(helpMessage())
        Foundation.exit(0)
      }
      return command
    } catch {
      if exitCode(for: error) == .success {
        print(fullMessage(for: error))
        Foundation.exit(0)
      }
      failDemo(with: "\(message(for: error))\nusage: \(usageString())")
    }
  }

  /// Reports `error` on standard error as `<demo>: error: …` and ends the program with exit status 1.
  public static func failDemo(with error: Any) -> Never {
    let name = configuration.commandName ?? "demo"
    FileHandle.standardError.write(Data("\(name): error: \(error)\n".utf8))
    Foundation.exit(1)
  }
}
