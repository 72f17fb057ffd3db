import Foundation

/// What the open looks at before SQLite touches a store's files: that the store and the files SQLite keeps
/// beside it (`-journal`, `-wal`, `-shm`) are regular files, and that a log is not left without its store.
/// SQLite itself would block forever on a named pipe, take a folder for an unfinished transaction, or delete
/// a `-wal` whose store is gone, with the last copy of its saves.
extension NSPersistentStore {
  /// The files SQLite keeps beside a store file, by suffix, and what each one is for.
  private static let sideFiles: [(suffix: String, role: String)] = [
    ("-journal", "the rollback journal SQLite keeps beside a store during a transaction"),
    ("-wal", "the write-ahead log that holds a WAL store's latest saves"),
    ("-shm", "the shared-memory index SQLite keeps beside a WAL store"),
  ]

  /// Refuses a store URL that names something other than a regular file before SQLite opens it: a folder
  /// (SQLite would report a disk I/O error), a FIFO (opening it would block forever), a socket or a device;
  /// and the same for the side files SQLite opens beside it, under the store's path and under the path its
  /// symbolic links lead to (SQLite keeps them beside the file itself).
  static func refuseIfNotARegularFile(_ url: URL) throws {
    let resolved = url.resolvingSymlinksInPath().path
    if let kind = kindIfNotRegular(resolved) {
      guard kind != "a folder" else {
        throw ObjectGraphError(
          .persistentStoreInvalidType,
          "\(url.path) is a folder, not a store file. Point the store URL at a file inside it, e.g. \(url.appendingPathComponent("Model.sqlite").path).",
          url: url)
      }
      throw ObjectGraphError(
        .persistentStoreInvalidType,
        "\(url.path) is \(kind), not a store file; it was not opened. Point the store URL at a regular file, or at a path where none exists yet.",
        url: url)
    }
    for (suffix, role) in sideFiles {
      for path in Set([url.path + suffix, resolved + suffix]) {
        guard let kind = kindIfNotRegular(path) else { continue }
        throw ObjectGraphError(
          .persistentStoreOpen,
          "\(path) is \(kind), where SQLite keeps \(role); the store at \(url.path) was not opened (SQLite would \(kind == "a folder" ? "take it for an unfinished transaction and fail" : "wait on it, or fail")), and nothing was written. Move it away and open the store again.",
          url: url)
      }
    }
  }

  /// What the item at `path` is when it exists and is not a regular file ("a folder", "a named pipe"…).
  private static func kindIfNotRegular(_ path: String) -> String? {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
      let type = attributes[.type] as? FileAttributeType
    else { return nil }
    switch type {
    case .typeRegular: return nil
    case .typeSymbolicLink:
      // A link whose target is missing: SQLite would make the file at the target.
      return "a symbolic link to nothing"
    case .typeDirectory: return "a folder"
    case .typeCharacterSpecial, .typeBlockSpecial: return "a device"
    case .typeSocket: return "a socket"
    default: return "a named pipe (FIFO), not a regular file"
    }
  }

  /// Refuses to make a new store where its saves still lie in a log without their store file: a `-wal` or
  /// `-journal` with something in it and no store beside it (the store moved, restored elsewhere or deleted
  /// while its log stayed), or a `-wal` beside an empty store file (SQLite deletes a `-wal` beside an empty
  /// file). A new store would start over, and SQLite would delete the log: the last copy of those saves.
  /// Looks again for the store after finding a log, so a store another process creates meanwhile is not
  /// taken for a missing one.
  static func refuseOrphanedLog(_ url: URL) throws {
    let storeSize = size(url.path)
    guard storeSize == nil || storeSize == 0 else { return }
    let suffixes = storeSize == nil ? ["-wal", "-journal"] : ["-wal"]
    guard let log = suffixes.map({ url.path + $0 }).first(where: { (size($0) ?? 0) > 0 }) else { return }
    let now = size(url.path)
    guard now == nil || now == 0 else { return }
    let where_ = now == nil ? "no store file beside it" : "an empty store file beside it"
    throw ObjectGraphError(
      .persistentStoreOpen,
      "\(log) holds \(size(log) ?? 0) bytes of a store's saves, with \(where_) (\(url.path)): the store file was moved, restored elsewhere or deleted, and its log stayed. A new store there would start empty and SQLite would delete the log, the last copy of those saves, so nothing was created or opened. Put the store file back beside its log; if those saves are not needed, move \(log) away and open the store again.",
      url: url)
  }

  /// Refuses to create a store (`kind`: "store", "binary store") at `url` when its folder does not exist.
  static func refuseMissingFolder(for url: URL, kind: String = "store") throws {
    let folder = url.deletingLastPathComponent()
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw ObjectGraphError(
        .persistentStoreOpen,
        "Cannot create the \(kind) at \(url.path): the folder \(folder.path) does not exist. Create it first (FileManager.default.createDirectory(at:withIntermediateDirectories:)).",
        url: url)
    }
  }

  /// Removes the store file at `url` and SQLite's side files beside it (`-journal`, `-wal`, `-shm`), ignoring
  /// those that are not there: what a store this process had just begun to make leaves when it fails.
  static func removeFiles(of url: URL) {
    for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
  }

  /// The size of the file at `path` in bytes; nil when there is none.
  static func size(_ path: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
  }
}
