import Foundation
import ObjectGraph

/// What a store's metadata says about it, as `objectgraph inspect` prints it: who wrote the file, its
/// UUID, and the entities and version hashes of the model that made it.
struct StoreSummary {
  /// The store's path as the user gave it.
  let path: String
  let url: URL
  /// What `NSPersistentStoreCoordinator.metadataForPersistentStore(type:at:)` read.
  let metadata: [String: Any]

  /// The entity version hashes the store was made with, by entity name.
  var versionHashes: [String: Data] { metadata[NSStoreModelVersionHashesKey] as? [String: Data] ?? [:] }

  /// The lines about the file itself.
  func headerLines() -> [String] {
    var lines = ["Store: \(path)", "  written by:    \(writer)"]
    if let journal = journalMode { lines.append("  journal mode:  \(journal)") }
    if let uuid = metadata[NSStoreUUIDKey] as? String { lines.append("  UUID:          \(uuid)") }
    return lines
  }

  /// The lines about the model the store wants, and how to pass it.
  func modelLines() -> [String] {
    var lines = ["It was made with a model \(identifiersPhrase), with these entities (version hashes, first 8 bytes):"]
    lines += hashLines(versionHashes, indent: "  ")
    lines += [
      "To see its objects, pass that model (an Xcode .xcdatamodeld or .xcdatamodel, or a compiled .momd or .mom):",
      "  objectgraph inspect \(path) --model MODEL",
    ]
    return lines
  }

  /// One line per entity, by name: the name, then the first 8 bytes of its hash in hexadecimal.
  func hashLines(_ hashes: [String: Data], indent: String) -> [String] {
    let width = hashes.keys.map(\.count).max() ?? 0
    return hashes.keys.sorted().map { name in
      indent + name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + Self.shortHash(hashes[name])
    }
  }

  /// `9e55552907215822…`: the first 8 bytes of a hash, enough to tell versions apart at a glance.
  static func shortHash(_ hash: Data?) -> String {
    guard let hash else { return "(none)" }
    return hash.prefix(8).map { String(format: "%02x", $0) }.joined() + (hash.count > 8 ? "…" : "")
  }

  /// Who wrote the file, from the metadata keys only Core Data or only ObjectGraph writes.
  private var writer: String {
    if let version = metadata["NSPersistenceFrameworkVersion"] {
      return "Core Data (NSPersistenceFrameworkVersion \(version))"
    }
    if let format = metadata[ObjectGraphStoreFormatVersionKey] {
      return "ObjectGraph (store format \(format))"
    }
    return "unknown (no NSPersistenceFrameworkVersion in the metadata)"
  }

  /// "whose version identifiers are "1"" or "without version identifiers".
  private var identifiersPhrase: String {
    let raw = metadata[NSStoreModelVersionIdentifiersKey]
    let identifiers = ((raw as? [String]) ?? (raw as? [any Sendable])?.map { "\($0)" } ?? []).sorted()
    if identifiers.isEmpty { return "without version identifiers" }
    let quoted = identifiers.map { "\"\($0)\"" }.joined(separator: ", ")
    return identifiers.count == 1 ? "whose version identifier is \(quoted)" : "whose version identifiers are \(quoted)"
  }

  /// The journal mode the file's header records (bytes 18 and 19: 1 for a rollback journal, 2 for WAL), or
  /// `nil` when the header cannot be read. Reading 20 bytes is all it takes; nothing is written.
  private var journalMode: String? {
    guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
    defer { try? handle.close() }
    guard let header = try? handle.read(upToCount: 20), header.count == 20 else { return nil }
    switch (header[header.startIndex + 18], header[header.startIndex + 19]) {
    case (2, 2): return "WAL (write-ahead log)"
    case (1, 1): return "rollback journal"
    default: return nil
    }
  }
}
