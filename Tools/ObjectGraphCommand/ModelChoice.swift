import Foundation
import ObjectGraph

/// The version of a model file that made a store: the one whose entity version hashes are the store's, as
/// Core Data picks a model for a store.
struct ModelChoice {
  /// The model's path as the user gave it.
  let path: String
  /// The version's name (`SampleModel2` for `SampleModel2.xcdatamodel` or `SampleModel2.mom`).
  let name: String
  let model: NSManagedObjectModel
  /// The names of every version in the file, in the order the engine lists them.
  let versionNames: [String]

  /// Loads every version of the model at `url` and picks the one that made the store.
  ///
  /// - Throws: the engine's ``ObjectGraphError`` when the model cannot be loaded; an ``InspectError``
  ///   listing the store's hashes and each version's differences when no version made the store.
  static func version(at url: URL, path: String, for store: StoreSummary) throws -> ModelChoice {
    let versions = try NSManagedObjectModel.versions(in: url)
    let names = versions.map(\.name)
    if let match = versions.first(where: { $0.model.isConfiguration(withName: nil, compatibleWithStoreMetadata: store.metadata) }) {
      return ModelChoice(path: path, name: match.name, model: match.model, versionNames: names)
    }
    var lines = [
      "No version of \(path) made \(store.path): each version's entity version hashes differ from the store's.",
      "The store's (first 8 bytes):",
    ]
    lines += store.hashLines(store.versionHashes, indent: "  ")
    lines.append(versions.count == 1 ? "The version tried:" : "The \(versions.count) versions tried:")
    for version in versions {
      lines.append("  \(version.name): \(differences(version.model.entityVersionHashesByName, store.versionHashes))")
    }
    lines.append("Pass the model the store was made with; without --model, the command shows what the store expects.")
    throw InspectError(message: lines.joined(separator: "\n"))
  }

  /// "differs in Person; LuxuryCar is not in the store; ExpensiveSportCar is not in this version".
  static func differences(_ model: [String: Data], _ store: [String: Data]) -> String {
    let changed = model.keys.filter { name in store[name].map { $0 != model[name] } ?? false }.sorted()
    let onlyModel = model.keys.filter { store[$0] == nil }.sorted()
    let onlyStore = store.keys.filter { model[$0] == nil }.sorted()
    var parts: [String] = []
    if !changed.isEmpty { parts.append("\(changed.joined(separator: ", ")) hash\(changed.count == 1 ? "es" : "") differently") }
    if !onlyModel.isEmpty { parts.append("\(onlyModel.joined(separator: ", ")) not in the store") }
    if !onlyStore.isEmpty { parts.append("no \(onlyStore.joined(separator: ", "))") }
    return parts.isEmpty ? "the same entities and hashes, but the store's metadata is not a match" : parts.joined(separator: "; ")
  }

  /// The lines about the model, printed after the store's.
  func lines() -> [String] {
    let others = versionNames.count == 1 ? "" : " (of its \(versionNames.count) versions: \(versionNames.joined(separator: ", ")))"
    return [
      "Model: \(path)",
      "  version:       \(name), whose entity version hashes are the store's\(others)",
      "  opened:        read-only",
    ]
  }
}
