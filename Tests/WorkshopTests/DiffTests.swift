import Foundation
import Testing

@testable import Workshop

@Suite("workshop diff: what a stage changes in the one before")
struct DiffTests {
  @Test("Two equal texts make no hunk; a change in the middle makes one hunk with three lines of context each side")
  func oneHunk() {
    #expect(UnifiedDiff(old: ["a", "b"], new: ["a", "b"]).isEmpty)
    let old = (1...10).map { "line \($0)" }
    var new = old
    new[4] = "line five"
    let diff = UnifiedDiff(old: old, new: new)
    #expect(diff.hunks.count == 1)
    #expect(diff.hunks[0].header == "@@ -2,7 +2,7 @@")
    #expect(
      diff.hunks[0].lines.map { "\($0.mark)\($0.text)" } == [
        " line 2", " line 3", " line 4", "-line 5", "+line five", " line 6", " line 7", " line 8",
      ])
  }

  @Test("Changes far apart make two hunks; lines added to an empty text and removed to nothing are counted as diff -u counts them")
  func hunksAndEdges() {
    let old = (1...20).map { "line \($0)" }
    var new = old
    new[1] = "changed 2"
    new[17] = "changed 18"
    let diff = UnifiedDiff(old: old, new: new)
    #expect(diff.hunks.map(\.header) == ["@@ -1,5 +1,5 @@", "@@ -15,6 +15,6 @@"])
    #expect(UnifiedDiff(old: [], new: ["x", "y"]).hunks.map(\.header) == ["@@ -0,0 +1,2 @@"])
    #expect(UnifiedDiff(old: ["x", "y"], new: []).hunks.map(\.header) == ["@@ -1,2 +0,0 @@"])
    // Every line of both texts is in the script, in order.
    let script = UnifiedDiff.script(old: ["a", "b", "c"], new: ["a", "c", "d"])
    #expect(script.filter { $0.mark != "+" }.map(\.text) == ["a", "b", "c"])
    #expect(script.filter { $0.mark != "-" }.map(\.text) == ["a", "c", "d"])
  }

  @Test("Renames compose across stages and replace whole words only")
  func renames() {
    let catalog = [
      Stage(number: 0, title: "zero", folder: "Stages/A", adds: "a"),
      Stage(number: 1, title: "one", folder: "Stages/B", adds: "b", renames: ["Manager": "Controller"]),
      Stage(number: 2, title: "two", folder: "Stages/C", adds: "c", renames: ["Controller": "Stack", "ManagerError": "StackError"]),
    ]
    #expect(
      StageComparison.renames(from: 0, to: 2, in: catalog) == ["Manager": "Stack", "Controller": "Stack", "ManagerError": "StackError"])
    #expect(StageComparison.renames(from: 1, to: 2, in: catalog) == ["Controller": "Stack", "ManagerError": "StackError"])
    let comparison = StageComparison(
      old: catalog[0], new: catalog[2], root: URL(fileURLWithPath: "/"), renames: StageComparison.renames(from: 0, to: 2, in: catalog))
    #expect(comparison.renamed("let m = Manager() // ManagerError, Managers") == "let m = Stack() // StackError, Managers")
  }

  @Test("workshop diff 2 reads stage 1's code under stage 2's names, pairs the renamed file, shows new files and leaves the demos out")
  func command() throws {
    let stageList = #"""
      [
        {"number": 0, "title": "The engine", "folder": "Stages/ObjectGraph", "adds": "the engine"},
        {"number": 1, "title": "One", "folder": "Stages/One", "adds": "a manager", "demo": "one-demo"},
        {"number": 2, "title": "Two", "folder": "Stages/Two", "adds": "a controller", "chapter": "Docs/02.md",
         "renames": {"Manager": "Controller"}}
      ]
      """#
    try TempRepo.with(stages: ["ObjectGraph", "One", "Two"], stageList: stageList) { repo in
      try repo.write("Stages/One/Manager.swift", "final class Manager {\n  func load() {}\n  func save() {}\n}\n")
      try repo.write("Stages/One/Demo/main.swift", "print(1)\n")
      try repo.write("Stages/Two/Controller.swift", "final class Controller {\n  func load() async {}\n  func save() {}\n}\n")
      try repo.write("Stages/Two/Worker.swift", "struct Worker {}\n")
      try repo.write("Stages/Two/Demo/main.swift", "print(2)\n")
      let recorder = OutputRecorder()
      #expect(try runWorkshop(["diff", "--root", repo.root.path, "2"], in: testEnvironment(recorder)) == 0)
      let said = recorder.standardOutput
      #expect(said.contains("Stage 1 → stage 2: what stage 2 (Two) changes."), "\(said)")
      #expect(said.contains("(Manager is Controller)"), "\(said)")
      #expect(said.contains("Why each change: Docs/02.md."), "\(said)")
      #expect(said.contains("--- stage 1/Manager.swift (as Controller.swift)\n+++ stage 2/Controller.swift\n@@ -1,4 +1,4 @@\n"), "\(said)")
      #expect(said.contains(" final class Controller {\n-  func load() {}\n+  func load() async {}\n   func save() {}\n"), "\(said)")
      #expect(said.contains("--- (new in stage 2)\n+++ stage 2/Worker.swift\n@@ -0,0 +1,1 @@\n+struct Worker {}\n"), "\(said)")
      #expect(!said.contains("print("), "the demos are left out: \(said)")
      #expect(said.hasSuffix("2 files changed (the demos left out).\n"), "\(said)")

      // A stage with no stage before it, and one that is not in the checkout, are refused with the stages there are.
      #expect(try runWorkshop(["diff", "--root", repo.root.path, "0"], in: testEnvironment(OutputRecorder())) == 1)
    }
  }
}
