import Foundation
import Testing

// Stage 4 carries some of stage 3's code over unchanged. Each such region is marked in stage 4, between
// `// Unchanged from stage 3 …` and `// End of the part unchanged from stage 3.`, and must stand, line for
// line, in stage 3's file of the same name: a fix made to one copy and not the other fails here, so the diff
// between the stages stays the lesson.

/// Finds the regions of a stage's file marked as copied from the stage before, and checks each against the
/// earlier stage's file.
struct StageCopyChecker {
  /// The line that opens a marked region (leading whitespace aside).
  static let begin = "// Unchanged from stage 3 (Tests/DocsTests/StageCopyTests.swift checks it)."
  /// The line that closes it.
  static let end = "// End of the part unchanged from stage 3."

  /// A marked region: the 1-based line of its opening marker, and the lines between the markers.
  struct Region {
    let line: Int
    let lines: [String]
  }

  /// The marked regions of `lines`, and what is wrong with the markers (an opening without its end, an end
  /// without an opening, a region opened inside another, an empty region), as `(line, message)`.
  static func regions(in lines: [String]) -> (regions: [Region], problems: [(Int, String)]) {
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
  static func problems(in lines: [String], earlier: [String]?) -> [(Int, String)] {
    let (regions, problems) = regions(in: lines)
    guard !regions.isEmpty else { return problems }
    guard let earlier else { return problems + [(regions[0].line, "stage 3 has no file of this name to compare with")] }
    return problems
      + regions.filter { !contains(earlier, $0.lines) }.map { region in
        (
          region.line,
          """
          the \(region.lines.count) lines marked as unchanged from stage 3 are not in stage 3's file as they are \
          here: make the two copies the same again, or move the markers to what is still the same
          """
        )
      }
  }
}

@Suite("Stage 4's code carried over from stage 3")
struct StageCopyTests {
  static let stage3 = "Stages/Stage3-AsyncLoading"
  static let stage4 = "Stages/Stage4-WorkersAndInjection"

  /// Stage 4's Swift files, relative to its folder, sorted.
  static func stage4Files() -> [String] {
    let folder = Repository.root.appendingPathComponent(stage4).path
    let paths = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String } ?? []
    return paths.filter { $0.hasSuffix(".swift") }.sorted()
  }

  @Test("Every region of stage 4 marked as unchanged from stage 3 stands in stage 3's file of the same name")
  func markedRegionsMatch() throws {
    var marked = 0
    for file in Self.stage4Files() {
      let lines = try #require(Repository.lines(of: "\(Self.stage4)/\(file)"), "cannot read \(Self.stage4)/\(file)")
      marked += StageCopyChecker.regions(in: lines).regions.count
      let problems = StageCopyChecker.problems(in: lines, earlier: Repository.lines(of: "\(Self.stage3)/\(file)"))
      Repository.record(problems.map { DocsProblem(document: "\(Self.stage4)/\(file)", line: $0.0, message: $0.1) })
    }
    // The two files that carry stage 3's code over are marked (PersistenceController and its error).
    #expect(marked >= 5, "expected the marked regions of PersistenceController.swift and PersistenceControllerError.swift; found \(marked)")
  }

  @Test("A marked region that differs from stage 3 by one character is reported, at its opening marker")
  func differenceIsFound() {
    let earlier = ["struct A {", "  func f() -> Int { 1 }", "}"]
    let later = ["struct A {", "  \(StageCopyChecker.begin)", "  func f() -> Int { 2 }", "  \(StageCopyChecker.end)", "}"]
    let problems = StageCopyChecker.problems(in: later, earlier: earlier)
    #expect(problems.map(\.0) == [2])
    let same = ["struct A {", "  \(StageCopyChecker.begin)", "  func f() -> Int { 1 }", "  \(StageCopyChecker.end)", "}"]
    #expect(StageCopyChecker.problems(in: same, earlier: earlier).isEmpty)
  }

  @Test("Markers that do not pair up are reported, and a marked file without a stage 3 counterpart too")
  func badMarkers() {
    let unclosed = [StageCopyChecker.begin, "let a = 1"]
    #expect(StageCopyChecker.problems(in: unclosed, earlier: ["let a = 1"]).map(\.0) == [1])
    let stray = ["let a = 1", StageCopyChecker.end]
    #expect(StageCopyChecker.problems(in: stray, earlier: ["let a = 1"]).map(\.0) == [2])
    let marked = [StageCopyChecker.begin, "let a = 1", StageCopyChecker.end]
    #expect(StageCopyChecker.problems(in: marked, earlier: nil).map(\.0) == [1])
  }
}
