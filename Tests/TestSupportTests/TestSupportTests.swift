import Dispatch
import Foundation
import Synchronization
import Testing

@testable import TestSupport

/// The scaffolding the other tests stand on does what its documentation says.
@Suite("Test support")
struct TestSupportTests {
  // MARK: - Temporary folders

  @Test("Each TemporaryFolder is new and empty, and the scope removes them all when the test ends, even when it throws")
  func temporaryFoldersAreRemoved() async throws {
    let made = Mutex<[URL]>([])
    struct Thrown: Error {}
    await #expect(throws: Thrown.self) {
      try await TemporaryFolders().provideScope(for: try #require(Test.current), testCase: Test.Case.current) {
        let first = try TemporaryFolder()
        let second = try TemporaryFolder()
        #expect(first.url != second.url)
        #expect(try FileManager.default.contentsOfDirectory(atPath: first.url.path).isEmpty)
        try Data("kept until the test ends".utf8).write(to: first.appending("file"))
        // A read-only folder (as a test of a refused write makes) is removed too.
        try FileManager.default.createDirectory(at: second.appending("locked/inner"), withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: second.appending("locked").path)
        made.withLock { $0 = [first.url, second.url] }
        throw Thrown()
      }
    }
    let folders = made.withLock { $0 }
    #expect(folders.count == 2)
    for folder in folders {
      #expect(!FileManager.default.fileExists(atPath: folder.path), "\(folder.path) is still there")
      #expect(!FileManager.default.fileExists(atPath: folder.deletingLastPathComponent().path))
    }
  }

  @Test("Outside a .temporaryFolders scope a TemporaryFolder refuses to exist, saying what to add")
  func temporaryFolderNeedsAScope() {
    let error = #expect(throws: TemporaryFolders.MissingScope.self) { try TemporaryFolder() }
    #expect(error?.description.contains(".temporaryFolders") == true)
  }

  @Test("With the trait, a test's folders exist while it runs", .temporaryFolders)
  func temporaryFolderInATest() throws {
    let folder = try TemporaryFolder()
    var isFolder: ObjCBool = false
    #expect(FileManager.default.fileExists(atPath: folder.url.path, isDirectory: &isFolder) && isFolder.boolValue)
    #expect(folder.appending("a/b").path == folder.url.path + "/a/b")
  }

  @Test("An exit test's child process has no scope of its own; a folder handed to it works there, also as its scope", .temporaryFolders)
  func folderInAnExitTest() async throws {
    let folder = try TemporaryFolder()
    await #expect(processExitsWith: .success) { [folder = folder as TemporaryFolder] in
      try Data("written by the child".utf8).write(to: folder.appending("child"))
    }
    #expect(FileManager.default.fileExists(atPath: folder.appending("child").path))

    await #expect(processExitsWith: .success) { [folder = folder as TemporaryFolder] in
      let inner = try folder.withScope { try TemporaryFolder() }
      #expect(inner.url.deletingLastPathComponent().standardizedFileURL == folder.url.standardizedFileURL)
      try Data("made in the child's scope".utf8).write(to: inner.appending("file"))
    }
    let made = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
    #expect(made.count == 2, "the child's file and its folder: \(made)")
  }

  // MARK: - Child processes

  @Test("A child process's status, both outputs and environment come back, however much it prints")
  func childProcess() throws {
    // 1 MiB on each pipe: far more than a pipe's buffer, so reading one to its end before the other would hang.
    let script = """
      head -c 1048576 /dev/zero | tr '\\0' o
      head -c 1048576 /dev/zero | tr '\\0' e >&2
      printf '%s' "$SUPPORT_TEST"
      exit 7
      """
    let run = try ProcessOutput.run(
      URL(fileURLWithPath: "/bin/sh"), ["-c", script], environment: ["SUPPORT_TEST": "set"])
    #expect(run.status == 7)
    #expect(run.stdout.count == 1_048_576 + 3)
    #expect(run.stdout.hasSuffix("oset"))
    #expect(run.stderr.count == 1_048_576)
  }

  @Test("A child process that runs too long is killed, and the error says so with what it printed")
  func childProcessTimeout() throws {
    let start = ContinuousClock.now
    let error = #expect(throws: WatchdogTimeout.self) {
      try ProcessOutput.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "echo started; exec sleep 30"], upTo: .milliseconds(500))
    }
    #expect(ContinuousClock.now - start < .seconds(10))
    #expect(error?.description.contains("sh to end; it was killed") == true)
    #expect(error?.description.contains("started") == true)
  }

  @Test("runSuspending gives what run gives, and children awaited together run at once", .temporaryFolders)
  func childProcessSuspending() async throws {
    let script = "printf out; printf err >&2; exit 5"
    let run = try await ProcessOutput.runSuspending(URL(fileURLWithPath: "/bin/sh"), ["-c", script])
    #expect(run.status == 5 && run.stdout == "out" && run.stderr == "err")
    // Three children that each wait until all three have started: one after another, the first would wait
    // until its limit and be killed.
    let folder = try TemporaryFolder()
    let wait = "touch \"$0/$1\"; while [ $(ls \"$0\" | wc -l) -lt 3 ]; do sleep 0.05; done; echo all"
    let outputs = try await Lanes.map(Array(0..<3), lanes: 3) { child in
      try await ProcessOutput.runSuspending(
        URL(fileURLWithPath: "/bin/sh"), ["-c", wait, folder.url.path, "child-\(child)"], upTo: .seconds(60)
      ).stdout
    }
    #expect(outputs == ["all\n", "all\n", "all\n"])
  }

  @Test("Lanes.map keeps the items' order and runs at most `lanes` calls at once")
  func lanes() async throws {
    let running = Mutex((now: 0, most: 0))
    let doubled = try await Lanes.map(Array(0..<12), lanes: 3) { item in
      running.withLock { running in
        running.now += 1
        running.most = max(running.most, running.now)
      }
      try await Task.sleep(for: .milliseconds(item % 2 == 0 ? 30 : 5))
      running.withLock { $0.now -= 1 }
      return item * 2
    }
    let most: Int = running.withLock { $0.most }
    #expect(doubled == (0..<12).map { $0 * 2 })
    #expect(most <= 3 && most >= 2, "at most three at once, and more than one: \(most)")
  }

  @Test("BuildProducts finds this build's executables, and answers nil for one that was not built")
  func buildProducts() {
    #expect(FileManager.default.fileExists(atPath: BuildProducts.folder.path))
    #expect(BuildProducts.executable("no-such-product") == nil)
  }

  // MARK: - The main-queue probe

  @Test("The probe says true in a main-queue block and false on other queues")
  func mainQueueProbe() async {
    let onMain = await withCheckedContinuation { continuation in
      DispatchQueue.main.async { continuation.resume(returning: MainQueueProbe.isOnMainQueue) }
    }
    #expect(onMain)
    #expect(!DispatchQueue.global().sync { MainQueueProbe.isOnMainQueue })
    #expect(!DispatchQueue(label: "org.example.other").sync { MainQueueProbe.isOnMainQueue })
  }

  // MARK: - The watchdog

  @Test("A semaphore wait returns when signalled, and throws, naming what it waited for, when not")
  func semaphoreWait() throws {
    let signalled = DispatchSemaphore(value: 0)
    DispatchQueue.global().async { signalled.signal() }
    try Watchdog.wait(for: signalled, "the signal")

    let error = #expect(throws: WatchdogTimeout.self) {
      try Watchdog.wait(for: DispatchSemaphore(value: 0), upTo: .milliseconds(50), "a signal that never comes")
    }
    #expect(error?.description.contains("a signal that never comes") == true)
  }

  @Test("A callback wait returns the first value, passes on what start throws, and times out when never called")
  func callbackWait() async throws {
    let value: Int = try await Watchdog.callback("the answer") { done in
      DispatchQueue.global().async {
        done(42)
        done(43)
      }
    }
    #expect(value == 42)

    struct Refused: Error {}
    await #expect(throws: Refused.self) {
      let _: Int = try await Watchdog.callback("nothing") { _ in throw Refused() }
    }
    let error = await #expect(throws: WatchdogTimeout.self) {
      let _: Int = try await Watchdog.callback(upTo: .milliseconds(50), "a completion that never comes") { _ in }
    }
    #expect(error?.description.contains("a completion that never comes") == true)
  }

  // MARK: - Notification logs

  @Test("A notification log records the posts of its object only, leaves out what it answers nil for, and can forget")
  func notificationLog() {
    let name = Notification.Name("TestSupportTests.ping")
    final class Sender: Sendable {}
    let (mine, other) = (Sender(), Sender())
    let log = NotificationLog(name, object: mine) { note in note.userInfo?["n"] as? Int }
    NotificationCenter.default.post(name: name, object: mine, userInfo: ["n": 1])
    NotificationCenter.default.post(name: name, object: other, userInfo: ["n": 2])
    NotificationCenter.default.post(name: name, object: mine, userInfo: [:])
    NotificationCenter.default.post(name: name, object: mine, userInfo: ["n": 3])
    #expect(log.entries == [1, 3])
    log.removeAll()
    NotificationCenter.default.post(name: name, object: mine, userInfo: ["n": 4])
    #expect(log.entries == [4])
  }
}
