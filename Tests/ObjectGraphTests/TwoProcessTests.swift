import Foundation
import TestSupport
import Testing

/// Two processes saving to one store at once (`objectgraph-torture two-processes`): every stale write is
/// refused with 133020 and retried, so no update is lost; SQLite's write lock is waited for, never
/// escaping as SQLITE_BUSY; each process reads the other's saves after a refetch.
@Suite("Two processes, one store: no lost update, no SQLITE_BUSY", .timeLimit(.minutes(2)))
struct TwoProcessTests {
  @Test("100 increments each, in both journal modes", arguments: ["wal", "delete"])
  func noLostUpdate(journal: String) throws {
    let run = try ProcessOutput.run(
      try BuildProducts.requireExecutable("objectgraph-torture"), ["two-processes", "--increments", "100", "--journal", journal])
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    #expect(run.stdout.contains("the counter reads 200 (expected 200); 0 lost updates"), "\(run.stdout)")
    #expect(run.stdout.contains("read 200 in a refetch at the end: yes"), "\(run.stdout)")
    #expect(!run.stdout.contains("SQLITE_BUSY") && !run.stderr.contains("SQLITE_BUSY"))
  }
}
