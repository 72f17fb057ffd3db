import Foundation

// The stage list: `Stages/stages.json`, a JSON array with one object per stage, in order, whether or not
// this checkout has the stage yet. It is the only list of the stages: the workshop reads it here, and the
// docs tests check the README's stage map and the root Package.swift against it.
//
//   [
//     {
//       "number": 1,                                   required: 0, 1, 2, … in order
//       "title": "Single context",                     required: one line
//       "folder": "Stages/Stage1-SingleContext",       required: where the stage's code lives
//       "adds": "a `CoreDataManager` of your own …",   required: what the stage adds (the README's stage map)
//       "chapter": "Docs/01-single-context.md",        optional: the stage's chapter, once written
//       "library": "Stage1",                           optional: the stage's library target in Package.swift
//       "tests": "Stage1Tests",                        optional: its test target
//       "demo": "stage1-demo",                         optional: its demo's executable product, whose
//                                                                sources are `<folder>/Demo`
//       "demoBuild": "release",                        optional: how `workshop demo` builds it ("debug",
//                                                                the default, or "release")
//       "demoArguments": ["--count", "1000000"],       optional: what `workshop demo` passes it when the
//                                                                learner passes nothing: the chapter's size
//       "renames": {"CoreDataManager": "PersistenceController"}
//                                                      optional: names the stage gives to what the stage
//     }                                                          before called otherwise (`workshop diff`)
//   ]
//
// Unknown keys are ignored.

/// One stage of the workshop, as `Stages/stages.json` describes it.
struct Stage: Sendable, Equatable, Decodable {
  var number: Int
  var title: String
  var folder: String
  var adds: String
  var chapter: String?
  var library: String?
  var tests: String?
  /// The executable product of the stage's demo (`swift run <demo>`).
  var demo: String?
  /// How `workshop demo` builds the demo: `"release"` for a demo whose lesson shows only at the chapter's
  /// size and an app's speed; `nil` or `"debug"` for SwiftPM's default.
  var demoBuild: String?
  /// The demo's arguments when the learner gives none: those of the chapter's command.
  var demoArguments: [String]?
  /// Names this stage gives to what the stage before called otherwise, old name to new (types, and the files
  /// named after them), so that `workshop diff` compares like with like.
  var renames: [String: String]?

  init(
    number: Int, title: String, folder: String, adds: String, chapter: String? = nil, library: String? = nil, tests: String? = nil,
    demo: String? = nil, demoBuild: String? = nil, demoArguments: [String]? = nil, renames: [String: String]? = nil
  ) {
    self.number = number
    self.title = title
    self.folder = folder
    self.adds = adds
    self.chapter = chapter
    self.library = library
    self.tests = tests
    self.demo = demo
    self.demoBuild = demoBuild
    self.demoArguments = demoArguments
    self.renames = renames
  }

  /// Where the demo's sources are: `<folder>/Demo`.
  var demoFolder: String { folder + "/Demo" }

  /// Whether `workshop demo` builds the demo in release.
  var demoIsRelease: Bool { demoBuild == "release" }

  /// `swift`'s arguments to run the demo as `workshop demo` does: in the stage's build, with `arguments`,
  /// or the stage's own when the learner gave none. Nil when the stage has no demo.
  func demoCommand(arguments: [String]) -> [String]? {
    guard let demo else { return nil }
    return ["run"] + (demoIsRelease ? ["-c", "release"] : []) + [demo] + (arguments.isEmpty ? demoArguments ?? [] : arguments)
  }
}

/// Reads and checks `Stages/stages.json`.
enum StageCatalog {
  static let path = "Stages/stages.json"

  private static let list = JSONList(
    path: path, entryShape: #"{"number": …, "title": …, "folder": …, "adds": …}"#, nameKey: "title", contents: "stages")

  /// The stages, in order. A workspace always has its stage list, so a missing one is an error.
  static func load(root: URL) throws -> [Stage] {
    guard let data = try list.read(root: root) else {
      throw WorkshopError.malformedManifest(
        path: path, problems: ["it is missing; it lists the stages, and every checkout of the workshop has it"])
    }
    return try parse(data)
  }

  /// Parses and validates a stage list; every problem found is in the thrown error.
  static func parse(_ data: Data) throws -> [Stage] {
    let stages = try list.decode(data, as: Stage.self)
    let problems = validate(stages)
    guard problems.isEmpty else { throw WorkshopError.malformedManifest(path: path, problems: problems) }
    return stages
  }

  /// What is wrong with well-formed entries: numbers out of order, empty titles, unsafe paths, odd names.
  static func validate(_ stages: [Stage]) -> [String] {
    var problems: [String] = []
    if stages.isEmpty { problems.append("it lists no stages") }
    var seenDemos: Set<String> = []
    for (index, stage) in stages.enumerated() {
      let name = stage.title.trimmingCharacters(in: .whitespaces).isEmpty ? "entry \(index + 1)" : "entry \(index + 1) (\"\(stage.title)\")"
      if stage.number != index {
        problems.append("\(name): \"number\" is \(stage.number); the stages are numbered 0, 1, 2, … in order, so it should be \(index)")
      }
      if stage.title.trimmingCharacters(in: .whitespaces).isEmpty { problems.append("\(name): \"title\" is empty") }
      if stage.adds.trimmingCharacters(in: .whitespaces).isEmpty { problems.append("\(name): \"adds\" is empty") }
      for path in [stage.folder] + [stage.chapter].compactMap({ $0 }) where !JSONList.isSafeRelativePath(path) {
        problems.append("\(name): \"\(path)\" should be a path relative to the workspace root, without \"..\"")
      }
      for (key, target) in [("library", stage.library), ("tests", stage.tests)] {
        if let target, !JSONList.isSimpleName(target, allowing: "_") {
          problems.append("\(name): \"\(key)\" should be the name of a target, like \"Stage1\"")
        }
      }
      if let demo = stage.demo {
        if !JSONList.isSimpleName(demo, allowing: "-_") {
          problems.append("\(name): \"demo\" should be the name of an executable product, like \"stage1-demo\"")
        } else if !seenDemos.insert(demo).inserted {
          problems.append("\(name): the demo \"\(demo)\" belongs to another stage too")
        }
      }
      if let build = stage.demoBuild, !["debug", "release"].contains(build) {
        problems.append("\(name): \"demoBuild\" is \"\(build)\"; it should be \"debug\" or \"release\"")
      }
      for (old, new) in stage.renames ?? [:] where !JSONList.isSimpleName(old, allowing: "_") || !JSONList.isSimpleName(new, allowing: "_")
      {
        problems.append(
          "\(name): \"renames\" maps names of types, like \"CoreDataManager\": \"PersistenceController\"; \"\(old)\": \"\(new)\" is not one"
        )
      }
      if stage.demo == nil && (stage.demoBuild != nil || stage.demoArguments != nil) {
        problems.append("\(name): \"demoBuild\" and \"demoArguments\" need a \"demo\"")
      }
    }
    return problems
  }

  /// The stage numbered `number`, or an error that lists the stages there are.
  static func stage(_ number: Int, in stages: [Stage]) throws -> Stage {
    guard let stage = stages.first(where: { $0.number == number }) else {
      throw WorkshopError.unknownStage(number, known: stages.map(\.number))
    }
    return stage
  }
}

/// What a checkout has of one stage.
struct StageAvailability: Sendable, Equatable {
  let stage: Stage
  /// The stage's folder is in this checkout.
  let isPresent: Bool
  /// The stage list names a demo for the stage, and its sources (`<folder>/Demo`) are in this checkout.
  let hasDemo: Bool

  /// Looks at the checkout (folders only: nothing is built, and Package.swift is not read).
  static func survey(root: URL, stages: [Stage]) -> [StageAvailability] {
    func isFolder(_ path: String) -> Bool {
      var isDirectory: ObjCBool = false
      return FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory)
        && isDirectory.boolValue
    }
    return stages.map { stage in
      let present = isFolder(stage.folder)
      return StageAvailability(stage: stage, isPresent: present, hasDemo: present && stage.demo != nil && isFolder(stage.demoFolder))
    }
  }
}
