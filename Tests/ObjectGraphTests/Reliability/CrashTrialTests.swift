import Foundation
import GRDB
import TestSupport
import Testing

/// The crash-trial harness (`objectgraph-torture`) proves nothing if its check passes everything. These
/// tests give its checker stores with a batch lost or written in part, and see it refuse them; then run
/// a few real trials. CI runs more (`.ci/run`), and README.md says how to run the long version.
@Suite("Crash trials: the harness finds a lost or partial batch, and real kills lose nothing", .timeLimit(.minutes(2)), .temporaryFolders)
struct CrashTrialTests {
  /// A store with the batches 1…`batches` saved by the harness's own child, run to its end.
  func savedStore(batches: Int, journal: String = "WAL") throws -> URL {
    let store = try TemporaryFolder().appending("Torture.sqlite")
    let run = try ProcessOutput.run(
      try BuildProducts.requireExecutable("objectgraph-torture"),
      ["child", "--store", store.path, "--journal-mode", journal, "--limit", "\(batches)"])
    #expect(run.status == 0, "the child failed: \(run.stderr)")
    #expect(run.stdout.hasSuffix("saved \(batches)\n"))
    return store
  }

  func verify(_ store: URL, acknowledged: Int) throws -> ProcessOutput {
    try ProcessOutput.run(
      try BuildProducts.requireExecutable("objectgraph-torture"), ["verify", "--store", store.path, "--acknowledged", "\(acknowledged)"])
  }

  @Test("a store holding every acknowledged batch passes, in both journal modes")
  func wholeStorePasses() throws {
    for journal in ["WAL", "DELETE"] {
      let store = try savedStore(batches: 8, journal: journal)
      let run = try verify(store, acknowledged: 8)
      #expect(run.status == 0, "\(journal): \(run.stdout)")
      #expect(run.stdout.contains("last batch in the store: 8"))
      // The batch after the last acknowledged one may have committed before the kill: accepted.
      #expect(try verify(store, acknowledged: 7).status == 0)
    }
  }

  @Test("a batch whose save returned but is not in the store is reported LOST")
  func lostBatch() throws {
    let store = try savedStore(batches: 6)
    let run = try verify(store, acknowledged: 9)
    #expect(run.status != 0)
    #expect(run.stdout.contains("LOST: batches 7…9 were saved but are not in the store"))
  }

  @Test("a batch written in part (one update missing, one note too many, a version off) is reported PARTIAL")
  func partialBatch() throws {
    for damage in [
      "UPDATE ZNOTE SET ZWORDCOUNT = 0 WHERE ZTITLE = '5-3'",  // batch 6's update of 5-3 missing
      "UPDATE ZNOTE SET ZNOTEBOOK = (SELECT Z_PK FROM ZNOTEBOOK WHERE ZNAME = 'batch 4') WHERE ZTITLE = '4-1'",  // not moved
      "UPDATE ZNOTE SET Z_OPT = 1 WHERE ZTITLE = '3-2'",  // a version that does not count its saves
    ] {
      let store = try savedStore(batches: 6)
      try DatabaseQueue(path: store.path).write { db in try db.execute(sql: damage) }
      let run = try verify(store, acknowledged: 6)
      #expect(run.status != 0, "not caught: \(damage)")
      #expect(run.stdout.contains("PARTIAL: expected"), "\(damage): \(run.stdout)")
    }
  }

  @Test("a primary-key counter behind the keys in use is reported")
  func primaryKeyCounter() throws {
    let store = try savedStore(batches: 3)
    try DatabaseQueue(path: store.path).write { db in try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_NAME = 'Note'") }
    let run = try verify(store, acknowledged: 3)
    #expect(run.status != 0)
    #expect(run.stdout.contains("Z_PRIMARYKEY's Z_MAX for Note is 2"))
  }

  @Test("six real trials, a child killed with SIGKILL at random moments: nothing lost, nothing partial")
  func realTrials() throws {
    let run = try ProcessOutput.run(
      try BuildProducts.requireExecutable("objectgraph-torture"), ["crash", "--trials", "6", "--max-batches", "20"])
    #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
    #expect(run.stdout.contains("0 failed trials"))
  }
}
