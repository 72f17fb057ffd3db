// Exercise 08: keep the user's store.
// The task is in Exercises/08-keep-the-users-store/README.md; hints in HINTS.md next to it.
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
  // Replace this line with your code.
  throw ExerciseNotDone("08-keep-the-users-store")
}
