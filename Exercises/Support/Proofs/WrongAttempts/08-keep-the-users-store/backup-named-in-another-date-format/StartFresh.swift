// A wrong attempt at exercise 08, kept so that CI proves the checks name the mistake: everything is moved, and
// nothing is overwritten, but the date in the name is written by an ISO8601DateFormatter
// ("2026-11-23T21:45:02Z"), not in the format the task gives: backups named two ways, one of them with colons,
// which some file systems and tools refuse.
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

  // A dated name next to the store, that no earlier backup has taken.
  // ISO 8601: in UTC, and the format everyone reads.
  let formatter = ISO8601DateFormatter()
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

  try fileManager.moveItem(at: storeURL, to: movedTo)
  for suffix in companions where fileManager.fileExists(atPath: storeURL.path + suffix) {
    try fileManager.moveItem(atPath: storeURL.path + suffix, toPath: movedTo.path + suffix)
  }

  try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
  return movedTo
}
