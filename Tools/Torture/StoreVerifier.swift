import Foundation
import GRDB
import NotesModel
import ObjectGraph

/// Checks a store that a killed child left behind, against what the child said it had saved.
///
/// - Every batch whose save returned (the child printed "saved k") is there, whole.
/// - No batch is there in part: the store equals the state after some batch L, with L the last
///   acknowledged batch or the one after it (its save may have committed just before the kill).
/// - The store opens through ObjectGraph first, as the app's next launch opens it (before any other
///   connection could roll back a leftover journal or fold a `-wal` for it), and passes `PRAGMA integrity_check`.
/// - `Z_PRIMARYKEY`'s counters are past every `Z_PK` in use, and every row's `Z_OPT` is the number of
///   saves that wrote it.
struct StoreVerifier {
  let storeURL: URL
  /// The last batch the child said was saved (0 for none).
  let acknowledged: Int
  /// The journal mode the child used.
  let journalMode: String

  struct Outcome {
    /// The last batch in the store (0 when it holds none, or there is no store).
    var lastBatch = 0
    var problems: [String] = []
  }

  func verify() -> Outcome {
    var outcome = Outcome()
    guard FileManager.default.fileExists(atPath: storeURL.path) else {
      if acknowledged > 0 { outcome.problems.append("the store file is gone, yet \(acknowledged) batches were saved") }
      return outcome
    }
    // The key counters as the kill left them, read without changing the file (a read-only connection cannot
    // roll a journal back or fold a -wal): the engine repairs a counter behind its rows when it opens a store,
    // which would hide a save that left one behind.
    checkCountersAsLeft(into: &outcome)
    // The app's next launch: the engine opens the file first, whatever the kill left beside it (a hot
    // journal, a -wal, a store whose creation never committed).
    let opened: NSManagedObjectContext
    do {
      opened = try TutorialStore.context(store: storeURL, journalMode: journalMode)
    } catch {
      outcome.problems.append("REFUSED: ObjectGraph cannot open the store the kill left (as the app's next launch would): \(error)")
      return outcome
    }
    do {
      var configuration = Configuration()
      configuration.readonly = false  // WAL recovery may need to write the -shm file
      let database = try DatabaseQueue(path: storeURL.path, configuration: configuration)
      defer { try? database.close() }
      try database.read { db in try checkRaw(db, into: &outcome) }
    } catch {
      outcome.problems.append("the store cannot be read with SQLite: \(error)")
      return outcome
    }
    checkThroughObjectGraph(opened, into: &outcome)
    return outcome
  }

  private func checkRaw(_ db: Database, into outcome: inout Outcome) throws {
    let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
    if integrity != ["ok"] { outcome.problems.append("integrity_check: \(integrity.joined(separator: "; "))") }
    guard try db.tableExists("ZNOTE"), try db.tableExists("ZNOTEBOOK") else {
      // Killed while the store was being made: acceptable only when nothing was acknowledged.
      if acknowledged > 0 { outcome.problems.append("the store has no ZNOTE or ZNOTEBOOK table after \(acknowledged) saves") }
      return
    }
    let notebooks = try String.fetchAll(db, sql: "SELECT ZNAME FROM ZNOTEBOOK")
    let numbers = notebooks.compactMap { Int($0.dropFirst("batch ".count)) }.sorted()
    let last = numbers.last ?? 0
    outcome.lastBatch = last
    if numbers != Array(1..<(last + 1)) || numbers.count != notebooks.count {
      outcome.problems.append("the notebooks are not batch 1…\(last): \(notebooks.sorted())")
    }
    if last < acknowledged { outcome.problems.append("LOST: batches \(last + 1)…\(acknowledged) were saved but are not in the store") }
    if last > acknowledged + 1 { outcome.problems.append("batch \(last) is in the store, but only \(acknowledged) saves had returned") }

    let rows = try Row.fetchAll(
      db,
      sql: """
        SELECT n.ZTITLE AS title, b.ZNAME AS notebook, n.ZWORDCOUNT AS wordCount, n.Z_OPT AS version
        FROM ZNOTE n LEFT JOIN ZNOTEBOOK b ON b.Z_PK = n.ZNOTEBOOK
        """)
    var found: [String: Workload.ExpectedNote] = [:]
    for row in rows {
      let title: String = row["title"] ?? "(no title)"
      found[title] = Workload.ExpectedNote(
        title: title, notebook: row["notebook"] ?? "(none)", wordCount: row["wordCount"] ?? -1, version: row["version"] ?? -1)
    }
    if rows.count != found.count { outcome.problems.append("two notes share a title: \(rows.count) rows, \(found.count) titles") }
    let expected = Workload.expectedNotes(afterBatch: last)
    for (title, note) in expected.sorted(by: { $0.key < $1.key }) where found[title] != note {
      outcome.problems.append("PARTIAL: expected \(note), found \(found[title].map(\.description) ?? "nothing")")
    }
    for title in found.keys.sorted() where expected[title] == nil {
      outcome.problems.append("PARTIAL: note \(title) should not be there after batch \(last)")
    }
    let notebookVersions = try Int64.fetchAll(db, sql: "SELECT Z_OPT FROM ZNOTEBOOK")
    if notebookVersions.contains(where: { $0 < 1 }) { outcome.problems.append("a notebook's Z_OPT is below 1") }

  }

  /// Z_PRIMARYKEY, as the kill left it: the next key handed out must be past every key in use. Skipped when
  /// a read-only connection cannot read the file (a hot journal: the engine rolls it back on open, and the
  /// counters that count are then the last committed ones, which `checkRaw` sees).
  private func checkCountersAsLeft(into outcome: inout Outcome) {
    var configuration = Configuration()
    configuration.readonly = true
    guard let database = try? DatabaseQueue(path: storeURL.path, configuration: configuration) else { return }
    defer { try? database.close() }
    let problems = try? database.read { db -> [String] in
      var problems: [String] = []
      for (entity, table) in [("Note", "ZNOTE"), ("Notebook", "ZNOTEBOOK"), ("Tag", "ZTAG"), ("Attachment", "ZATTACHMENT")] {
        guard try db.tableExists(table) else { continue }
        let highest = try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM \(table)") ?? 0
        let counter = try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = ?", arguments: [entity]) ?? -1
        if counter < highest { problems.append("Z_PRIMARYKEY's Z_MAX for \(entity) is \(counter), but Z_PK \(highest) is in use") }
      }
      return problems
    }
    outcome.problems += problems ?? []
  }

  private func checkThroughObjectGraph(_ context: NSManagedObjectContext, into outcome: inout Outcome) {
    do {
      let count = try context.performAndWait { try context.count(for: NSFetchRequest<Note>(entityName: "Note")) }
      let expected = Workload.expectedNotes(afterBatch: outcome.lastBatch).count
      if count != expected { outcome.problems.append("ObjectGraph counts \(count) notes, the rows say \(expected)") }
    } catch {
      outcome.problems.append("ObjectGraph cannot open the store: \(error)")
    }
  }
}
