import DemoSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

#if canImport(Glibc)
  import Glibc
#endif

/// Seeded fuzzing of the mapping model reader (`NSMappingModel(loadingContentsOf:)`): mutated copies of real mapping
/// models, as `.xcmappingmodel` folders (XML, read with Foundation's `XMLParser`) and as compiled `.cdm` files
/// (a binary property list). Every input must end in a mapping model or a thrown `ObjectGraphError`.
///
/// Foundation's `XMLParser` on Linux crashes the process on some inputs (`XMLParserGuard`), so the inputs
/// are loaded in a child process, each with a time limit: a crash or a hang fails the test naming the input
/// (its file and the seed that replays it) instead of ending the test runner. The seed, the count and the
/// replay variables are `FuzzTests`'s (`OBJECTGRAPH_FUZZ_SEED`, `OBJECTGRAPH_FUZZ_COUNT`); with
/// `OBJECTGRAPH_FUZZ_KEEP=<folder>`, the inputs that crash are copied there.
@Suite(
  "Fuzzing mapping model files: mutated .xcmappingmodel and .cdm files load or throw ObjectGraphError", .timeLimit(.minutes(5)),
  .temporaryFolders)
struct MappingFileFuzzTests {
  /// Inputs that crashed the reader before `XMLParserGuard` (`Fixtures/MappingCrashes`, README there).
  static let crashes = TestFolders.fixtures.appendingPathComponent("MappingCrashes", isDirectory: true)

  /// How long one input may take in the child before it is taken for a hang.
  static let secondsPerInput: UInt32 = 20

  @Test(
    "mutated mapping models (Trips' .xcmappingmodel; CoreDataPlus's .cdm and .xcmappingmodel) load or throw ObjectGraphError, in a child")
  func mutatedMappingFiles() async throws {
    let seed = FuzzTests.seed("mappingFiles")
    var random = SeededGenerator(seed: seed)
    let folder = try TemporaryFolder()
    // The mapping models' own models, where a `.xcmappingmodel` finds them (in the folders above it).
    try FileManager.default.copyItem(at: TripsFixture.xcdatamodeld, to: folder.appending("Trips.xcdatamodeld"))
    var originals: [(data: Data, input: MappingFuzzChild.Input)] = [
      (try Data(contentsOf: TripsFixture.mapping.appendingPathComponent("xcmapping.xml")), .init(path: "", kind: .xcode)),
      (
        try Data(contentsOf: TripsFixture.mapping.appendingPathComponent("xcmapping.xml")),
        .init(path: "", kind: .xcode, models: TripsFixture.xcdatamodeld.path, source: "Trips", destination: "Trips 2")
      ),
    ]
    if Fixtures.areAvailable {
      let sample = try CompiledModelTests.xcdatamodeld().path
      originals += [
        (try Data(contentsOf: MappingModelFileTests.cdm()), .init(path: "", kind: .compiled)),
        (
          try Data(contentsOf: MappingModelFileTests.cdm()),
          .init(path: "", kind: .compiled, models: sample, source: "SampleModel2", destination: "SampleModel3")
        ),
        (
          try Data(contentsOf: MappingModelFileTests.xcmapping().appendingPathComponent("xcmapping.xml")),
          .init(path: "", kind: .xcode, models: sample, source: "SampleModel2", destination: "SampleModel3")
        ),
      ]
    } else {
      print("MappingFileFuzzTests: the shared fixtures are missing, so only Trips' mapping model is mutated")
    }
    let count = max(1, FuzzTests.count / 10)
    var inputs: [MappingFuzzChild.Input] = []
    for attempt in 0..<count {
      let (original, template) = originals[attempt % originals.count]
      var input = template
      let file: URL
      switch template.kind {
      case .xcode:
        let mapping = folder.appending("Fuzz\(attempt).xcmappingmodel")
        try FileManager.default.createDirectory(at: mapping, withIntermediateDirectories: true)
        file = mapping.appendingPathComponent("xcmapping.xml")
        input.path = mapping.path
      case .compiled:
        file = folder.appending("Fuzz\(attempt).cdm")
        input.path = file.path
      }
      try FuzzTests.mutate(bytes: original, &random).write(to: file)
      inputs.append(input)
    }
    let outcomes = try await Self.load(inputs, replay: "OBJECTGRAPH_FUZZ_SEED=\(seed) OBJECTGRAPH_FUZZ_COUNT=\(FuzzTests.count)")
    print("MappingFileFuzzTests: \(count) mutated mapping models, \(outcomes.loaded) loaded, \(outcomes.refused) refused")
  }

  @Test("the inputs that crashed the XML parser (non-UTF-8 names, <?name?>) are refused with ObjectGraphError, in a child")
  func savedCrashes() async throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Self.crashes.path)
      .filter { $0.hasSuffix(".xcmappingmodel") }.sorted()
    try #require(!names.isEmpty)
    let inputs = names.map {
      MappingFuzzChild.Input(
        path: Self.crashes.appendingPathComponent($0).path, kind: .xcode, models: TripsFixture.xcdatamodeld.path,
        source: "Trips", destination: "Trips 2")
    }
    let outcomes = try await Self.load(inputs, replay: "the file")
    #expect(outcomes.refused == names.count, "each of \(names) should be refused")
    for (index, name) in names.enumerated() {
      let message = outcomes.messages[index] ?? ""
      #expect(message.contains("is not a readable Xcode mapping model: it is not"), "\(name): \(message)")
      #expect(message.contains(name.hasPrefix("EmptyProcessing") ? "processing instruction" : "not UTF-8 text"), "\(name): \(message)")
    }
  }

  /// Loads `inputs` in child processes, one after another: a child that crashes or hangs on an input is
  /// reported (naming the input and `replay`), and a new child goes on with the next input.
  static func load(_ inputs: [MappingFuzzChild.Input], replay: String) async throws
    -> (loaded: Int, refused: Int, messages: [Int: String])
  {
    // The list goes to the child as a file, and what the child did comes back as one (an exit test that fails
    // hands back none of its output).
    let list = try TemporaryFolder().appending("inputs.txt")
    try Data(inputs.map(\.line).joined(separator: "\n").utf8).write(to: list)
    var start = 0
    var loaded = 0
    var refused = 0
    var crashes = 0
    var messages: [Int: String] = [:]
    while start < inputs.count && crashes < 10 {
      let log = list.deletingLastPathComponent().appendingPathComponent("child-\(start).log")
      await #expect(processExitsWith: .success) {
        [list = list.path as String, log = log.path as String, start = start as Int, seconds = secondsPerInput as UInt32] in
        MappingFuzzChild.run(list, from: start, log: log, secondsPerInput: seconds)
      }
      let said = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
      var last = start - 1
      var finished = false
      for line in said.split(separator: "\n") {
        let words = line.split(separator: " ", maxSplits: 2)
        guard words.count >= 2, let index = Int(words[1]) else { continue }
        switch words[0] {
        case "start": last = index
        case "loaded": loaded += 1
        case "refused":
          refused += 1
          messages[index] = words.count > 2 ? String(words[2]) : ""
        case "done": finished = true
        case "WRONG": Issue.record("\(inputs[index].path): \(words.count > 2 ? words[2] : "") (replay: \(replay))")
        default: break
        }
      }
      guard !finished, last >= start else { break }
      crashes += 1
      Issue.record(
        "\(inputs[last].path) (input \(last)) crashed the child or ran past \(secondsPerInput) s (replay: \(replay))"
      )
      if let keep = ProcessInfo.processInfo.environment["OBJECTGRAPH_FUZZ_KEEP"] {
        let url = URL(fileURLWithPath: inputs[last].path)
        try? FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
        try? FileManager.default.copyItem(at: url, to: URL(fileURLWithPath: keep).appendingPathComponent(url.lastPathComponent))
      }
      start = last + 1
    }
    return (loaded, refused, messages)
  }
}

/// What the child process of ``MappingFileFuzzTests`` does.
enum MappingFuzzChild {
  /// One input: a mapping model file, and the models to load it with (none: the file's own, or none at all).
  struct Input {
    enum Kind: String { case xcode, compiled }
    var path: String
    var kind: Kind
    var models = ""
    var source = ""
    var destination = ""

    /// The input as one line of the list the child reads.
    var line: String { [path, kind.rawValue, models, source, destination].joined(separator: "\t") }

    init(path: String, kind: Kind, models: String = "", source: String = "", destination: String = "") {
      (self.path, self.kind, self.models, self.source, self.destination) = (path, kind, models, source, destination)
    }

    init?(line: Substring) {
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      guard fields.count == 5, let kind = Kind(rawValue: fields[1]) else { return nil }
      self.init(path: fields[0], kind: kind, models: fields[2], source: fields[3], destination: fields[4])
    }
  }

  /// Loads the inputs listed in the file `list` from `start` on, writing to the file `log` (unbuffered, so a crash
  /// loses nothing) `start <n>` before each and `loaded <n>` or `refused <n> <message>` after, `WRONG <n> <error>` for an
  /// error that is not an `ObjectGraphError`, and `done <count>` at the end. Each input gets `secondsPerInput`
  /// (`alarm`): a hang ends the child with SIGALRM.
  static func run(_ list: String, from start: Int, log: String, secondsPerInput: UInt32) {
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    let output = FileHandle(forWritingAtPath: log)
    func say(_ text: String) { output?.write(Data((text + "\n").utf8)) }
    let text = (try? String(contentsOfFile: list, encoding: .utf8)) ?? ""
    let inputs = text.split(separator: "\n").compactMap(Input.init(line:))
    var models: [String: [String: NSManagedObjectModel]] = [:]
    for index in start..<inputs.count {
      let input = inputs[index]
      alarm(secondsPerInput)
      say("start \(index)")
      do {
        let url = URL(fileURLWithPath: input.path, isDirectory: input.kind == .xcode)
        if input.models.isEmpty {
          _ = try NSMappingModel(loadingContentsOf: url)
        } else {
          if models[input.models] == nil {
            models[input.models] = Dictionary(
              try NSManagedObjectModel.versions(in: URL(fileURLWithPath: input.models)).map { ($0.name, $0.model) },
              uniquingKeysWith: { first, _ in first })
          }
          guard let source = models[input.models]?[input.source], let destination = models[input.models]?[input.destination]
          else {
            say("WRONG \(index) the models \(input.source) and \(input.destination) are not in \(input.models)")
            continue
          }
          _ = try NSMappingModel(contentsOf: url, sourceModel: source, destinationModel: destination)
        }
        say("loaded \(index)")
      } catch let error as ObjectGraphError {
        say("refused \(index) \(error.message.replacingOccurrences(of: "\n", with: " "))")
      } catch {
        say("WRONG \(index) \(type(of: error)) instead of ObjectGraphError: \(error)")
      }
    }
    alarm(0)
    say("done \(inputs.count)")
  }
}
