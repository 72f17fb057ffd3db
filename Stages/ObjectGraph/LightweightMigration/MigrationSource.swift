import Foundation

/// Finding the model a store was made with, as Core Data does before a lightweight migration: the model
/// whose entity version hashes equal the ones in the store's metadata.
///
/// Three places are searched, in order:
/// 1. the models the caller passes (``ObjectGraphMigrationSourceModelsOption``);
/// 2. the other versions of the `.xcdatamodeld` or `.momd` the app's model was read from (Core Data searches
///    the app's bundle for model versions the same way);
/// 3. the copy of its model that the engine keeps inside every store file it writes (Core Data's
///    `Z_MODELCACHE`), so that a store is never stranded when the app no longer ships the old version.
///
/// Versions have no order, as in Core Data: any version whose hashes match the store is the source, and
/// the app's current version is the destination, whichever of the two the names would sort first (a
/// store made with `ArtsyPartner 5` migrates to the current `ArtsyFolio v2.4`, and a store written by a
/// later release migrates back to the version an older release has, when the change can be inferred).
/// When several versions of the `.xcdatamodeld` match (their hashes are equal: they differ only in what
/// the hashes leave out, such as renaming identifiers), the one the store's metadata names
/// (``ObjectGraphModelVersionNameKey``) is taken, else the first in the bundle's order.
enum MigrationSource {
  /// A model that matches the store, and where it was found (for messages).
  struct Found {
    let model: NSManagedObjectModel
    let origin: String
  }

  /// Searches the three places for the model that made a store.
  /// - Parameters:
  ///   - metadata: the store's metadata.
  ///   - configuration: the configuration the store holds.
  ///   - destination: the app's model.
  ///   - given: models the caller passed.
  ///   - storedModel: reads the model kept in the store (`nil` when it has none); called only when needed.
  ///   - url: the store file, for messages.
  /// - Throws: 134130 when no model matches; the errors of loading the `.xcdatamodeld`'s versions.
  static func find(
    metadata: [String: any Sendable], configuration: String?, destination: NSManagedObjectModel,
    given: [NSManagedObjectModel], storedModel: () throws -> NSManagedObjectModel?, url: URL
  ) throws -> Found {
    for (index, model) in given.enumerated()
    where model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) {
      return Found(model: model, origin: "source model \(index + 1) passed in the store options")
    }
    let versions = try siblingVersions(of: destination)
    let matching = versions.filter { $0.model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) }
    let storeVersionName = metadata[ObjectGraphModelVersionNameKey] as? String
    if let version = matching.first(where: { $0.name == storeVersionName }) ?? matching.first {
      return Found(model: version.model, origin: "model version '\(version.name)'")
    }
    if let stored = try storedModel(), stored.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) {
      return Found(model: stored, origin: "the model kept in the store")
    }
    throw missing(url: url, metadata: metadata, versions: versions.map(\.name), given: given.count)
  }

  /// The versions of the `.xcdatamodeld` a model was read from, or none for a model made in code or read
  /// from a lone `.xcdatamodel`.
  static func siblingVersions(of model: NSManagedObjectModel) throws -> [(name: String, model: NSManagedObjectModel)] {
    guard let url = model.sourceURL else { return [] }
    // A `.xcdatamodeld` (the sources) or a `.momd` (the compiled model an app bundle ships).
    let bundles = [XcodeModelLoader.bundleExtension, CompiledModelLoader.bundleExtension]
    let bundle: URL
    if bundles.contains(url.pathExtension.lowercased()) {
      bundle = url
    } else if bundles.contains(url.deletingLastPathComponent().pathExtension.lowercased()) {
      bundle = url.deletingLastPathComponent()
    } else {
      return []
    }
    return try NSManagedObjectModel.versions(in: bundle)
  }

  private static func missing(url: URL, metadata: [String: any Sendable], versions: [String], given: Int) -> ObjectGraphError {
    let hashes = (metadata[NSStoreModelVersionHashesKey] as? [String: Data] ?? [:]).sorted { $0.key < $1.key }
      .map { "\($0.key) \($0.value.prefix(6).map { String(format: "%02x", $0) }.joined())…" }
    var searched = ["\(given) source model(s) passed in the store options"]
    searched.append(
      versions.isEmpty
        ? "no other versions (the app's model was not read from a .xcdatamodeld)"
        : "model versions \(versions.map { "'\($0)'" }.joined(separator: ", "))")
    searched.append("the model kept in the store (absent or different)")
    return ObjectGraphError(
      .migrationMissingSourceModel,
      "The store at \(url.path) needs a migration, but no model it was made with can be found. The store's entity version hashes: \(hashes.joined(separator: ", ")). Searched: \(searched.joined(separator: "; ")). Add the model version that made the store to the .xcdatamodeld, or pass it in the store option ObjectGraphMigrationSourceModelsOption. The file was left untouched.",
      url: url)
  }
}
