import Foundation
import Testing

// Stage 2 carries some of stage 1's code over unchanged, and stage 4 some of stage 3's. Each such region is
// marked in the later stage, between `// Unchanged from stage N …` and `// End of the part unchanged from
// stage N.`, and must stand, line for line, in stage N's file of the same name: a fix made to one copy and not
// the other fails here, so the diff between the stages stays the lesson. (Stage 3 renames stage 2's
// `CoreDataManager` to `PersistenceController`, a new design rather than a copy, so it marks nothing.)

/// Finds the regions of a stage's file marked as copied from the stage before, and checks each against the
/// earlier stage's file.
struct StageCopyChecker {
  /// The stage the marked regions come from.
  let earlierStage: Int

  /// The line that opens a marked region (leading whitespace aside).
  var begin: String { "// Unchanged from stage \(earlierStage) (Tests/DocsTests/StageCopyTests.swift checks it)." }
  /// The line that closes it.
  var end: String { "// End of the part unchanged from stage \(earlierStage)." }

  /// A marked region: the 1-based line of its opening marker, and the lines between the markers.
  struct Region {
    let line: Int
    let lines: [String]
  }

  /// The marked regions of `lines`, and what is wrong with the markers (an opening without its end, an end
  /// without an opening, a region opened inside another, an empty region), as `(line, message)`.
  func regions(in lines: [String]) -> (regions: [Region], problems: [(Int, String)]) {
    var regions: [Region] = []
    var problems: [(Int, String)] = []
    var open: (line: Int, lines: [String])?
    for (index, line) in lines.enumerated() {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed == begin {
        if let open { problems.append((open.line, "this region is not closed before the next one opens")) }
        open = (index + 1, [])
      } else if trimmed == end {
        guard let region = open else {
          problems.append((index + 1, "an end marker without an opening marker above it"))
          continue
        }
        if region.lines.isEmpty { problems.append((region.line, "an empty region")) }
        regions.append(Region(line: region.line, lines: region.lines))
        open = nil
      } else {
        open?.lines.append(line)
      }
    }
    if let open { problems.append((open.line, "this region has no end marker (\(end))")) }
    return (regions, problems)
  }

  /// Whether `region` stands in `earlier` as one run of consecutive lines, exactly (indentation included).
  static func contains(_ earlier: [String], _ region: [String]) -> Bool {
    guard !region.isEmpty, region.count <= earlier.count else { return false }
    return (0...(earlier.count - region.count)).contains { start in
      earlier[start..<start + region.count].elementsEqual(region)
    }
  }

  /// The problems of the stage file `lines` against the earlier stage's `earlier` (`nil`: no such file).
  func problems(in lines: [String], earlier: [String]?) -> [(Int, String)] {
    let (regions, problems) = regions(in: lines)
    guard !regions.isEmpty else { return problems }
    guard let earlier else {
      return problems + [(regions[0].line, "stage \(earlierStage) has no file of this name to compare with")]
    }
    return problems
      + regions.filter { !Self.contains(earlier, $0.lines) }.map { region in
        (
          region.line,
          """
          the \(region.lines.count) lines marked as unchanged from stage \(earlierStage) are not in stage \(earlierStage)'s file \
          as they are \
          here: make the two copies the same again, or move the markers to what is still the same
          """
        )
      }
  }
}

@Suite("Code a stage carries over from the stage before")
struct StageCopyTests {
  /// The pairs of stages whose later one marks code carried over: (earlier, later, the earlier one's number).
  static let pairs = [
    (earlier: "Stages/Stage1-SingleContext", later: "Stages/Stage2-PrivateParent", number: 1),
    (earlier: "Stages/Stage3-AsyncLoading", later: "Stages/Stage4-WorkersAndInjection", number: 3),
  ]

  /// A stage's Swift files, relative to its folder, sorted.
  static func files(in stage: String) -> [String] {
    let folder = Repository.root.appendingPathComponent(stage).path
    let paths = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
    return paths.filter { $0.hasSuffix(".swift") }.sorted()
  }

  @Test("Every region of stages 2 and 4 marked as unchanged from the stage before stands in that stage's file of the same name")
  func markedRegionsMatch() throws {
    for pair in Self.pairs {
      let checker = StageCopyChecker(earlierStage: pair.number)
      var marked = 0
      for file in Self.files(in: pair.later) {
        let lines = try #require(Repository.lines(of: "\(pair.later)/\(file)"), "cannot read \(pair.later)/\(file)")
        marked += checker.regions(in: lines).regions.count
        let problems = checker.problems(in: lines, earlier: Repository.lines(of: "\(pair.earlier)/\(file)"))
        Repository.record(problems.map { DocsProblem(document: "\(pair.later)/\(file)", line: $0.0, message: $0.1) })
      }
      // Each later stage carries code over in its main file and in its error type.
      #expect(marked >= 3, "expected marked regions in \(pair.later)'s main file and its error type; found \(marked)")
    }
  }

  @Test("A marked region that differs from the stage before by one character is reported, at its opening marker")
  func differenceIsFound() {
    let checker = StageCopyChecker(earlierStage: 3)
    let earlier = ["struct A {", "  func f() -> Int { 1 }", "}"]
    let later = ["struct A {", "  \(checker.begin)", "  func f() -> Int { 2 }", "  \(checker.end)", "}"]
    let problems = checker.problems(in: later, earlier: earlier)
    #expect(problems.map(\.0) == [2])
    let same = ["struct A {", "  \(checker.begin)", "  func f() -> Int { 1 }", "  \(checker.end)", "}"]
    #expect(checker.problems(in: same, earlier: earlier).isEmpty)
    // A marker naming another stage is not this checker's: stage 1's markers are not read as stage 3's.
    let other = StageCopyChecker(earlierStage: 1)
    #expect(checker.regions(in: ["  \(other.begin)", "x", "  \(other.end)"]).regions.isEmpty)
  }

  @Test("Markers that do not pair up are reported, and a marked file without a counterpart in the stage before too")
  func badMarkers() {
    let checker = StageCopyChecker(earlierStage: 1)
    let unclosed = [checker.begin, "let a = 1"]
    #expect(checker.problems(in: unclosed, earlier: ["let a = 1"]).map(\.0) == [1])
    let stray = ["let a = 1", checker.end]
    #expect(checker.problems(in: stray, earlier: ["let a = 1"]).map(\.0) == [2])
    let marked = [checker.begin, "let a = 1", checker.end]
    #expect(checker.problems(in: marked, earlier: nil).map(\.0) == [1])
  }
}
