import Foundation
internal import SHA256

extension NSManagedObjectModel {
  /// The model version's checksum, a Base64 string: what a staged migration names model versions by
  /// (``NSManagedObjectModelReference``, ``NSLightweightMigrationStage``), and what a store this model
  /// writes keeps under ``NSPersistentStoreModelVersionChecksumKey``.
  ///
  /// Core Data documents it as "the Base64-encoded 128-bit model version hash", also in the versioned
  /// model's `VersionInfo.plist` and Xcode's build log, and does not say how it is computed. The engine
  /// computes it as it computes the store metadata's checksum: Base64 of SHA-256 over every entity's
  /// ``NSEntityDescription/versionHash``, in the order of the entities' names (UTF-8 bytes), so a model's
  /// checksum equals the one its store records. A checksum copied from Xcode's build log is therefore not
  /// the engine's: take the checksum from this property (see "Staged migration" in `Docs/ObjectGraph.md`).
  ///
  /// ```swift
  /// let stage = NSLightweightMigrationStage([modelV1.versionChecksum, modelV2.versionChecksum])
  /// ```
  public var versionChecksum: String {
    let sorted = entityVersionHashesByName.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
    var input = Data()
    for (_, hash) in sorted { input.append(contentsOf: hash) }
    return SHA256.hash(input).base64EncodedString()
  }
}
