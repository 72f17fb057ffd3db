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

  @Test("A model that is there but cannot be read is a thrown error of its own, naming the file")
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
    let model: NSManagedObjectModel
    do {
      model = try Subject.loadModel(NotesModel.name, NotesModel.bundle)
    } catch {
      try rethrowIfNotDone(error)
      // What this check saw, and where the error says it looked. Why a lookup in the right bundle failed is
      // for the check on the given bundle to say: it can tell a wrong name from a wrong extension.
      let elsewhere = searchedElsewhere("\(error)", given: NotesModel.bundle).map { " " + $0 } ?? ""
      Issue.record(
        """
        loadModel(named: "DataModel", in: NotesModel.bundle) threw, but that bundle holds DataModel.xcdatamodeld, \
        the tutorial's model.\(elsewhere) It threw: \(error)
        """)
      return
    }
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
      let text = "\(error)"
      let opening = """
        loadModel(named: "Journal", in: bundle) threw, but that bundle (\(folder.url.lastPathComponent)) holds \
        Journal.xcdatamodeld, a copy of the tutorial's model.
        """
      if let elsewhere = searchedElsewhere(text, given: bundle) {
        Issue.record(
          """
          \(opening) \(elsewhere) Look the model up in the bundle you are given: a library, a test or a \
          package passes its own. It threw: \(text)
          """)
      } else if text.contains(folder.url.lastPathComponent) {
        // Its error names the bundle it was given: it searched there, and asked for the wrong file.
        Issue.record(
          """
          \(opening) Its error names that bundle, so the lookup searched the right bundle and asked it for a \
          file it does not hold. The model is the folder Journal.xcdatamodeld, with the d: not \
          Journal.xcdatamodel (one version inside that folder), nor Journal.momd (what Xcode compiles it to in \
          an app on a Mac). Ask for the name as given, with the extension "xcdatamodeld". It threw: \(text)
          """)
      } else {
        Issue.record(
          """
          \(opening) Its error does not name the bundle it searched, so neither you nor this check can tell \
          where the lookup went wrong. Make the error name the bundle (its path), as the task asks, and the \
          checks will say more. It threw: \(text)
          """)
      }
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
        NoSuchModel.xcdatamodeld. When the bundle does not hold the model asked for, throw.
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
        \(appFolder.path)) has no DataModel.xcdatamodeld: the model came from another bundle. Look in the \
        bundle you are given, and throw when the model is not there.
        """)
      return
    }
    expectClearMessage(error, model: NotesModel.name, bundle: bundle, situation: "the bundle does not hold the model")
  }

  private static func checkDamagedModel() throws {
    let folder = try TemporaryFolder()
    // A .xcdatamodeld folder with no model version inside: the model is there, but cannot be read. Beside it,
    // a readable copy of the tutorial's model, to tell a lookup that finds nothing from one that finds the file.
    let damaged = folder.appending("Damaged.xcdatamodeld")
    try FileManager.default.createDirectory(at: damaged, withIntermediateDirectories: true)
    let source = try #require(NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld"))
    try FileManager.default.copyItem(at: source, to: folder.appending("Journal.xcdatamodeld"))
    let bundle = try #require(Bundle(url: folder.url))
    guard let error = try errorThrown(by: { _ = try Subject.loadModel("Damaged", bundle) }) else {
      Issue.record("loadModel(named: \"Damaged\", in: bundle) returned a model, but Damaged.xcdatamodeld holds no model version.")
      return
    }
    let text = String(describing: error)
    let opening = "Damaged.xcdatamodeld is in the bundle, but holds no model version, so it cannot be read."
    if let elsewhere = searchedElsewhere(text, given: bundle) {
      Issue.record("\(opening) \(elsewhere) It threw: \(text)")
      return
    }
    if try errorThrown(by: { _ = try Subject.loadModel("Journal", bundle) }) != nil {
      // The lookup does not find a model that is there: the check on the given bundle says why. Said briefly.
      Issue.record(
        """
        \(opening) Your function cannot tell that from a missing model: it does not find a model that is there \
        (it throws for Journal.xcdatamodeld, a readable copy of the tutorial's model beside it, too). It threw: \(text)
        """)
      return
    }

    // What the same function says about a bundle that has no model at all, with each bundle's path left out:
    // when that is what it says about the damaged model too, the reader cannot tell the two problems apart.
    let empty = try TemporaryFolder()
    let emptyBundle = try #require(Bundle(url: empty.url))
    if let missing = try errorThrown(by: { _ = try Subject.loadModel("Damaged", emptyBundle) }),
      withoutBundle(text, bundle) == withoutBundle(String(describing: missing), emptyBundle)
    {
      Issue.record(
        """
        \(opening) Your function threw the same error it throws for a bundle that holds no model at all, so \
        whoever reads it goes looking for a missing file, while the file is there and damaged. Tell the two \
        apart: the model that is there but cannot be read gets an error of its own, naming that file. It threw: \
        \(text)
        """)
      return
    }
    let paths = [damaged.path, damaged.resolvingSymlinksInPath().path]
    #expect(
      paths.contains { text.contains($0) },
      """
      \(opening) The error should name that file by its path, \(damaged.path), so the reader knows which file to \
      open and to look for the reason in the log. Your function threw: \(text)
      """)
  }

  /// The error for a missing model must let a reader find the problem without a debugger: it names the file
  /// looked for and the bundle searched. One issue says what it lacks.
  private static func expectClearMessage(_ error: any Error, model: String, bundle: Bundle, situation: String) {
    let text = String(describing: error)
    if let elsewhere = searchedElsewhere(text, given: bundle) {
      Issue.record("When \(situation), the error should name the bundle that was searched, \(bundle.bundleURL.path). \(elsewhere)")
      return
    }
    var missing: [String] = []
    if !text.contains("\(model).xcdatamodeld") {
      missing.append("the model's file, \"\(model).xcdatamodeld\" (the name to look for in the project)")
    }
    if !text.contains(bundle.bundleURL.path) {
      missing.append(
        text.contains(bundle.bundleURL.lastPathComponent)
          ? """
          the bundle that was searched by its path, here \(bundle.bundleURL.path): it names only the bundle's \
          folder, \(bundle.bundleURL.lastPathComponent), which does not say where that folder is (bundleURL.path \
          does)
          """
          : "the bundle that was searched (its path, here \(bundle.bundleURL.path))")
    }
    guard !missing.isEmpty else { return }
    Issue.record(
      """
      When \(situation), the error should name \(missing.joined(separator: ", and ")), so whoever reads it knows \
      what to check without a debugger. Its description was: \(text)
      """)
  }

  /// When `text` (an error's description) names a bundle of the test run's own that is not `given`, a
  /// sentence that says so: the lookup searched there. `nil` when it names `given`, or neither.
  private static func searchedElsewhere(_ text: String, given: Bundle) -> String? {
    guard !text.contains(given.bundleURL.lastPathComponent) else { return nil }
    // NotesModel.bundle sits inside Bundle.main's folder in a SwiftPM build, so it is looked for first.
    let known = [("NotesModel.bundle", NotesModel.bundle), ("Bundle.main", Bundle.main)]
    guard let (name, other) = known.first(where: { text.contains($0.1.bundleURL.path) }), other.bundleURL != given.bundleURL else {
      return nil
    }
    return "Its error names \(name) (\(other.bundleURL.path)) instead: the lookup searched there, not in the bundle it was given."
  }

  /// `text` with the path and the name of `bundle`'s folder taken out, to compare errors about two bundles.
  private static func withoutBundle(_ text: String, _ bundle: Bundle) -> String {
    text.replacingOccurrences(of: bundle.bundleURL.path, with: "<bundle>")
      .replacingOccurrences(of: bundle.bundleURL.lastPathComponent, with: "<bundle>")
  }
}
