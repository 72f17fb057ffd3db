import Foundation
internal import GRDB

extension NSPersistentStore {
  /// The files of a SQLite store: the database and SQLite's side files.
  static func files(of url: URL) -> [URL] {
    ["", "-wal", "-shm", "-journal"].map { URL(fileURLWithPath: url.path + $0) }
  }

  /// Deletes a store's files, after checking that `url` is a store: a file that is not one is refused and
  /// left as it is, unless `force` (``NSPersistentStoreForceDestroyOption``). A missing file is nothing to do.
  /// The hidden folder of values Core Data kept outside the store (``ExternalBinaryRecord``) goes too.
  static func destroyFiles(at url: URL, force: Bool = false) throws {
    guard FileManager.default.fileExists(atPath: url.path) else { return }
    if !force { _ = try readMetadata(url: url) }
    let support = ExternalBinaryRecord.supportFolder(for: url)
    for file in files(of: url) + [support] where FileManager.default.fileExists(atPath: file.path) {
      do {
        try FileManager.default.removeItem(at: file)
      } catch {
        throw ObjectGraphError(
          .persistentStoreOperation,
          "Could not delete \(file.path) while destroying the store at \(url.path): \(error.localizedDescription). Check the folder's permissions.",
          url: url, underlyingError: error)
      }
    }
  }

  /// Copies the store at `source` over the one at `destination` (made when missing), page by page with
  /// SQLite's backup API, so a store in WAL mode is copied whole. Both must be stores (a file that is not
  /// one is refused and left as it is). The external data folder is copied with it (``copyExternalData(from:to:)``).
  static func copyStore(from source: URL, to destination: URL) throws {
    _ = try readMetadata(url: source)
    try refuseForeignLog(url: source)
    if FileManager.default.fileExists(atPath: destination.path) {
      _ = try readMetadata(url: destination)
      try refuseForeignLog(url: destination)
    }
    do {
      let from = try inspector(url: source)
      try backUp(from, toFile: destination)
      try from.close()
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreOperation, "Copying the store at \(source.path) to \(destination.path) failed", error, url: destination)
    }
    try copyExternalData(from: source, to: destination)
  }

  /// Writes what `source` holds to the SQLite file at `destination` (made when missing, replaced when there),
  /// page by page with SQLite's backup API.
  ///
  /// The copy goes through a rollback journal, never the destination's -wal: a process killed before the log
  /// is folded in would leave a -wal holding another store, which the next open refuses as not its own
  /// (refuseForeignLog). The copied header keeps the source's journal mode for the next open.
  static func backUp(_ source: DatabaseQueue, toFile destination: URL) throws {
    var configuration = Configuration()
    configuration.label = "ObjectGraph.copy"
    configuration.busyMode = .timeout(10)
    let file = try DatabaseQueue(path: destination.path, configuration: configuration)
    do {
      try file.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = DELETE") }
      try source.backup(to: file)
    } catch {
      try? file.close()
      throw error
    }
    try file.close()
  }
}
