// The checks of exercise 01. They run against your code in Exercises/01-model-not-found/Sources, or
// against the reference solution when WORKSHOP_SOLUTIONS=1. Each check runs in a child process, so that
// code which stops the process (fatalError(), abort(), try!) fails one check with an explanation instead
// of ending the whole run.
import Exercise01
import Exercise01Solution
import ExerciseChecks
import Foundation
import NotesModel
import ObjectGraph
import TestSupport
import Testing

/// The function under test: your `loadModel(named:in:)`, or the solution's.
enum Subject {
  static let loadModel: @Sendable (String, Bundle) throws -> NSManagedObjectModel = CodeUnderTest.pick(
    starter: Exercise01.loadModel(named:in:), solution: Exercise01Solution.loadModel(named:in:))
}

/// Said when a check's child process stopped (a crash) instead of getting a thrown error back.
let stoppedAdvice: Comment = """
  loadModel(named:in:) stopped the whole process instead of throwing. An app that stops at launch can \
  tell its user nothing, and a crash report is all you get. Throw an error instead of calling \
  fatalError() or abort(), and avoid try! and force unwraps (!) on things that can be missing.
  """

@Suite("Exercise 01: a missing model is an error, not a crash", .temporaryFolders)
struct ModelNotFoundTests {
  @Test("DataModel loads from the tutorial's bundle, with its entities Attachment, Note, Notebook and Tag")
  func loadsTheTutorialModel() async throws { try await runInChildProcess(.loadsTheTutorialModel) }

  @Test("The model is looked up in the bundle that is passed in, not in a fixed one")
  func usesTheGivenBundle() async throws { try await runInChildProcess(.usesTheGivenBundle) }

  @Test("A name the bundle does not have is a thrown error that names the file looked for and the bundle")
  func missingName() async throws { try await runInChildProcess(.missingName) }

  @Test("A bundle without the model (as Bundle.main would be) is a thrown error that names that bundle")
  func wrongBundle() async throws { try await runInChildProcess(.wrongBundle) }

  @Test("A model that is there but cannot be read (contentsOf: gives nil) is a thrown error that names the file")
  func damagedModel() async throws { try await runInChildProcess(.damagedModel) }
}

/// Runs `check` in a child process (``ChildProcess``): code that stops or hangs the process fails this one
/// check, with ``stoppedAdvice`` and what the process printed, instead of ending the whole test run.
func runInChildProcess(_ check: ChildCheck) async throws {
  let scope = try TemporaryFolder()  // both runs' folders, removed by the suite's .temporaryFolders scope
  let finished = await #expect(processExitsWith: .success, stoppedAdvice) {
    [check = check as ChildCheck, scope = scope as TemporaryFolder] in ChildProcess.run(check, in: scope)
  }
  guard finished == nil else { return }
  // The process stopped. Run the check once more, only to collect what it printed before stopping.
  let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
    [check = check as ChildCheck, scope = scope as TemporaryFolder] in ChildProcess.run(check, in: scope, recordingErrors: false)
  }
  ChildProcess.reportStop(stopped)
}

/// The checks; each runs in a child process.
enum ChildCheck: String, Codable, Sendable, ChildProcessCheck {
  case loadsTheTutorialModel, usesTheGivenBundle, missingName, wrongBundle, damagedModel

  func run() throws {
    switch self {
    case .loadsTheTutorialModel: try Self.checkLoadsTheTutorialModel()
    case .usesTheGivenBundle: try Self.checkUsesTheGivenBundle()
    case .missingName: try Self.checkMissingName()
    case .wrongBundle: try Self.checkWrongBundle()
    case .damagedModel: try Self.checkDamagedModel()
    }
  }

  private static func checkLoadsTheTutorialModel() throws {
    let model = try Subject.loadModel(NotesModel.name, NotesModel.bundle)
    #expect(
      model.entitiesByName.keys.sorted() == ["Attachment", "Note", "Notebook", "Tag"],
      "DataModel.xcdatamodeld's current version has the entities Attachment, Note, Notebook and Tag; the model you returned has \(model.entitiesByName.keys.sorted())."
    )
  }

  private static func checkUsesTheGivenBundle() throws {
    let folder = try TemporaryFolder()
    let source = try #require(NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld"))
    try FileManager.default.copyItem(at: source, to: folder.appending("Journal.xcdatamodeld"))
    let bundle = try #require(Bundle(url: folder.url))

    let model: NSManagedObjectModel
    do {
      model = try Subject.loadModel("Journal", bundle)
    } catch {
      try rethrowIfNotDone(error)
      // An error that names the bundle it was given searched the right bundle: the name or the extension
      // it asked for is wrong. One that does not probably searched another bundle.
      let searchedTheGivenBundle = "\(error)".contains(folder.url.lastPathComponent)
      Issue.record(
        searchedTheGivenBundle
          ? """
          loadModel(named: "Journal", in: bundle) searched the bundle it was given (its error names \
          \(folder.url.lastPathComponent)), and that bundle does hold the model, as Journal.xcdatamodeld: a folder \
          whose extension is "xcdatamodeld", with the d (not "xcdatamodel", the folder of one version inside it, \
          nor "momd", what Xcode compiles it to). Ask for exactly that: bundle.url(forResource: name, \
          withExtension: "xcdatamodeld"), with the name as given. It threw: \(error)
          """
          : """
          loadModel(named: "Journal", in: bundle) threw, but that bundle (\(folder.url.lastPathComponent)) does hold \
          Journal.xcdatamodeld. Look the model up in the bundle you are given, with \
          bundle.url(forResource: name, withExtension: "xcdatamodeld"), not in a fixed bundle. It threw: \(error)
          """)
      return
    }
    #expect(
      model.entitiesByName.keys.sorted() == ["Attachment", "Note", "Notebook", "Tag"],
      "Journal.xcdatamodeld is a copy of DataModel, so it has Attachment, Note, Notebook and Tag; got \(model.entitiesByName.keys.sorted())."
    )
  }

  private static func checkMissingName() throws {
    let bundle = NotesModel.bundle
    guard let error = try errorThrown(by: { _ = try Subject.loadModel("NoSuchModel", bundle) }) else {
      Issue.record(
        """
        loadModel(named: "NoSuchModel", in: NotesModel.bundle) returned a model, but that bundle has no \
        NoSuchModel.xcdatamodeld. Throw an error when bundle.url(forResource:withExtension:) finds nothing.
        """)
      return
    }
    expectClearMessage(error, model: "NoSuchModel", bundle: bundle, situation: "the name is misspelled")
  }

  private static func checkWrongBundle() throws {
    let folder = try TemporaryFolder()
    let appFolder = folder.appending("AppWithoutModel")
    try FileManager.default.createDirectory(at: appFolder, withIntermediateDirectories: true)
    let bundle = try #require(Bundle(url: appFolder))
    guard let error = try errorThrown(by: { _ = try Subject.loadModel(NotesModel.name, bundle) }) else {
      Issue.record(
        """
        loadModel(named: "DataModel", in: bundle) returned a model, but that bundle (an empty folder, \
        \(appFolder.path)) has no DataModel.xcdatamodeld. Look in the bundle you are given, and throw when the \
        model is not there.
        """)
      return
    }
    expectClearMessage(error, model: NotesModel.name, bundle: bundle, situation: "the code searched the wrong bundle")
  }

  private static func checkDamagedModel() throws {
    let folder = try TemporaryFolder()
    // A .xcdatamodeld folder with no model version inside: the model is there, but cannot be read.
    try FileManager.default.createDirectory(at: folder.appending("Damaged.xcdatamodeld"), withIntermediateDirectories: true)
    let bundle = try #require(Bundle(url: folder.url))
    guard let error = try errorThrown(by: { _ = try Subject.loadModel("Damaged", bundle) }) else {
      Issue.record("loadModel(named: \"Damaged\", in: bundle) returned a model, but Damaged.xcdatamodeld holds no model version.")
      return
    }
    let text = String(describing: error)
    #expect(
      text.contains("Damaged.xcdatamodeld"),
      """
      Damaged.xcdatamodeld is in the bundle but holds no model version, so NSManagedObjectModel(contentsOf:) \
      returns nil (as Core Data's does; it logs why). That is a different problem from a missing model: throw \
      an error whose description names the file that cannot be read (its path), so the reader knows to look \
      at that file and at the log line above. Your function threw: \(text)
      """)
    #expect(
      !text.contains("No data model named") && !text.contains("no model named"),
      """
      Damaged.xcdatamodeld is there, but your error says the model is missing. When the lookup finds the file \
      and NSManagedObjectModel(contentsOf:) returns nil, say the file cannot be read. Your function threw: \(text)
      """)
  }

  /// The error for a missing model must let a reader find the problem without a debugger.
  private static func expectClearMessage(_ error: any Error, model: String, bundle: Bundle, situation: String) {
    let text = String(describing: error)
    #expect(
      text.contains("\(model).xcdatamodeld"),
      """
      When \(situation), the error should name the file that was looked for, "\(model).xcdatamodeld", so whoever \
      reads it knows what to check. Its description was: \(text)
      """)
    #expect(
      text.contains(bundle.bundleURL.lastPathComponent),
      """
      When \(situation), the error should name the bundle that was searched (for example bundle.bundleURL.path, \
      here \(bundle.bundleURL.path)): searching the wrong bundle is the usual cause. Its description was: \(text)
      """)
  }
}
