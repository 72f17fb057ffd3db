import Foundation
import Testing

@testable import Workshop

@Suite("Reading swift test's output")
struct TestOutputParserTests {
  private let root = "/work/main"

  @Test func swiftTestingIssuesKeepTheirMessagesAndComments() {
    let output = """
      [0/1] Planning build
      Building for debugging...
      [3/6] Compiling Exercise01 Stack.swift
      Build complete! (4.20s)
      Test Suite 'Selected tests' started at 2026-11-22 02:55:19.973
      \t Executed 0 tests, with 0 failures (0 unexpected) in 0.0 (0.0) seconds
      ◇ Test run started.
      ↳ Testing Library Version: 6.3.1 (937120cbc281cf2)
      ↳ Target Platform: x86_64-unknown-linux-gnu
      ◇ Suite "Model loading" started.
      ◇ Test "The model is found in the bundle" started.
      ◇ Test plain() started.
      ◇ Test param(x:) started.
      ◇ Test passes() started.
      ✘ Test plain() recorded an issue at ModelTests.swift:8:4: Caught error: no store at /tmp/x
      ◇ Test case passing 1 argument x → 1 to param(x:) started.
      ✘ Test "The model is found in the bundle" recorded an issue at ModelTests.swift:12:5: Expectation failed: (model → nil) != nil
      ↳ The model is not in the bundle: the stack looks for DataModel.momd.
        Did you copy DataModel.xcdatamodeld as a resource?
      ✘ Test param(x:) recorded an issue with 1 argument x → 2 at ModelTests.swift:13:49: Expectation failed: (x → 2) == 1
      ↳ x must be one
      ✔ Test passes() passed after 0.001 seconds.
      ✘ Test plain() failed after 0.001 seconds with 1 issue.
      ✘ Test param(x:) with 2 test cases failed after 0.001 seconds with 1 issue.
      ✘ Test "The model is found in the bundle" failed after 0.001 seconds with 1 issue.
      ✘ Suite "Model loading" failed after 0.001 seconds with 3 issues.
      ✘ Test run with 4 tests in 1 suite failed after 0.001 seconds with 3 issues.
      """
    let report = TestOutputParser.parse(output, root: root)
    #expect(report.buildSucceeded)
    #expect(report.testsRun == 4)
    #expect(report.compileErrors.isEmpty && report.crash == nil && report.otherErrors.isEmpty)
    #expect(report.failedTests == ["plain()", #""The model is found in the bundle""#, "param(x:)"])
    #expect(
      report.issues == [
        TestIssue(test: "plain()", location: "ModelTests.swift:8:4", message: "Caught error: no store at /tmp/x", details: []),
        TestIssue(
          test: #""The model is found in the bundle""#, location: "ModelTests.swift:12:5",
          message: "Expectation failed: (model → nil) != nil",
          details: [
            "The model is not in the bundle: the stack looks for DataModel.momd.\nDid you copy DataModel.xcdatamodeld as a resource?"
          ]),
        TestIssue(
          test: "param(x:)", location: "ModelTests.swift:13:49", message: "Expectation failed: (x → 2) == 1", details: ["x must be one"]),
      ])
  }

  @Test func aMultiLineExpectationKeepsAllItsLines() {
    let output = """
      ✘ Test render() recorded an issue at StackTests.swift:15:7: Expectation failed: (text → "Notes:
      - milk
      ") == ("Notes:
      - bread
      ")
      ↳ The main context shows what the private one saved.
      ✘ Test render() failed after 0.487 seconds with 1 issue.
      """
    let report = TestOutputParser.parse(output, root: root)
    #expect(report.issues.count == 1)
    #expect(report.issues.first?.message == "Expectation failed: (text → \"Notes:\n- milk\n\") == (\"Notes:\n- bread\n\")")
    #expect(report.issues.first?.details == ["The main context shows what the private one saved."])
    let lines = CheckExplanation.issueLines(report.issues, style: Style(enabled: false), exerciseID: "01")
    #expect(
      lines == [
        "  render()", "    Expectation failed: (text → \"Notes:", "    - milk", "    \") == (\"Notes:", "    - bread", "    \")",
        "    (StackTests.swift:15:7)", "    The main context shows what the private one saved.",
      ])
  }

  @Test func testsThatSayTheSameThingShareOneMessage() {
    let output = """
      ✘ Test "A" recorded an issue at T.swift:47:24: Caught error: Exercise 01 is not done yet: read its README.md
      ✘ Test "B" recorded an issue at T.swift:47:24: Caught error: Exercise 01 is not done yet: read its README.md
      ✘ Test "B" recorded an issue at T.swift:47:24: Caught error: Exercise 01 is not done yet: read its README.md
      ✘ Test "C" recorded an issue at T.swift:47:24: Expectation failed: .success → .signal(SIGILL → 4)
      ↳ loadModel(named:in:) stopped the whole process instead of throwing.
      ✘ Test "C" recorded an issue at T.swift:55:32: Issue recorded
      ↳ Before it stopped, the process printed:
        Exercise01/LoadModel.swift:7: Fatal error: no model DataModel
      ✘ Test "C" failed after 0.093 seconds with 2 issues.
      """
    let report = TestOutputParser.parse(output, root: root)
    #expect(report.crash == nil, "a crash inside an exit test's child process is that test's issue, not a crash of the run")
    #expect(report.failedTests == [#""A""#, #""B""#, #""C""#])
    let lines = CheckExplanation.issueLines(report.issues, style: Style(enabled: false), exerciseID: "01")
    #expect(
      lines == [
        #"  "A""#, #"  "B""#, "    Caught error: Exercise 01 is not done yet: read its README.md (T.swift:47:24)",
        #"  "C""#, "    Expectation failed: .success → .signal(SIGILL → 4) (T.swift:47:24)",
        "    loadModel(named:in:) stopped the whole process instead of throwing.",
        "    Before it stopped, the process printed:",
        "      Exercise01/LoadModel.swift:7: Fatal error: no model DataModel",
      ])
  }

  @Test("One mistake that every check meets is said once, although each run's store has its own UUID")
  func aMistakeEveryCheckMeetsIsSaidOnce() {
    // Exercise 09's refused migration, met by each check on a store in a folder of its own.
    func refused(_ test: String, _ uuid: String) -> String {
      """
      ✘ Test "\(test)" recorded an issue at T.swift:9:5: Issue recorded
      ↳ Cannot infer a mapping (134140): "The store at /tmp/Tests-\(uuid)/Notes.sqlite needs a migration." Keep the old attribute.
      """
    }
    let output = [
      refused("A", "B67B6F4D-3BD0-4544-AB1D-8A98B30AE6F8"), #"✘ Test "B" recorded an issue at T.swift:20:5: Expectation failed: x"#,
      refused("C", "5D1E0EA3-C7CB-4427-AB03-8FB884A6A22E"),
    ].joined(separator: "\n")
    let report = TestOutputParser.parse(output, root: root)
    let lines = CheckExplanation.issueLines(report.issues, style: Style(enabled: false), exerciseID: "09")
    #expect(lines.filter { $0.contains("Cannot infer a mapping") }.count == 1, "\(lines.joined(separator: "\n"))")
    #expect(
      lines == [
        #"  "A""#, #"  "C""#,
        #"    Cannot infer a mapping (134140): "The store at /tmp/Tests-B67B6F4D-3BD0-4544-AB1D-8A98B30AE6F8/Notes.sqlite needs a migration." Keep the old attribute."#,
        #"  "B""#, "    Expectation failed: x (T.swift:20:5)",
      ])
  }

  @Test("An explanation that several checks give, each beside an observation of its own, is given in full once")
  func aSharedExplanationIsGivenInFullOnce() {
    let why = "Why: importNotes read the IDs before obtainPermanentIDs(for:); read them after it."
    let output = """
      ✘ Test "A" recorded an issue at T.swift:9:5: Issue recorded
      ↳ 3 of the 3 IDs are temporary (x-coredata:///Note/t5DA40063-37EB-44C9-AA00-92B700FEFA10-2).
      ✘ Test "A" recorded an issue at T.swift:10:5: Issue recorded
      ↳ \(why)
      ✘ Test "B" recorded an issue at T.swift:30:5: Issue recorded
      ↳ After a relaunch, the stored URIs name nothing.
      ✘ Test "B" recorded an issue at T.swift:31:5: Issue recorded
      ↳ \(why)
      """
    let lines = CheckExplanation.issueLines(
      TestOutputParser.parse(output, root: root).issues, style: Style(enabled: false), exerciseID: "11")
    #expect(
      lines == [
        #"  "A""#, "    3 of the 3 IDs are temporary (x-coredata:///Note/t5DA40063-37EB-44C9-AA00-92B700FEFA10-2).", "    \(why)",
        #"  "B""#, "    After a relaunch, the stored URIs name nothing.",
        #"    (as explained above: "Why: importNotes read the IDs before obtainPermanentIDs(for…")"#,
      ])
  }

  @Test("A diagnosis that each check gives after an observation of its own is given in full once")
  func aDiagnosisAfterEachChecksOwnWordsIsGivenOnce() {
    func check(_ test: String, _ observation: String, _ uuid: String) -> String {
      """
      ✘ Test "\(test)" recorded an issue at T.swift:9:5: Issue recorded
      ↳ \(observation) The user's edit never reached the file: the writer's save was refused (error 133020). Set a merge policy.
      ↳ - <x-coredata://\(uuid)/Note/p1> changed in the store (version 1 -> 2); keys changed here: body, title
      """
    }
    let output = [
      check("A", #"The file should have the user's body, "Milk, eggs"."#, "A9BF28B9-A655-46FE-B668-4FD4B0222C1B"),
      check("B", #"The file should have the user's title, "Groceries"."#, "1A004098-2A4F-4933-987D-B6CCCAA8568F"),
    ].joined(separator: "\n")
    let lines = CheckExplanation.issueLines(
      TestOutputParser.parse(output, root: root).issues, style: Style(enabled: false), exerciseID: "13")
    #expect(
      lines == [
        #"  "A""#,
        #"    The file should have the user's body, "Milk, eggs". The user's edit never reached the file: the writer's save was refused (error 133020). Set a merge policy."#,
        "    - <x-coredata://A9BF28B9-A655-46FE-B668-4FD4B0222C1B/Note/p1> changed in the store (version 1 -> 2); keys changed here: body, title",
        #"  "B""#, #"    The file should have the user's title, "Groceries". Set a merge policy."#, "    (the rest as explained above)",
      ])
    #expect(CheckExplanation.sentences(of: "One. Two? Three! 0.5 stays.") == ["One.", " Two?", " Three!", " 0.5 stays."])
  }

  @Test("A violation reported several times keeps its count beside it, after an earlier check said it once")
  func aRepeatedViolationKeepsItsCount() {
    // Exercise 06's starter: a violation one check met once, and another met three times (the checks' recorder
    // puts the count in front). Its sentences were said; what is left of it must still say which one came 3 times.
    let violation = """
      ObjectGraph concurrency violation (rule 2): 'notes' of Notebook (main-queue context 'Main') was read on \
      thread 'importer'. Rule 2: a main-queue context's objects are touched on the main queue only.
      """
    let output = """
      ✘ Test "A" recorded an issue at T.swift:9:5: Issue recorded
      ↳ From a background thread, importNotes touched managed objects off their contexts' queues:
        \(violation)
      ✘ Test "B" recorded an issue at T.swift:30:5: Issue recorded
      ↳ On the main queue, importNotes touched managed objects off their contexts' queues:
        3 times: \(violation)
      """
    let lines = CheckExplanation.issueLines(
      TestOutputParser.parse(output, root: root).issues, style: Style(enabled: false), exerciseID: "06")
    #expect(!lines.contains { $0.contains("reported 3 times") || $0.trimmingCharacters(in: .whitespaces) == "3 times:" })
    #expect(
      lines == [
        #"  "A""#, "    From a background thread, importNotes touched managed objects off their contexts' queues:",
        "      \(violation)",
        #"  "B""#, "    On the main queue, importNotes touched managed objects off their contexts' queues:",
        "      3 times: ObjectGraph concurrency violation (rule 2): 'notes' of Notebook (main-queue context 'Main') was read on thread 'importer'.",
        "    (the rest as explained above)",
      ], "\(lines.joined(separator: "\n"))")
  }

  @Test("Quotes that Swift escaped in a printed list come out plain")
  func escapedQuotesComeOutPlain() {
    let output = #"""
      ✘ Test "A" recorded an issue at T.swift:9:5: Issue recorded
      ↳ It found ["(nothing: No object exists in context \'Main\' (main-queue).)"].
      """#
    let lines = CheckExplanation.issueLines(
      TestOutputParser.parse(output, root: root).issues, style: Style(enabled: false), exerciseID: "11")
    #expect(lines == [#"  "A""#, #"    It found ["(nothing: No object exists in context 'Main' (main-queue).)"]."#])
  }

  @Test("A sentence that ends twice ends once; an ellipsis and a range stay")
  func oneFullStopIsEnough() {
    #expect(
      CheckExplanation.readable("It cannot: the file was left untouched.. Move the store.")
        == "It cannot: the file was left untouched. Move the store.")
    #expect(CheckExplanation.readable("Wait... Then 0..<5 and a.. b") == "Wait... Then 0..<5 and a.. b")
  }

  @Test func anIssueWithoutALocationIsStillAnIssue() {
    let report = TestOutputParser.parse("✘ Test setUp() recorded an issue: Something went wrong", root: root)
    #expect(report.issues == [TestIssue(test: "setUp()", location: nil, message: "Something went wrong", details: [])])
  }

  @Test func xctestFailuresAreReadOnLinuxAndMacOS() {
    let output = """
      Test Suite 'Selected tests' started at 2026-11-22 02:55:23.286
      Test Suite 'SaveTests' started at 2026-11-22 02:55:23.287
      Test Case 'SaveTests.testSaveReportsErrors' started at 2026-11-22 02:55:23.287
      /work/main/Exercises/02-errors/Tests/SaveTests.swift:14: error: SaveTests.testSaveReportsErrors : XCTAssertEqual failed: ("nil") is not equal to ("Optional(diskFull)") - save() should throw, not abort()
      Test Case 'SaveTests.testSaveReportsErrors' failed (0.002 seconds)
      Test Case '-[Exercise02Tests.SaveTests testMac]' started.
      /Users/me/ws/Exercises/02-errors/Tests/SaveTests.swift:20: error: -[Exercise02Tests.SaveTests testMac] : failed - Nope
      Test Case '-[Exercise02Tests.SaveTests testMac]' failed (0.001 seconds).
      Test Case 'SaveTests.testOK' started at 2026-11-22 02:55:23.289
      Test Case 'SaveTests.testOK' passed (0.0 seconds)
      Test Suite 'SaveTests' failed at 2026-11-22 02:55:23.289
      \t Executed 3 tests, with 2 failures (0 unexpected) in 0.002 (0.002) seconds
      Test Suite 'Selected tests' failed at 2026-11-22 02:55:23.289
      \t Executed 3 tests, with 2 failures (0 unexpected) in 0.002 (0.002) seconds
      ◇ Test run started.
      ✔ Test run with 0 tests in 0 suites passed after 0.001 seconds.
      """
    let report = TestOutputParser.parse(output, root: root)
    #expect(report.testsRun == 3)
    #expect(
      report.issues == [
        TestIssue(
          test: "SaveTests.testSaveReportsErrors", location: "Exercises/02-errors/Tests/SaveTests.swift:14",
          message: #"XCTAssertEqual failed: ("nil") is not equal to ("Optional(diskFull)") - save() should throw, not abort()"#, details: []
        ),
        TestIssue(
          test: "Exercise02Tests.SaveTests.testMac", location: "/Users/me/ws/Exercises/02-errors/Tests/SaveTests.swift:20",
          message: "failed - Nope", details: []),
      ])
    #expect(report.failedTests == ["SaveTests.testSaveReportsErrors", "Exercise02Tests.SaveTests.testMac"])
  }

  @Test func compileErrorsKeepTheirExcerptOnceEach() {
    let output = """
      [4/6] Compiling Exercise01 Stack.swift
      /work/main/Exercises/01-model/Sources/Stack.swift:1:31: error: cannot find 'fortyTwo' in scope
      1 | public func answer() -> Int { fortyTwo }
        |                               `- error: cannot find 'fortyTwo' in scope
      2 | public func other() -> String { 3 }
      3 |\u{20}

      [5/6] Compiling Exercise01 Other.swift
      /work/main/Exercises/01-model/Sources/Stack.swift:1:31: error: cannot find 'fortyTwo' in scope
      1 | public func answer() -> Int { fortyTwo }
        |                               `- error: cannot find 'fortyTwo' in scope
      /work/main/Exercises/01-model/Sources/Stack.swift:2:33: error: cannot convert return expression of type 'Int' to return type 'String'
      error: fatalError
      """
    let report = TestOutputParser.parse(output, root: root)
    #expect(
      report.compileErrors == [
        CompileError(
          path: "Exercises/01-model/Sources/Stack.swift", line: 1, column: 31, message: "cannot find 'fortyTwo' in scope",
          excerpt: [
            "1 | public func answer() -> Int { fortyTwo }",
            "  |                               `- error: cannot find 'fortyTwo' in scope",
            "2 | public func other() -> String { 3 }",
          ]),
        CompileError(
          path: "Exercises/01-model/Sources/Stack.swift", line: 2, column: 33,
          message: "cannot convert return expression of type 'Int' to return type 'String'", excerpt: []),
      ])
    #expect(report.otherErrors.isEmpty)
    #expect(!report.buildSucceeded)
  }

  @Test func aCrashSaysWhatAndWhere() {
    let output = """
      ◇ Test run started.
      ◇ Test ten() started.
      ✔ Test ten() passed after 0.001 seconds.
      ◇ Test saveTwice() started.
      /work/main/Exercises/02-errors/Sources/Stack.swift:9: Fatal error: Unresolved error: the store could not be opened

      *** Signal 4: Backtracing from 0x7f562ff6df7f... done ***

      *** Program crashed: Illegal instruction at 0x00007f562ff6df7f ***

      Thread 0 "Exercise02Tests":

        0      0x00007f562e692301 sigsuspend + 65 in libc.so.6

      Thread 4 "oot.default-qos" crashed:

        0      0x00007f562ff6df7f _assertionFailure(_:_:file:line:flags:) + 367 in libswiftCore.so at /home/build/swift/stdlib/public/core/AssertCommon.swift:162:5
        1 [ra] 0x000056341fec2795 CoreDataManager.save() + 52 in ExercisesPackageTests.xctest at /work/main/Exercises/02-errors/Sources/Stack.swift:9:7
        2 [ra] 0x000056341fec2795 saveTwice() + 52 in ExercisesPackageTests.xctest at /work/main/Exercises/02-errors/Tests/T.swift:3:46

      Thread 5 "x":
        0 [ra] 0x000056341fec2795 other() + 52 in ExercisesPackageTests.xctest at /work/main/Exercises/02-errors/Tests/T.swift:30:1

      Registers:
      error: Exited with unexpected signal code 4
      """
    let report = TestOutputParser.parse(output, root: root)
    #expect(
      report.crash
        == TestCrash(
          reason: "Exercises/02-errors/Sources/Stack.swift:9: Fatal error: Unresolved error: the store could not be opened",
          location: "Exercises/02-errors/Sources/Stack.swift:9:7", runningTests: ["saveTwice()"]))
    #expect(report.issues.isEmpty)
  }

  @Test func noMatchingTestsIsNoticed() {
    let output = """
      warning: No matching test cases were run
      Test Suite 'Selected tests' passed at 2026-11-22 02:55:23.528
      \t Executed 0 tests, with 0 failures (0 unexpected) in 0.0 (0.0) seconds
      ✔ Test run with 0 tests in 0 suites passed after 0.001 seconds.
      """
    let report = TestOutputParser.parse(output, root: root)
    #expect(report.noMatchingTests)
    #expect(report.testsRun == 0)
    #expect(CheckOutcome.of(status: 0, report: report) == .noTests)
  }

  @Test func coloursAreIgnoredAndOtherErrorsKept() {
    let output = """
      \u{1B}[91m✘\u{1B}[0m Test foo() recorded an issue at A.swift:1:2: Expectation failed: x
      error: 'exercises': Invalid manifest
      """
    let report = TestOutputParser.parse(output, root: root)
    #expect(report.issues.map(\.message) == ["Expectation failed: x"])
    #expect(report.otherErrors == ["'exercises': Invalid manifest"])
    #expect(report.tail.count == 2)
  }

  @Test func thePhaseFollowsTheOutput() {
    var parser = TestOutputParser(root: root)
    #expect(parser.phase == nil)
    parser.consume("[12/345] Compiling GRDB Database.swift")
    #expect(parser.phase == .building(step: 12, of: 345))
    parser.consume("◇ Test a() started.")
    #expect(parser.phase == .testing(finished: 0, failed: 0))
    parser.consume("✘ Test a() failed after 0.001 seconds with 1 issue.")
    parser.consume("Test Case 'B.testC' passed (0.0 seconds)")
    #expect(parser.phase == .testing(finished: 2, failed: 1))
  }

  @Test func outcomesFollowStatusAndReport() {
    var report = TestRunReport()
    report.testsRun = 3
    #expect(CheckOutcome.of(status: 0, report: report) == .passed(tests: 3))
    #expect(CheckOutcome.of(status: 1, report: report) == .unexplained(status: 1, report))
    report.failedTests = ["a()"]
    #expect(CheckOutcome.of(status: 1, report: report) == .failed(report))
    #expect(CheckOutcome.of(status: 1, report: report).record?.passed == false)
    #expect(CheckOutcome.noTests.record == nil)
  }
}
