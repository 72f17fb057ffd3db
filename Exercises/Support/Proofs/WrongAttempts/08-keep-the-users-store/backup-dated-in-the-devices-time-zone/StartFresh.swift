// A wrong attempt at exercise 08, kept so that CI proves the checks name the mistake: everything is moved, but
// the DateFormatter has no time zone, so the name carries the date and time of the device's own time zone,
// not UTC.
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
  if coordinator.persistentStores.contains(where: { $0.url?.standardizedFileURL == storeURL.standardizedFileURL }) {
    throw CocoaError(
      .persistentStoreOperation,
      userInfo: [NSLocalizedDescriptionKey: "The store at \(storeURL.path) is open; it is not moved aside.", NSURLErrorKey: storeURL])
  }
  let formatter = DateFormatter()
  formatter.locale = Locale(identifier: "en_US_POSIX")
  formatter.dateFormat = "yyyy-MM-dd-HHmmss"
  let name = "\(storeURL.deletingPathExtension().lastPathComponent)-moved-aside-\(formatter.string(from: date))"
  let folder = storeURL.deletingLastPathComponent()
  var movedTo = folder.appendingPathComponent(name).appendingPathExtension(storeURL.pathExtension)
  var number = 2
  while ["", "-wal", "-shm"].contains(where: { fileManager.fileExists(atPath: movedTo.path + $0) }) {
    movedTo = folder.appendingPathComponent("\(name)-\(number)").appendingPathExtension(storeURL.pathExtension)
    number += 1
  }
  try fileManager.moveItem(at: storeURL, to: movedTo)
  for suffix in ["-wal", "-shm"] where fileManager.fileExists(atPath: storeURL.path + suffix) {
    try fileManager.moveItem(atPath: storeURL.path + suffix, toPath: movedTo.path + suffix)
  }
  try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
  return movedTo
}
