import Foundation

/// Finding the model a store was made with, as Core Data does before a lightweight migration: the model
/// whose entity version hashes equal the ones in the store's metadata.
///
/// Three places are searched, in order:
/// 1. the models the caller passes (``StoreOptions/migrationSourceModels``);
/// 2. the other versions of the `.xcdatamodeld` or `.momd` the app's model was read from (Core Data searches
///    the app's bundle for model versions the same way);
/// 3. the copy of its model that the engine keeps inside every store file it writes (Core Data's
///    `Z_MODELCACHE`), so that a store is never stranded when the app no longer ships the old version.
///
/// A store made by a *newer* version of the model than the app's (a later version of the same
/// `.xcdatamodeld`, as named in the store's metadata) is refused with error 134100 and left alone: a
/// lightweight migration only moves forward.
enum MigrationSource {
  /// A model that matches the store, and where it was found (for messages).
  struct Found {
    let model: ManagedObjectModel
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
  /// - Throws: 134100 for a store from a newer model version; 134130 when no model matches; the errors of
  ///   loading the `.xcdatamodeld`'s versions.
  static func find(
    metadata: [String: any Sendable], configuration: String?, destination: ManagedObjectModel,
    given: [ManagedObjectModel], storedModel: () throws -> ManagedObjectModel?, url: URL
  ) throws -> Found {
    for (index, model) in given.enumerated()
    where model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) {
      return Found(model: model, origin: "source model \(index + 1) passed in the store options")
    }
    let versions = try siblingVersions(of: destination)
    let currentName = destination.versionName
    let currentIndex = versions.lastIndex { $0.name == currentName }
    let storeVersionName = metadata[StoreMetadataKey.modelVersionName] as? String
    if let index = versions.lastIndex(where: {
      $0.model.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata)
    }) {
      let version = versions[index]
      if let currentIndex, index > currentIndex {
        throw newer(url: url, storeVersion: version.name, currentVersion: versions[currentIndex].name)
      }
      return Found(model: version.model, origin: "model version '\(version.name)'")
    }
    if let storeVersionName, let currentName, !versions.contains(where: { $0.name == storeVersionName }),
      stem(of: storeVersionName) == stem(of: currentName), XcodeModelLoader.naturallyOrdered(currentName, storeVersionName)
    {
      throw newer(url: url, storeVersion: storeVersionName, currentVersion: currentName)
    }
    if let stored = try storedModel(), stored.isConfiguration(withName: configuration, compatibleWithStoreMetadata: metadata) {
      return Found(model: stored, origin: "the model kept in the store")
    }
    throw missing(url: url, metadata: metadata, versions: versions.map(\.name), given: given.count)
  }

  /// A version name without its trailing number: `DataModel` for `DataModel 3`. Only a version of the same
  /// stem as the app's current one can be a later version of the same model; a store from another model
  /// altogether (`Archive`) is not called newer, whatever its name sorts after.
  private static func stem(of name: String) -> Substring {
    var stem = Substring(name)
    while let last = stem.last, last.isNumber || last == " " || last == "_" || last == "-" { stem = stem.dropLast() }
    return stem
  }

  /// The versions of the `.xcdatamodeld` a model was read from, or none for a model made in code or read
  /// from a lone `.xcdatamodel`.
  private static func siblingVersions(of model: ManagedObjectModel) throws -> [(name: String, model: ManagedObjectModel)] {
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
    return try ManagedObjectModel.versions(in: bundle)
  }

  private static func newer(url: URL, storeVersion: String, currentVersion: String) -> ObjectGraphError {
    ObjectGraphError(
      .persistentStoreIncompatibleVersionHash,
      "The store at \(url.path) was made with model version '\(storeVersion)', newer than this app's current version '\(currentVersion)'. A migration only goes forward: open the store with an app that has '\(storeVersion)', or make '\(storeVersion)' the current version. The file was left untouched.",
      url: url)
  }

  private static func missing(url: URL, metadata: [String: any Sendable], versions: [String], given: Int) -> ObjectGraphError {
    let hashes = (metadata[StoreMetadataKey.versionHashes] as? [String: Data] ?? [:]).sorted { $0.key < $1.key }
      .map { "\($0.key) \($0.value.prefix(6).map { String(format: "%02x", $0) }.joined())…" }
    var searched = ["\(given) source model(s) passed in the store options"]
    searched.append(
      versions.isEmpty
        ? "no other versions (the app's model was not read from a .xcdatamodeld)"
        : "model versions \(versions.map { "'\($0)'" }.joined(separator: ", "))")
    searched.append("the model kept in the store (absent or different)")
    return ObjectGraphError(
      .migrationMissingSourceModel,
      "The store at \(url.path) needs a migration, but no model it was made with can be found. The store's entity version hashes: \(hashes.joined(separator: ", ")). Searched: \(searched.joined(separator: "; ")). Add the model version that made the store to the .xcdatamodeld, or pass it in StoreOptions.migrationSourceModels. The file was left untouched.",
      url: url)
  }
}
