import Foundation
import Testing

// The workspace has one list of stages (`Stages/stages.json`) and one list of exercises
// (`Exercises/exercises.json`). `swift run workshop` and `Exercises/Package.swift` read them; the tables
// written for people (the README's stage map, the exercise table of `Exercises/README.md`) and the root
// `Package.swift` are checked against them here, so none of them can drift from the lists.

/// The lists as the checkout has them, read as plain JSON: each entry a dictionary, as the lists' files
/// describe them (`Tools/Workshop/Core/Stages.swift`, `ExerciseManifest.swift`).
enum WorkspaceLists {
  typealias Entry = [String: Any]

  static func stages() throws -> [Entry] { try list("Stages/stages.json") }

  static func exercises() throws -> [Entry] { try list("Exercises/exercises.json") }

  private static func list(_ path: String) throws -> [Entry] {
    let data = Data(try #require(Repository.text(of: path), "cannot read \(path)").utf8)
    return try #require(try JSONSerialization.jsonObject(with: data) as? [Entry], "\(path) is not a JSON array of objects")
  }

  static func exists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: Repository.root.appendingPathComponent(path).path)
  }
}

extension Dictionary where Key == String, Value == Any {
  var number: Int { self["number"] as? Int ?? -1 }
  var stage: Int { self["stage"] as? Int ?? -1 }
  func string(_ key: String) -> String? { self[key] as? String }
}

/// A Markdown table: its rows' cells, trimmed, without the header and the `|---|` line.
struct MarkdownTable: Equatable {
  let header: [String]
  let rows: [[String]]

  /// The first table after the heading `heading` (its text without the `#`s), or `nil`.
  init?(in text: String, after heading: String) {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let start = lines.firstIndex(where: { MarkdownDocument.headingText($0) == heading }) else { return nil }
    let table = lines[(start + 1)...].drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }
    guard table.count >= 2 else { return nil }
    func cells(_ line: String) -> [String] {
      line.trimmingCharacters(in: .whitespaces).dropFirst().dropLast().split(separator: "|", omittingEmptySubsequences: false)
        .map { $0.trimmingCharacters(in: .whitespaces) }
    }
    header = cells(table[table.startIndex])
    rows = table.dropFirst(2).map(cells)
  }

  /// The first table of `text`, whatever heading it is under.
  init?(firstIn text: String) {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    guard let first = lines.firstIndex(where: { $0.hasPrefix("|") }), first > 0 else { return nil }
    var heading = "\u{0}"
    if let found = lines[..<first].last(where: { MarkdownDocument.headingText($0) != nil }) {
      heading = MarkdownDocument.headingText(found) ?? heading
    }
    guard heading != "\u{0}" else { return nil }
    self.init(in: text, after: heading)
  }
}

@Suite("Docs: the stage and exercise lists")
struct ListTests {
  @Test("the README's stage map is the stage list: numbers, folders, chapters, what each adds, exercises, status")
  func readmeStageMapFollowsTheStageList() throws {
    let stages = try WorkspaceLists.stages()
    let exercises = try WorkspaceLists.exercises()
    let readme = try #require(Repository.text(of: "README.md"))
    let table = try #require(MarkdownTable(in: readme, after: "Stage map"), "README.md has no table under ## Stage map")
    #expect(table.header == ["stage", "code", "chapter", "what it adds", "exercises", "status"])
    #expect(table.rows.count == stages.count, "the stage map has \(table.rows.count) rows, Stages/stages.json \(stages.count) stages")
    for (stage, row) in zip(stages, table.rows) {
      guard row.count == 6 else {
        Issue.record("the stage map's row for stage \(stage.number) has \(row.count) cells, not 6: \(row)")
        continue
      }
      let count = exercises.filter { $0.stage == stage.number }.count
      let chapter = stage.string("chapter").map { "](\($0))" }
      #expect(row[0] == "\(stage.number)")
      #expect(row[1] == "`\(stage.string("folder") ?? "")/`", "stage \(stage.number)'s folder")
      #expect(
        chapter.map { row[2].hasPrefix("[") && row[2].hasSuffix($0) } ?? row[2].isEmpty,
        "stage \(stage.number)'s chapter is \(stage.string("chapter") ?? "none") in the list, the README says \(row[2])")
      #expect(row[3] == stage.string("adds"), "stage \(stage.number): what it adds")
      #expect(row[4] == (count == 0 ? "none" : "\(count)"), "stage \(stage.number) has \(count) exercises in Exercises/exercises.json")
      #expect(row[5] == (WorkspaceLists.exists(stage.string("folder") ?? "") ? "in place" : "planned"), "stage \(stage.number)'s status")
    }
  }

  @Test("the chapter table of Docs/README.md has a row per listed stage, linking the stage's chapter when it has one")
  func chapterTableFollowsTheStageList() throws {
    let stages = try WorkspaceLists.stages()
    let index = try #require(Repository.text(of: "Docs/README.md"))
    let table = try #require(MarkdownTable(in: index, after: "The chapters"), "Docs/README.md has no table under # The chapters")
    #expect(table.header == ["chapter", "what it covers", "status"])
    #expect(table.rows.count == stages.count, "the chapter table has \(table.rows.count) rows, Stages/stages.json \(stages.count) stages")
    for (stage, row) in zip(stages, table.rows) where row.count == 3 {
      if let chapter = stage.string("chapter") {
        let file = chapter.hasPrefix("Docs/") ? String(chapter.dropFirst("Docs/".count)) : "../" + chapter
        #expect(row[0].hasPrefix("[\(stage.number).") && row[0].hasSuffix("](\(file))"), "stage \(stage.number)'s chapter row: \(row[0])")
        #expect(row[2] == "ready", "stage \(stage.number) has a chapter in the list")
      } else {
        #expect(row[0].hasPrefix("\(stage.number).") && !row[0].contains("]("), "stage \(stage.number)'s chapter row: \(row[0])")
        #expect(row[2] == "coming", "stage \(stage.number) has no chapter in the list")
      }
    }
  }

  @Test("the exercise table of Exercises/README.md is the exercise list: ids, links and stages, in order")
  func exerciseTableFollowsTheExerciseList() throws {
    let exercises = try WorkspaceLists.exercises()
    let readme = try #require(Repository.text(of: "Exercises/README.md"))
    let table = try #require(MarkdownTable(firstIn: readme), "Exercises/README.md has no table")
    #expect(Array(table.header.prefix(2)) == ["id", "stage"])
    let listed = table.rows.map { Array($0.prefix(2)) }
    let expected = exercises.map { ["[`\($0.string("id") ?? "")`](\($0.string("id") ?? "")/README.md)", "\($0.stage)"] }
    #expect(listed == expected)
  }

  @Test("a demo that `workshop demo` runs as its chapter does: the chapter and the README show that very command")
  func demoCommandsAreTheChapters() throws {
    let readme = try #require(Repository.text(of: "README.md"))
    let chapterRuns = try WorkspaceLists.stages().filter { $0["demoBuild"] != nil || $0["demoArguments"] != nil }
    #expect(!chapterRuns.isEmpty, "stages 3 and 4 run their demos as their chapters do")
    for stage in chapterRuns {
      guard let demo = stage.string("demo"), let chapter = stage.string("chapter") else {
        Issue.record("stage \(stage.number) has demo settings, but no demo or no chapter")
        continue
      }
      let release = stage.string("demoBuild") == "release"
      let arguments = stage["demoArguments"] as? [String] ?? []
      let command = (["swift", "run"] + (release ? ["-c", "release"] : []) + [demo] + arguments).joined(separator: " ")
      let text = try #require(Repository.text(of: chapter))
      #expect(
        text.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == command },
        "\(chapter) should show the command `swift run workshop demo \(stage.number)` runs, on a line of its own: \(command)")
      #expect(
        readme.contains("`swift run workshop demo \(stage.number)`"), "README.md should name `swift run workshop demo \(stage.number)`")
      #expect(readme.contains("`\(command)`"), "README.md should say what `swift run workshop demo \(stage.number)` runs: `\(command)`")
    }
  }

  @Test("every stage in this checkout has its chapter, its targets and its demo in Package.swift")
  func packageSwiftHasEachPresentStage() throws {
    let manifest = try #require(Repository.text(of: "Package.swift"))
    let stages = try WorkspaceLists.stages().filter { WorkspaceLists.exists($0.string("folder") ?? "") }
    #expect(!stages.isEmpty)
    for stage in stages {
      if let chapter = stage.string("chapter") { #expect(WorkspaceLists.exists(chapter), "stage \(stage.number)'s chapter \(chapter)") }
      for target in [stage.string("library"), stage.string("tests")].compactMap({ $0 }) {
        #expect(manifest.contains("name: \"\(target)\""), "Package.swift has no target \(target) for stage \(stage.number)")
      }
      if let demo = stage.string("demo"), let folder = stage.string("folder") {
        #expect(manifest.contains(".executable(name: \"\(demo)\""), "Package.swift has no product \(demo) for stage \(stage.number)")
        #expect(WorkspaceLists.exists(folder + "/Demo"), "stage \(stage.number)'s demo has no \(folder)/Demo")
      }
    }
  }

  // MARK: - The table reader itself

  @Test("a table is read under its heading, without its header line and rule, with empty cells kept")
  func tablesAreRead() throws {
    let text = """
      # Title

      | a | b |
      |---|---|
      | x | y |

      ## Second

      Text.

      | c | d |
      |---|---|
      | 1 |  |
      | 2 | `z` |
      after
      """
    #expect(MarkdownTable(in: text, after: "Second") == MarkdownTable(firstIn: "## Second\n| c | d |\n|---|---|\n| 1 |  |\n| 2 | `z` |"))
    let second = try #require(MarkdownTable(in: text, after: "Second"))
    #expect(second.header == ["c", "d"])
    #expect(second.rows == [["1", ""], ["2", "`z`"]])
    #expect(MarkdownTable(firstIn: text)?.rows == [["x", "y"]])
    #expect(MarkdownTable(in: text, after: "Missing") == nil)
  }
}
