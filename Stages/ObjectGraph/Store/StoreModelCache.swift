import Foundation
internal import GRDB

/// The copy of its model that a store file keeps in the one row of its `Z_MODELCACHE` table. The engine
/// keeps the model's Xcode `contents` XML there (written by `XcodeModelWriter`); Core Data keeps its
/// compiled model, a `.mom` archive compressed with raw DEFLATE (read with ``Inflater`` and the compiled
/// model reader).
///
/// It is the last place a migration looks for the model that made a store (after the models passed in
/// the options and the versions of the app's `.xcdatamodeld`), so that a store is never stranded because
/// the app stopped shipping an old model version, as Core Data uses its cache. The engine's copy is written
/// when the store is created, when it is migrated, and when it is opened read-write by a model whose copy
/// differs (a store made before the cache existed gets one then); Core Data's is only ever replaced by a
/// migration.
enum StoreModelCache {
  /// The model's contents as the cache keeps them.
  static func contents(of model: NSManagedObjectModel) -> Data { XcodeModelWriter.contents(of: model) }

  /// The statements that make the cache hold `contents`, inside the caller's transaction.
  static let replaceStatements = [
    "CREATE TABLE IF NOT EXISTS Z_MODELCACHE (Z_CONTENT BLOB)", "DELETE FROM Z_MODELCACHE",
    "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)",
  ]

  /// Makes the cache of the store open in `db` hold `contents`, inside the caller's transaction.
  static func replace(with contents: Data, in db: Database) throws {
    for statement in replaceStatements {
      try db.execute(sql: statement, arguments: statement.contains("?") ? [contents] : [])
    }
  }

  /// What the cache of the store open in `db` holds, or `nil` when the store has no cache.
  static func stored(in db: Database) throws -> Data? {
    guard try db.tableExists("Z_MODELCACHE") else { return nil }
    // Read as an SQLite value, so that a hand-edited row (a number where the blob should be) is no cache,
    // never a trap.
    let value = try DatabaseValue.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1")
    return value.flatMap { Data.fromDatabaseValue($0) }
  }

  /// Whether cache contents are the engine's own (Xcode model XML), not Core Data's compiled model (a
  /// compressed archive the engine leaves as it is).
  static func isEngineContents(_ data: Data) -> Bool {
    let start = data.prefix(64).drop(while: {
      $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF
    })
    return start.starts(with: Data("<?xml".utf8)) || start.starts(with: Data("<model".utf8))
  }

  /// Brings the cache of a store opened read-write up to `model`, writing only when it differs. A cache the
  /// engine did not write (Core Data's compiled model, which Core Data uses to migrate the store later) is
  /// kept byte for byte.
  static func update(in db: Database, to model: NSManagedObjectModel, metadata: [String: any Sendable], url: URL?) throws {
    // A store Core Data made (no engine format key) keeps its cache, or its lack of one: Core Data expects
    // its own compressed archive there.
    guard metadata[ObjectGraphStoreFormatVersionKey] != nil else { return }
    let contents = contents(of: model)
    do {
      let current = try stored(in: db)
      if let current, !isEngineContents(current) { return }
      guard current != contents else { return }
      try replace(with: contents, in: db)
    } catch let error as DatabaseError {
      throw ObjectGraphError.database(
        .persistentStoreOpen, "Keeping the model in the store at \(url.storePath) failed", error,
        advice: "The store was left as it was; check that the file is writable.", url: url)
    }
  }

  /// Reads the model kept in the store file at `url`, without changing the file: the engine's copy or Core
  /// Data's compiled one. `nil` when the store keeps none or its copy cannot be read (the search for a source
  /// model then reports it as absent, and the store is left as it was); ``load(url:)`` says why.
  static func read(url: URL) -> NSManagedObjectModel? {
    try? load(url: url)
  }

  /// Reads the model kept in the store file at `url`, without changing the file; `nil` when the store keeps
  /// none.
  /// - Throws: `modelInvalid` naming the store and what is wrong with its copy (Core Data's compressed
  ///   model that does not inflate, or does not read as a compiled model); the errors of opening the file.
  static func load(url: URL) throws -> NSManagedObjectModel? {
    guard let data = try NSPersistentStore.inspect(url: url, { try stored(in: $0) }) else { return nil }
    return try model(from: data, url: url)
  }

  /// The model that cache contents hold: the engine's Xcode XML, or Core Data's compressed compiled model.
  static func model(from data: Data, url: URL) throws -> NSManagedObjectModel {
    if isEngineContents(data) {
      return try NSManagedObjectModel.fromXcodeContents(data, origin: "the model kept in the store at \(url.path)")
    }
    let origin = "The model Core Data kept in the store at \(url.path) (table Z_MODELCACHE)"
    let archive: Data
    do {
      archive = try Inflater.inflate(data)
    } catch let malformed as Inflater.Malformed {
      throw ObjectGraphError(
        .modelInvalid,
        "\(origin) is not readable compressed data (raw DEFLATE): \(malformed.reason). The store itself was not "
          + "read or changed; open it with the model version that made it, or pass that model in "
          + "the store option ObjectGraphMigrationSourceModelsOption.",
        url: url)
    }
    do {
      return try NSManagedObjectModel.fromCompiledArchive(archive, origin: origin)
    } catch let error as ObjectGraphError {
      throw ObjectGraphError(
        ObjectGraphError.Code(rawValue: error.code),
        "\(error.message) The store itself was not read or changed; open it with the model version that made it, or "
          + "pass that model in the store option ObjectGraphMigrationSourceModelsOption.",
        url: url)
    }
  }
}
