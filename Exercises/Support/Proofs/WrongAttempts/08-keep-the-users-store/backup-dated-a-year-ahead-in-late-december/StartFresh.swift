// A wrong attempt at exercise 08, kept so that CI proves the checks name the mistake: the name's year is
// written with YYYY, the week-based year, not yyyy, the calendar year. It is right most of the year, but in the
// last days of December (2026-12-28 here) it already gives the next year's number: the backup is dated 2027.
import ExerciseKit
import Foundation
import ObjectGraph

/// Starts over with an empty store at `storeURL`, after the store there could not be added and the user chose
/// to start fresh, without losing the old one: its files are moved aside to a dated name in the same folder.
///
/// For `Notes.sqlite` and a `date` of 2026-11-23 21:45:02 UTC, the store moves to
/// `Notes-moved-aside-2026-11-23-214502.sqlite`, its `-wal` and `-shm` files (when they exist) with it, to
/// `Notes-moved-aside-2026-11-23-214502.sqlite-wal` and `-shm`. When that name is taken, the next free one of
/// `…-214502-2.sqlite`, `…-214502-3.sqlite`, … is used.
///
/// - Parameters:
///   - coordinator: the coordinator whose add failed; the new, empty store is added to it.
///   - storeURL: the store file that could not be added.
///   - date: when the user chose to start fresh (the app passes `Date()`); it names the moved store, in UTC.
/// - Returns: where the old store file is now.
/// - Throws: when `coordinator` has a store at `storeURL` (it is in use: nothing is moved), when a file cannot
///   be moved, or when the new store cannot be added. Nothing is ever deleted.
public func startFresh(with coordinator: NSPersistentStoreCoordinator, at storeURL: URL, date: Date) throws -> URL {
  let fileManager = FileManager.default
  // A store the coordinator has is open and in use: moving its files away under it would split it in two.
  let standardized = storeURL.standardizedFileURL
  guard !coordinator.persistentStores.contains(where: { $0.url?.standardizedFileURL == standardized }) else {
    throw CocoaError(
      .persistentStoreOperation,
      userInfo: [
        NSLocalizedDescriptionKey:
          "The store at \(storeURL.path) is open in this coordinator, so it is not moved aside. Start fresh only after adding it failed.",
        NSURLErrorKey: storeURL,
      ])
  }

  // A dated name next to the store, in UTC, that no earlier backup has taken.
  let formatter = DateFormatter()
  formatter.locale = Locale(identifier: "en_US_POSIX")
  formatter.timeZone = TimeZone(identifier: "UTC")
  formatter.dateFormat = "YYYY-MM-dd-HHmmss"
  let folder = storeURL.deletingLastPathComponent()
  let stem = "\(storeURL.deletingPathExtension().lastPathComponent)-moved-aside-\(formatter.string(from: date))"
  let companions = ["-wal", "-shm"]
  func backup(_ number: Int) -> URL {
    folder.appendingPathComponent(number == 1 ? stem : "\(stem)-\(number)").appendingPathExtension(storeURL.pathExtension)
  }
  var number = 1
  while ([""] + companions).contains(where: { fileManager.fileExists(atPath: backup(number).path + $0) }) {
    number += 1
  }
  let movedTo = backup(number)

  // Move, never delete. The -wal file holds the store's latest changes until SQLite copies them into the
  // store file: a store moved without it has lost them, and a -wal left behind would be read into the new store.
  try fileManager.moveItem(at: storeURL, to: movedTo)
  for suffix in companions where fileManager.fileExists(atPath: storeURL.path + suffix) {
    try fileManager.moveItem(atPath: storeURL.path + suffix, toPath: movedTo.path + suffix)
  }

  // The user's fresh start: a new, empty store where the old one was.
  try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
  return movedTo
}
