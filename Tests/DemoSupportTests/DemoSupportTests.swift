import ArgumentParser
import Foundation
import Testing

@testable import DemoSupport

/// The demos' shared "UI" and command line. Timings are checked only from below: a gap can never be
/// shorter than the time the main queue was held on purpose.
@Suite("Demo support")
struct DemoSupportTests {
  // MARK: - The stall report

  @Test("A gap of about n frames counts n - 1 missed frames; the longest gap is kept")
  func stallArithmetic() {
    var stall = Stall()
    stall.add(gap: .milliseconds(17))
    #expect(stall.missedFrames == 0)
    stall.add(gap: .milliseconds(50))
    stall.add(gap: .milliseconds(20))
    #expect(stall.missedFrames == 2)
    #expect(stall.longestGap == .milliseconds(50))
    stall.add(wait: .milliseconds(34))
    #expect(stall.summary == "longest stall 34 ms, 2 frames missed in all")
    stall.add(gap: .milliseconds(34))
    #expect(stall.frames == "3 frames")
    var one = Stall()
    one.add(gap: .milliseconds(33))
    one.add(wait: .milliseconds(16))
    #expect(one.summary == "longest stall 16 ms, 1 frame missed in all")
  }

  @Test("Work that holds the main queue right after start() and right before stop() is counted")
  @MainActor
  func stopCountsTheLastGap() {
    let ticker = FrameTicker()
    ticker.start()
    Thread.sleep(forTimeInterval: 0.1)  // on the main actor: no tick can run meanwhile
    let stall = ticker.stop()
    #expect(stall.longestGap >= .milliseconds(100))
    #expect(stall.missedFrames >= 5)
    // The first tick was due at start(): it ran late by the whole sleep.
    #expect(stall.longestWait >= .milliseconds(100))
    #expect(stall.longestWait <= stall.longestGap)
  }

  @Test("How late a tick ran counts from the oldest tick due, not from the last tick that ran")
  @MainActor
  func lateTicksCountFromTheirDueTime() async throws {
    let (_, stall) = try await measureStall(settle: .milliseconds(100), catchUp: .milliseconds(50)) {
      usleep(60_000)
    }
    // The tick due at the start of the block, or at most a frame after it, waited out the rest.
    #expect(stall.longestWait >= .milliseconds(60) - FrameTicker.frame)
    #expect(stall.longestWait <= stall.longestGap)
  }

  @Test("measureStall returns the work's result and the stall it caused")
  @MainActor
  func measureStallOfBlockingWork() async throws {
    let (result, stall) = try await measureStall(settle: .milliseconds(50), catchUp: .milliseconds(50)) {
      usleep(100_000)  // holds the main actor, as a big save would
      return "done"
    }
    #expect(result == "done")
    #expect(stall.longestGap >= .milliseconds(100))
  }

  @Test("A thread's CPU time grows with its work, and less than the wall clock while it sleeps")
  func threadCPUTime() {
    let start = ThreadCPUTime.now()
    #expect(start > .zero)
    // Work until the clock has moved (it ticks in nanoseconds; a bound keeps a broken clock from hanging).
    var spins = 0
    var sink = 0
    while ThreadCPUTime.now() == start && spins < 10_000_000 {
      sink &+= spins &* 31
      spins += 1
    }
    #expect(ThreadCPUTime.now() > start, "\(sink)")
    let beforeSleep = ThreadCPUTime.now()
    Thread.sleep(forTimeInterval: 0.2)
    #expect(ThreadCPUTime.now() - beforeSleep < .milliseconds(200))
  }

  @Test("Durations are printed in whole milliseconds, rounded")
  func wholeMilliseconds() {
    #expect(milliseconds(.microseconds(1_499)) == 1)
    #expect(milliseconds(.microseconds(1_500)) == 2)
    #expect(milliseconds(.seconds(2)) == 2_000)
  }

  // MARK: - The options

  @Test("The options' defaults, and Core Data's launch arguments taken with their number")
  func options() throws {
    let defaults = try DemoOptions<ImportSize>.parse([])
    #expect(defaults.count == 10_000)
    #expect(defaults.storeFolder(for: "some-demo").lastPathComponent.hasPrefix("some-demo-"))

    let given = try DemoOptions<ImportSize>.parse([
      "-com.apple.CoreData.ConcurrencyDebug", "1", "--count", "5", "--store-folder", "/tmp/notes",
      "-com.apple.CoreData.SQLDebug", "0",
    ])
    #expect(given.count == 5)
    #expect(given.storeFolder(for: "some-demo").path == "/tmp/notes")
    #expect(given.concurrencyDebug == 1 && given.sqlDebug == 0)
  }

  @Test(
    "Bad values are refused, saying what is wanted",
    arguments: [
      (["--count", "0"], "--count needs a whole number above zero"),
      (["--count", "many"], "--count needs a whole number above zero"),
      (["--store-folder", ""], "--store-folder needs a path"),
      (["-com.apple.CoreData.SQLDebug", "on"], "-com.apple.CoreData.SQLDebug needs a number"),
      (["-com.apple.CoreData.ConcurrencyDebug"], "Missing value for '-com.apple.CoreData.ConcurrencyDebug <n>'"),
      (["--verbose"], "Unknown option '--verbose'"),
    ])
  func refused(arguments: [String], message: String) {
    let error = #expect(throws: (any Error).self) { try DemoOptions<ImportSize>.parse(arguments) }
    let said = error.map { DemoOptions<ImportSize>.message(for: $0) } ?? ""
    #expect(said.contains(message), "said: \(said)")
  }
}
