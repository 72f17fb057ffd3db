import Foundation
import TestSupport
import Testing

/// The engine's layering, as the layer table of `Docs/ObjectGraph.md` lays it down, checked by `swift test`, so
/// that a use the table does not allow fails here and not first in CI. `.ci/check-layers.py` does the checking;
/// these tests run it (with the `python3` on the `PATH`; without one they are skipped and say so).
@Suite("The engine's layers", .temporaryFolders)
struct LayerTests {
  /// The `python3` on the `PATH`, or `nil`.
  static let python: URL? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/usr/local/bin")
    .split(separator: ":")
    .map { URL(fileURLWithPath: String($0)).appendingPathComponent("python3") }
    .first { FileManager.default.isExecutableFile(atPath: $0.path) }

  @Test(
    "Every folder of the engine uses only the types, members and modules its row of the layer table allows",
    .enabled(if: python != nil, "python3 runs .ci/check-layers.py: install it to run this check"))
  func theLayersHold() throws {
    let python = try #require(Self.python)
    let check = try ProcessOutput.run(python, [".ci/check-layers.py"], currentDirectory: Repository.root)
    #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    #expect(check.stdout.contains("all allowed by Docs/ObjectGraph.md"), "\(check.stdout)")
  }

  @Test(
    "A member another folder declares is a use of that folder: without its row's permission, the check fails and names it",
    .enabled(if: python != nil, "python3 runs .ci/check-layers.py: install it to run this check"))
  func aMemberUseNeedsItsRow() throws {
    // The container reads the mapping models beside the model through `mappingModels`, a member
    // MappingMigration/ declares on a Store/ type: take away Container/'s permission for it.
    let check = try Self.checkOnACopy(replacing: ", `MappingMigration/` (only `mappingModels`", with: " (was `mappingModels`")
    #expect(check.status == 1)
    #expect(check.stdout.contains("uses mappingModels (declared in MappingMigration/"), "\(check.stdout)")
    #expect(check.stdout.contains("Container/ may not use MappingMigration/"), "\(check.stdout)")
  }

  @Test(
    "An initialiser another folder declares in an extension is a use of that folder: without its row's permission, the check fails",
    .enabled(if: python != nil, "python3 runs .ci/check-layers.py: install it to run this check"))
  func anInitialiserUseNeedsItsRow() throws {
    // The container loads its model with `NSManagedObjectModel(loadingContentsOf:)`, an initialiser ModelFiles/
    // declares in an extension of a Model/ type: take away Container/'s permission for it.
    let initialiser = "`NSManagedObjectModel(loadingContentsOf:)`"
    let check = try Self.checkOnACopy(replacing: ", `ModelFiles/` (only \(initialiser)", with: " (was \(initialiser)")
    #expect(check.status == 1)
    #expect(
      check.stdout.contains("uses NSManagedObjectModel(loadingContentsOf:) (an initialiser declared in ModelFiles/"),
      "\(check.stdout)")
    #expect(check.stdout.contains("Container/ may not use ModelFiles/"), "\(check.stdout)")
  }

  /// Runs the check on a copy of the engine, the table and the script, in which the table's `permission` is
  /// replaced by `replacement`.
  static func checkOnACopy(replacing permission: String, with replacement: String) throws -> ProcessOutput {
    let python = try #require(Self.python)
    let copy = try TemporaryFolder()
    let files = FileManager.default
    for path in ["Stages/ObjectGraph", "Docs/ObjectGraph.md", ".ci/check-layers.py"] {
      let target = copy.url.appendingPathComponent(path)
      try files.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
      try files.copyItem(at: Repository.root.appendingPathComponent(path), to: target)
    }
    let table = copy.url.appendingPathComponent("Docs/ObjectGraph.md")
    let text = try String(contentsOf: table, encoding: .utf8)
    try #require(text.contains(permission), "The layer table no longer has \(permission): update this test")
    try text.replacingOccurrences(of: permission, with: replacement).write(to: table, atomically: true, encoding: .utf8)
    return try ProcessOutput.run(python, [".ci/check-layers.py"], currentDirectory: copy.url)
  }
}
