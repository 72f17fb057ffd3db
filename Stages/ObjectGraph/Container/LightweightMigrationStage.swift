import Foundation

/// A stage of a staged migration that Core Data can run unaided (Core Data's `NSLightweightMigrationStage`):
/// a lightweight migration between the model versions its checksums name.
///
/// ```swift
/// let stage = NSLightweightMigrationStage([v1.versionChecksum, v2.versionChecksum])
/// stage.label = "V1 to V2: adds Note.pinned"
/// ```
///
/// When a store is at one of the versions the stage names (any but the last), the stage migrates it, by
/// inference, to the last version the stage names, in one step. The models are found by their
/// ``NSManagedObjectModel/versionChecksum`` among the models the manager's custom stages reference, the
/// model the store is added with, the versions beside that model's file and the store option
/// ``ObjectGraphMigrationSourceModelsOption`` (Core Data searches the app's bundle); a checksum no model has
/// fails the store's load with ``NSManagedObjectModelReferenceNotFoundError``.
public final class NSLightweightMigrationStage: NSMigrationStage, @unchecked Sendable {
  /// The checksums of the model versions the stage migrates between, in order (Core Data's
  /// `versionChecksums`).
  public let versionChecksums: [String]

  /// Makes a lightweight stage between the model versions whose ``NSManagedObjectModel/versionChecksum``s
  /// are `checksums`, oldest first.
  public init(_ checksums: [String]) {
    versionChecksums = checksums
    super.init()
  }
}
