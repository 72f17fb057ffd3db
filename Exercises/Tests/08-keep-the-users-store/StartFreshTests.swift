// The checks of exercise 08. They run against your code in Exercises/08-keep-the-users-store/Sources, or against
// the reference solution when WORKSHOP_SOLUTIONS=1. Each check runs in a child process, so that code which stops
// the process (fatalError(), try!) fails one check with an explanation instead of ending the whole run.
//
// Every check first makes adding a real store fail, with ObjectGraph's own migration checks, and only then asks
// your startFresh to move it aside. The stores are left as an app leaves them when it is killed (as apps are):
// with a -wal file next to the store that holds its latest changes.
import EngineTestSupport
import Exercise08
import Exercise08Solution
import ExerciseChecks
import Foundation
import NotesModel
import ObjectGraph
import TestSupport
import Testing

/// The function under test: your `startFresh(with:at:date:)`, or the solution's.
enum Subject {
  static let startFresh: @Sendable (NSPersistentStoreCoordinator, URL, Date) throws -> URL = CodeUnderTest.pick(
    starter: Exercise08.startFresh(with:at:date:), solution: Exercise08Solution.startFresh(with:at:date:))
}

/// Said when a check's child process stopped (a crash) instead of finishing.
let stoppedAdvice: Comment = """
  startFresh(with:at:date:) stopped the whole process. A file that cannot be moved is an error for the caller \
  (the app can tell the user, and try again later), not a reason to stop the app: no fatalError(), abort(), \
  try! or force unwrap (!).
  """

@Suite("Exercise 08: keep the user's store", .temporaryFolders)
struct StartFreshTests {
  @Test("After a migration that cannot be inferred: the store moves to its dated name, and a new, empty store takes its place")
  func movesTheStoreAside() async throws { try await runInChildProcess(.movesTheStoreAside) }

  @Test("The store put aside is whole: its companion files went with it, and it opens with every note in it")
  func keepsTheWriteAheadLog() async throws { try await runInChildProcess(.keepsTheWriteAheadLog) }

  @Test("A store from a newer version of the app is moved aside whole, for when the user updates")
  func newerStoreIsKept() async throws { try await runInChildProcess(.newerStoreIsKept) }

  @Test("An earlier backup with the same name is never overwritten: the next free name is used")
  func neverOverwritesABackup() async throws { try await runInChildProcess(.neverOverwritesABackup) }

  @Test("A store the coordinator has open is in use: startFresh throws and moves nothing")
  func refusesAStoreInUse() async throws { try await runInChildProcess(.refusesAStoreInUse) }

  @Test("In the last days of December, the dated name keeps the calendar year")
  func datesLateDecemberInItsOwnYear() async throws { try await runInChildProcess(.datesLateDecemberInItsOwnYear) }
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

// MARK: - Stores that cannot be added

/// 2026-11-23 21:45:02 UTC: when the user chose to start fresh, in every check.
let chosenAt = Date(timeIntervalSince1970: 1_795_470_302)
/// The name the store should move to, for `Notes.sqlite` and ``chosenAt``.
let expectedName = "Notes-moved-aside-2026-11-23-214502.sqlite"

/// 2026-12-28 21:45:02 UTC, a Monday: in the week-based year (`YYYY`) it is already in the first week of 2027.
let chosenLateInDecember = Date(timeIntervalSince1970: 1_798_494_302)
/// The name the store should move to, for `Notes.sqlite` and ``chosenLateInDecember``.
let expectedDecemberName = "Notes-moved-aside-2026-12-28-214502.sqlite"

/// Why `name` is not ``expectedName``, when the name shows it: an hour on a 12-hour clock (`hh`), or the
/// time zone the checks run in (Pacific/Auckland, where it is already 10:45 the next morning) instead of UTC.
/// `nil` when the name shows neither.
func nameDiagnosis(_ name: String) -> String? {
  let twelveHour = "The hour is 09 where it should be 21: the format has a 12-hour clock (hh); write HH (0 to 23)."
  let localTime = """
    The checks run in the time zone Pacific/Auckland, where it is already 2026-11-24 10:45: the date was \
    written in the device's time zone, not in UTC, so the name would change with where the user is.
    """
  switch name {
  case expectedName.replacingOccurrences(of: "-214502", with: "-094502"): return twelveHour
  case expectedName.replacingOccurrences(of: "2026-11-23-214502", with: "2026-11-24-104502"): return localTime
  default: return nil
  }
}

/// The checks that explain a mistake other checks meet too, by the first words of their names.
enum Explained {
  static let datedName = "\"After a migration that cannot be inferred: the store moves to its dated name, and a new, empty store…\""
  static let writeAheadLog = "\"The store put aside is whole…\""
}

/// The files of a store: the store itself and its two SQLite companions.
let companions = ["", "-wal", "-shm"]

/// A folder with a store in it, as an app left it: the store file, and the `-wal` and `-shm` files SQLite keeps
/// next to it while the app runs. (The app was killed before SQLite folded the -wal into the store file: that is
/// how a store sits on disk most of the time.)
struct StoreOnDisk {
  let folder: URL
  let storeURL: URL
  /// The bytes of the store file and its -wal, as the app left them.
  let store: Data
  let wal: Data

  /// Writes `notes` notes with `model` (entity `Note`, attribute `title`) and leaves the files as a killed app does.
  init(model: NSManagedObjectModel, notes: Int) throws {
    let stack = try StoreStack(model: model, fileName: "Running.sqlite")
    let running = stack.storeURL
    let writer = stack.context
    try writer.performAndWait {
      guard let entity = model.entitiesByName["Note"] else {
        throw CocoaError(.coreData, userInfo: [NSLocalizedDescriptionKey: "No Note entity."])
      }
      for index in 0..<notes {
        let note = NSManagedObject(entity: entity, insertInto: writer)
        note.setValue("Note \(index)", forKey: "title")
        if entity.attributesByName["createdAt"] != nil { note.setValue(Date(), forKey: "createdAt") }
      }
      try writer.save()
    }
    // The app's folder gets the files as they are on disk now, while the store is still open.
    folder = try TemporaryFolder().url
    storeURL = folder.appendingPathComponent("Notes.sqlite")
    for suffix in companions where FileManager.default.fileExists(atPath: running.path + suffix) {
      try FileManager.default.copyItem(atPath: running.path + suffix, toPath: storeURL.path + suffix)
    }
    store = try Data(contentsOf: storeURL)
    wal = try Data(contentsOf: URL(fileURLWithPath: storeURL.path + "-wal"))
    withExtendedLifetime(stack) {}
  }

  /// The files in the folder now.
  var files: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
  }

  /// Checks that adding the store with `coordinator` fails with `code`, and that the failure left the store and
  /// its -wal as they were: the situation startFresh is for.
  func expectAddFails(
    _ coordinator: NSPersistentStoreCoordinator, with code: Int,
    options: [AnyHashable: Any] = [
      NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
    ]
  ) throws
    -> Bool
  {
    do {
      try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options)
      Issue.record("The checks expected adding the store to fail (error \(code)) before calling startFresh; it was added.")
      return false
    } catch {
      #expect(
        (error as NSError).code == code, "The checks expected error \(code) when adding the store; got \(error)")
    }
    #expect(
      try Data(contentsOf: storeURL) == store && (try Data(contentsOf: URL(fileURLWithPath: storeURL.path + "-wal"))) == wal,
      "A failed add should leave the store and its -wal as they were (before startFresh is even called).")
    return true
  }
}

/// Calls startFresh, returning where it says the store went, or `nil` (with the reason recorded) when it threw.
/// `explainsTheWAL`: whether this check is the one that explains a -wal left behind (the others point to it).
func startFresh(
  _ coordinator: NSPersistentStoreCoordinator, _ storeURL: URL, date: Date = chosenAt, situation: String,
  explainsTheWAL: Bool = false, explaining explain: (NSError) -> String? = { _ in nil }
) throws -> URL? {
  do {
    return try Subject.startFresh(coordinator, storeURL, date)
  } catch {
    try rethrowIfNotDone(error)
    // The engine refuses a new store where the old one's -wal still lies, holding its saves: the move left it.
    if case let refused = error as NSError, refused.localizedDescription.contains("\(storeURL.path)-wal"),
      refused.localizedDescription.contains("no store file beside it")
    {
      Issue.record(
        Comment(
          rawValue: explainsTheWAL
            ? """
            The store's -wal file should have moved with it, unchanged; it is not there: startFresh moved the store \
            file, but not its -wal, so adding the new store was refused: that -wal still holds the old store's \
            saves, and a new store beside it would have thrown them away. Move the -wal file with the store, to \
            the new name plus "-wal", and the same for the -shm, when they exist.
            """
            : """
            startFresh threw: adding the new store was refused, because the old store's -wal was left behind \
            (the check \(Explained.writeAheadLog) says more).
            """))
      return nil
    }
    Issue.record(
      """
      startFresh threw, but \(situation): the store can be moved aside and a new one added in its place. It threw: \
      \(sentence(error))\(explain(error as NSError).map { " \($0)" } ?? "")
      """)
    return nil
  }
}

/// The titles of the notes in the store at `url`, opened with `model`; or why it cannot be opened.
func titles(at url: URL, model: NSManagedObjectModel) -> Result<[String], any Error> {
  Result {
    let stack = try StoreStack(model: model, at: url, options: nil)
    defer { try? stack.close() }
    return try stack.stored("Note") { $0.value(forKey: "title") as? String }.compactMap { $0 }.sorted()
  }
}

/// Checks that `coordinator` now has one store, at `storeURL`, new and empty, and that a note saves into it.
/// `explains`: whether this check is the one that explains a missing store (the others point to it).
func expectFreshStore(_ coordinator: NSPersistentStoreCoordinator, at storeURL: URL, explains: Bool = false) throws {
  let stores = coordinator.persistentStores
  guard stores.count == 1, let store = stores.first else {
    Issue.record(
      Comment(
        rawValue: explains || stores.count != 0
          ? """
          After startFresh the coordinator should have one store, the new one at \(storeURL.path), so the app can \
          go on at once; it has \(stores.count). The user chose to start fresh: without a store, their first new \
          note cannot be saved.
          """
          : "After startFresh the coordinator has no store here either (the check \(Explained.datedName) says more)."))
    return
  }
  #expect(
    store.url?.standardizedFileURL.path == storeURL.standardizedFileURL.path,
    "The new store should be where the old one was, \(storeURL.path), so the next launch finds it; it is at \(store.url?.path ?? "no URL")."
  )
  let context = TutorialStack.context(.privateQueue, on: coordinator)
  let count = try context.performAndWait {
    let found = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note"))
    if let entity = coordinator.managedObjectModel.entitiesByName["Note"] {
      let note = NSManagedObject(entity: entity, insertInto: context)
      note.setValue("First note of the fresh start", forKey: "title")
      if entity.attributesByName["createdAt"] != nil { note.setValue(Date(), forKey: "createdAt") }
      try context.save()
    }
    return found
  }
  #expect(count == 0, "The new store should start empty; it holds \(count) notes.")
}

// MARK: - The checks

/// The checks; each runs in a child process.
enum ChildCheck: String, Codable, Sendable, ChildProcessCheck {
  case movesTheStoreAside, keepsTheWriteAheadLog, newerStoreIsKept, neverOverwritesABackup, refusesAStoreInUse
  case datesLateDecemberInItsOwnYear

  func run() throws {
    switch self {
    case .movesTheStoreAside: try Self.checkMovesTheStoreAside()
    case .keepsTheWriteAheadLog: try Self.checkKeepsTheWriteAheadLog()
    case .newerStoreIsKept: try Self.checkNewerStoreIsKept()
    case .neverOverwritesABackup: try Self.checkNeverOverwritesABackup()
    case .refusesAStoreInUse: try Self.checkRefusesAStoreInUse()
    case .datesLateDecemberInItsOwnYear: try Self.checkDatesLateDecemberInItsOwnYear()
    }
  }

  private static func checkDatesLateDecemberInItsOwnYear() throws {
    let folder = try TemporaryFolder()
    let storeURL = folder.appending("Notes.sqlite")
    // Not a store at all (134000); the user chooses to start fresh on 2026-12-28, at 21:45:02 UTC.
    try Data("Shopping list\n- milk\n- eggs\n".utf8).write(to: storeURL)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try TutorialStack.model())
    #expect(throws: NSError.self) { try coordinator.addPersistentStore(type: .sqlite, at: storeURL) }

    guard
      let movedTo = try startFresh(
        coordinator, storeURL, date: chosenLateInDecember, situation: "the file is not a store (134000)")
    else { return }
    let name = movedTo.lastPathComponent
    let weekBasedYear = expectedDecemberName.replacingOccurrences(of: "-2026-12-28-", with: "-2027-12-28-")
    let why =
      name == weekBasedYear
      ? """
      The year is 2027 where it should be 2026: the format has YYYY, the week-based year, which counts 28 December \
      2026 in the first week of 2027. Write yyyy, the calendar year.
      """
      : "The dated name itself is wrong: the check \(Explained.datedName) says how."
    #expect(
      name == expectedDecemberName,
      """
      Started fresh on 2026-12-28 at 21:45:02 UTC, the store should move to \(expectedDecemberName); startFresh \
      returned \(name). \(why)
      """)
  }

  /// Version 1 wrote the store; version 2 changed `priority` from text to a number, which cannot be inferred.
  private static func failedTypeChange() throws -> (disk: StoreOnDisk, coordinator: NSPersistentStoreCoordinator)? {
    let version1 = Inbox.model(priority: .string)
    let disk = try StoreOnDisk(model: version1, notes: 5)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Inbox.model(priority: .integer16))
    guard
      try disk.expectAddFails(
        coordinator, with: NSMigrationMissingMappingModelError,
        options: [
          NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
          ObjectGraphMigrationSourceModelsOption: [version1],
        ])
    else { return nil }
    return (disk, coordinator)
  }

  private static func checkMovesTheStoreAside() throws {
    // The name is in UTC whatever the device's time zone: here, one where it is already the next day.
    NSTimeZone.default = TimeZone(identifier: "Pacific/Auckland") ?? TimeZone.current
    guard let failed = try failedTypeChange() else { return }
    let (disk, coordinator) = failed

    guard let movedTo = try startFresh(coordinator, disk.storeURL, situation: "adding the store failed (134140)") else { return }
    #expect(
      movedTo.lastPathComponent == expectedName,
      """
      The store should move to \(expectedName): the store's name, "-moved-aside-", the date and time in UTC \
      (yyyy-MM-dd-HHmmss), and its extension. startFresh returned \(movedTo.lastPathComponent).\
      \(nameDiagnosis(movedTo.lastPathComponent).map { " \($0)" } ?? "")
      """)
    #expect(
      movedTo.deletingLastPathComponent().standardizedFileURL.path == disk.folder.standardizedFileURL.path,
      "The moved store should stay in the store's folder, \(disk.folder.path); it went to \(movedTo.path).")
    let moved = FileManager.default.contents(atPath: movedTo.path)
    #expect(
      moved == disk.store,
      """
      The file at \(movedTo.path) should be the old store, byte for byte: move it (FileManager.moveItem), do not \
      rewrite it. It is \(moved == nil ? "not there" : "different"). The folder holds: \(disk.files.joined(separator: ", ")).
      """)
    try expectFreshStore(coordinator, at: disk.storeURL, explains: true)
  }

  private static func checkKeepsTheWriteAheadLog() throws {
    guard let failed = try failedTypeChange() else { return }
    let (disk, coordinator) = failed
    guard
      let movedTo = try startFresh(coordinator, disk.storeURL, situation: "adding the store failed (134140)", explainsTheWAL: true)
    else { return }

    let movedWAL = FileManager.default.contents(atPath: movedTo.path + "-wal")
    #expect(
      movedWAL == disk.wal,
      """
      The store's -wal file should have moved with it, to \(movedTo.lastPathComponent)-wal, unchanged; it is \
      \(movedWAL == nil ? "not there: startFresh moved the store file, but not its -wal" : "different"). Move the \
      -wal file with the store, to the new name plus "-wal", and the same for the -shm, when they exist. The \
      folder holds: \(disk.files.joined(separator: ", ")).
      """)
    #expect(
      FileManager.default.fileExists(atPath: movedTo.path + "-shm"),
      "The store's -shm file should have moved with it too, to \(movedTo.lastPathComponent)-shm. The folder holds: \(disk.files.joined(separator: ", "))."
    )

    let why = """
      A SQLite store in WAL mode (Core Data's default, and ObjectGraph's) writes its latest changes to the -wal \
      file next to it, and folds them into the store file only now and then. Here the -wal holds every note: the \
      store file without it has the tables but not one note. Move the -wal and -shm files with the store (to the \
      same name plus "-wal" and "-shm"), or the backup is not a backup.
      """
    switch titles(at: movedTo, model: Inbox.model(priority: .string)) {
    case .success(let titles):
      #expect(
        titles == (0..<5).map { "Note \($0)" },
        "The moved store, opened with the version that wrote it, should hold the 5 notes; it holds \(titles). \(why)")
    case .failure(let error):
      Issue.record("The moved store cannot be opened, even with the model version that wrote it: \(error)\n\(why)")
    }
  }

  private static func checkNewerStoreIsKept() throws {
    // Version 2 of the app wrote this store; the user went back to version 1 (a restored phone, a second device).
    // Version 1 finds version 2's model in the store's own copy of it, but cannot turn its numbers back into text.
    let disk = try StoreOnDisk(model: Inbox.model(priority: .integer16), notes: 3)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: Inbox.model(priority: .string))
    guard try disk.expectAddFails(coordinator, with: NSMigrationMissingMappingModelError) else { return }

    guard
      let movedTo = try startFresh(
        coordinator, disk.storeURL, situation: "adding the store failed (134140: a newer app made it, and this one cannot migrate it back)")
    else { return }
    switch titles(at: movedTo, model: Inbox.model(priority: .integer16)) {
    case .success(let titles):
      #expect(titles.count == 3, "The moved store, opened by version 2 of the app, should hold its 3 notes; it holds \(titles).")
    case .failure(let error):
      Issue.record(
        """
        Once the user updates the app, the moved store should open again, with every note, so support (or the app) \
        can bring the notes back. It cannot: \(sentence(error)) Move the store with its -wal and -shm files, unchanged.
        """)
    }
    try expectFreshStore(coordinator, at: disk.storeURL)
  }

  private static func checkNeverOverwritesABackup() throws {
    let folder = try TemporaryFolder()
    let storeURL = folder.appending("Notes.sqlite")
    // Not a store at all (134000), and an earlier backup made in the same second already has the name.
    let notAStore = Data("Shopping list\n- milk\n- eggs\n".utf8)
    try notAStore.write(to: storeURL)
    let earlier = folder.appending(expectedName)
    let earlierBytes = Data("An earlier backup, made in the same second.\n".utf8)
    try earlierBytes.write(to: earlier)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try TutorialStack.model())
    #expect(throws: NSError.self) { try coordinator.addPersistentStore(type: .sqlite, at: storeURL) }

    guard
      let movedTo = try startFresh(
        coordinator, storeURL, situation: "the file is not a store (134000), and an earlier backup exists",
        explaining: { error in
          error.code == CocoaError.fileWriteFileExists.rawValue || error.localizedDescription.contains("already exists")
            ? """
            The move was refused because a file already has that name (an earlier backup), and moveItem never \
            overwrites one: look for the next free name first, …-214502-2.sqlite, …-214502-3.sqlite, and so on.
            """ : nil
        })
    else { return }
    let earlierNow = FileManager.default.contents(atPath: earlier.path)
    // Told apart by what has the earlier backup's name now: the store that could not be opened (removed to make
    // room, or overwritten), nothing, or something else.
    let whatHappened =
      earlierNow == notAStore
      ? """
      It was replaced by the store startFresh moved: the earlier backup was removed (or overwritten) to make room \
      for the move. When moveItem refuses ("A file with the same name already exists"), do not clear the way: look \
      for the next free name instead (…-214502-2.sqlite, …-214502-3.sqlite, and so on).
      """
      : "It was \(earlierNow == nil ? "removed" : "changed")."
    #expect(
      earlierNow == earlierBytes,
      """
      The earlier backup \(earlier.lastPathComponent) must be left as it was: it may be the only copy of older \
      notes. \(whatHappened)
      """)
    #expect(
      earlierNow == notAStore || movedTo.lastPathComponent == "Notes-moved-aside-2026-11-23-214502-2.sqlite",
      """
      With \(expectedName) taken, the store should move to Notes-moved-aside-2026-11-23-214502-2.sqlite; startFresh \
      returned \(movedTo.lastPathComponent).\(movedTo.lastPathComponent.hasPrefix("Notes-moved-aside-2026-11-23-214502") ? "" : " The dated name itself is wrong: the check \(Explained.datedName) says how.")
      """)
    #expect(
      FileManager.default.contents(atPath: movedTo.path) == notAStore,
      "The file that could not be opened should be at \(movedTo.path), unchanged: the app cannot read it, but the user may.")
    try expectFreshStore(coordinator, at: storeURL)
  }

  private static func checkRefusesAStoreInUse() throws {
    let disk = try StoreOnDisk(model: try TutorialStack.model(), notes: 2)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try TutorialStack.model())
    try coordinator.addPersistentStore(type: .sqlite, at: disk.storeURL)
    let before = disk.files

    let error = try errorThrown(by: { _ = try Subject.startFresh(coordinator, disk.storeURL, chosenAt) })
    #expect(
      error != nil,
      """
      startFresh returned normally, but the coordinator had the store open: it was added fine, and is in use. \
      Moving an open store's files from under it splits it (its connection keeps writing to the moved file) and \
      throws the user's notes away for nothing. Check coordinator.persistentStores first; if one is at storeURL, \
      throw, and move nothing.
      """)
    #expect(
      disk.files == before,
      """
      startFresh should move nothing when the store is in use; the folder held \(before.joined(separator: ", ")) \
      and holds \(disk.files.joined(separator: ", ")). Before touching a file, look in coordinator.persistentStores \
      for a store at storeURL, and if there is one, throw.
      """)
    #expect(coordinator.persistentStores.count == 1, "The coordinator should still have its one store.")
    #expect(
      (try? TutorialStack.notesInStore(coordinator)) == 2, "The open store should still hold its 2 notes, untouched.")
  }
}
