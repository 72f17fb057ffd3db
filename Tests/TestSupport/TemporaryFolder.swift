import Foundation
import Testing

/// A new, empty folder for a test's files, removed by the test's ``TemporaryFolders`` scope.
///
/// A test (or its suite) carries the trait `.temporaryFolders`; inside it, each `TemporaryFolder()` makes
/// a fresh folder, and when the test ends, passed, failed or thrown, every folder it made is removed:
///
/// ```swift
/// @Suite("Saving", .temporaryFolders)
/// struct SavingTests {
///   @Test func saves() throws {
///     let folder = try TemporaryFolder()
///     try Data("x".utf8).write(to: folder.appending("file"))
///   }  // the folder is gone once the test is over
/// }
/// ```
///
/// Why a trait, rather than a `defer` in each test or a class that deletes its folder in `deinit`: a
/// test hands the folder's URL to stores, managers and child processes that outlive any one use of the
/// folder value, and Swift may end a value's life right after its last use, so a `deinit` could remove
/// the folder while a store still writes there. The trait removes everything when the test itself is
/// over, which is the one moment nothing in it uses the files any more. Made outside such a scope, the
/// folder refuses to exist (it throws, saying to add the trait) rather than leak.
///
/// An exit test's body runs in a child process, where no trait applies: make the folder in the test and
/// hand it to the body, `{ [folder = folder as TemporaryFolder] in … }`, or make it the body's scope with
/// ``withScope(_:)``; the test's own scope removes it all.
public struct TemporaryFolder: Sendable, Codable {
  /// The folder.
  public let url: URL

  /// Makes a new, empty folder inside the running test's scope.
  ///
  /// - Throws: ``TemporaryFolders/MissingScope`` when neither the test nor its suite carries
  ///   `.temporaryFolders`, or the file system's error when the folder cannot be made.
  public init() throws {
    guard let scope = TemporaryFolders.current else { throw TemporaryFolders.MissingScope() }
    url = scope.appendingPathComponent(UUID().uuidString, isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// A path inside the folder (nothing is created).
  public func appending(_ path: String) -> URL { url.appendingPathComponent(path) }

  /// Runs `body` with this folder as the scope of the ``TemporaryFolder``s it makes, for an exit test's
  /// body, where no trait applies:
  ///
  /// ```swift
  /// let scope = try TemporaryFolder()  // in the test, which carries .temporaryFolders
  /// await #expect(processExitsWith: .success) { [scope = scope as TemporaryFolder] in
  ///   try scope.withScope { try check.run() }  // its TemporaryFolder()s go inside scope
  /// }
  /// ```
  public func withScope<Result>(_ body: () throws -> Result) rethrows -> Result {
    try TemporaryFolders.$current.withValue(url) { try body() }
  }
}

/// The trait that gives a test its ``TemporaryFolder``s and removes them when the test ends.
///
/// On a suite it applies to every test in it, each test (each case of a parameterized test) getting a
/// scope of its own, so tests running in parallel never share a folder.
public struct TemporaryFolders: TestTrait, SuiteTrait, TestScoping {
  /// The running test's scope: the folder that holds every ``TemporaryFolder`` it makes.
  @TaskLocal static var current: URL?

  /// What ``TemporaryFolder/init()`` throws outside a `.temporaryFolders` scope.
  public struct MissingScope: Error, CustomStringConvertible {
    public var description: String {
      """
      This test made a TemporaryFolder without a scope to remove it: add the trait .temporaryFolders to the \
      test or its suite. (The scope is a task-local value: a block on a Dispatch queue does not see it, so \
      make the folder before such a block and hand it in.)
      """
    }
  }

  public var isRecursive: Bool { true }

  /// A scope per test case; none for a suite as a whole (its tests get their own).
  public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
    testCase == nil ? nil : self
  }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    let scope = FileManager.default.temporaryDirectory.appendingPathComponent(
      "CoreDataStackTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: scope, withIntermediateDirectories: true)
    defer { Self.remove(scope) }
    try await Self.$current.withValue(scope) { try await function() }
  }

  /// Removes `folder` and everything in it, first making writable again any folder a test made
  /// read-only (to check a refused write), since a read-only folder's files cannot be deleted.
  static func remove(_ folder: URL) {
    let fileManager = FileManager.default
    if (try? fileManager.removeItem(at: folder)) != nil { return }
    let inside = fileManager.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? []
    for item in [folder] + inside {
      var isFolder: ObjCBool = false
      guard fileManager.fileExists(atPath: item.path, isDirectory: &isFolder), isFolder.boolValue else { continue }
      try? fileManager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: item.path)
    }
    try? fileManager.removeItem(at: folder)
  }
}

extension Trait where Self == TemporaryFolders {
  /// Each test gets its own scope for ``TemporaryFolder``s, removed with everything in it when the test
  /// ends.
  public static var temporaryFolders: Self { TemporaryFolders() }
}
