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

/// An app and its extension in two processes (`objectgraph-torture remote-change`): the app hears the other
/// process's saves as remote change notifications, the last one carrying the token of the other's last
/// transaction, and reads exactly those transactions from history, each with the other process's ID.
@Suite("Two processes, one store: remote change notifications and history", .timeLimit(.minutes(2)))
struct RemoteChangeTrialTests {
  @Test("5 saves by the other process, in both journal modes")
  func heardAndRead() throws {
    let run = try ProcessOutput.run(
      try BuildProducts.requireExecutable("objectgraph-torture"), ["remote-change", "--saves", "5", "--journal", "both"])
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    for mode in ["WAL", "DELETE"] {
      #expect(
        run.stdout.contains(
          "\(mode): heard ") && run.stdout.contains("the last token reaching the other process's last transaction: yes"),
        "\(run.stdout)")
    }
    let read = "history after the app's token: 5 transaction(s) by the extension (5 with its process ID), 0 by the app"
    #expect(run.stdout.components(separatedBy: read).count == 3, "\(run.stdout)")
  }
}

/// An old model version writing beside a migration (`objectgraph-torture two-versions`): the old process is
/// refused with 134100 naming the migration, and the store keeps the new model's entity numbers and keys.
@Suite("Two model versions, one store: the old process is refused, the store stays right", .timeLimit(.minutes(2)))
struct TwoVersionsTrialTests {
  @Test("4 trials in both journal modes")
  func oldProcessRefused() throws {
    let run = try ProcessOutput.run(
      try BuildProducts.requireExecutable("objectgraph-torture"), ["two-versions", "--trials", "4", "--seed", "11"])
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    #expect(run.stdout.contains("the old process was told: refused 134100: "), "\(run.stdout)")
    #expect(run.stdout.contains("was migrated to another version of the model"), "\(run.stdout)")
    #expect(run.stdout.contains("4 trials in ") && run.stdout.contains("; 0 failed trials."), "\(run.stdout)")
  }
}

/// Kills during a store's creation (`objectgraph-torture creation`): the engine opens whatever is left.
@Suite("Kills during creation: every store left opens", .timeLimit(.minutes(2)))
struct CreationTrialTests {
  @Test("20 trials in both journal modes")
  func everyStoreOpens() throws {
    let run = try ProcessOutput.run(
      try BuildProducts.requireExecutable("objectgraph-torture"), ["creation", "--trials", "20", "--seed", "3"])
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    #expect(run.stdout.contains("; 0 refused or damaged stores."), "\(run.stdout)")
  }
}
