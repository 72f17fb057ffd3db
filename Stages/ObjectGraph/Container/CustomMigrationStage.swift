import Foundation

/// A stage of a staged migration that you take part in (Core Data's `NSCustomMigrationStage`): a handler
/// runs on the store at the source version, the store is migrated to the destination version by inference,
/// and another handler runs on it there.
///
/// ```swift
/// let split = NSCustomMigrationStage(
///   migratingFrom: NSManagedObjectModelReference(model: v2, versionChecksum: v2.versionChecksum),
///   to: NSManagedObjectModelReference(model: v3, versionChecksum: v3.versionChecksum))
/// split.willMigrateHandler = { manager, stage in
///   guard let container = manager.container else { return }
///   let context = container.newBackgroundContext()
///   try context.performAndWait {
///     // Still at v2: copy each person's name into firstName and lastName, then save.
///     try context.save()
///   }
/// }
/// ```
///
/// Each handler gets the manager, whose ``NSStagedMigrationManager/container`` is a container with the
/// store loaded at the handler's version (the source model for ``willMigrateHandler``, the destination
/// model for ``didMigrateHandler``): make contexts from it and save. An error a handler throws fails the
/// store's load with that error, and the store is left as it was before the whole staged migration.
///
/// `@unchecked Sendable`: the handlers, the class's only mutable state, are kept behind a lock, and are
/// called by the engine one at a time, on the thread that adds the store, as Core Data calls them.
public final class NSCustomMigrationStage: NSMigrationStage, @unchecked Sendable {
  private let handlers = Locked<(will: StageHandler?, did: StageHandler?)>((nil, nil))

  /// The model version the stage migrates from (Core Data's `currentModel`).
  public let currentModel: NSManagedObjectModelReference
  /// The model version the stage migrates to (Core Data's `nextModel`).
  public let nextModel: NSManagedObjectModelReference

  /// Makes a custom stage from one model version to the next.
  /// - Parameters:
  ///   - currentModel: the version the stage starts from.
  ///   - nextModel: the version the stage ends at; the change between the two must be one a lightweight
  ///     migration can infer (do the rest of the work in the handlers).
  public init(migratingFrom currentModel: NSManagedObjectModelReference, to nextModel: NSManagedObjectModelReference) {
    self.currentModel = currentModel
    self.nextModel = nextModel
    super.init()
  }

  /// Runs before the stage's migration, on the store at ``currentModel``'s version: prepare the data for
  /// the change (Core Data's `willMigrateHandler`). Reach the store through the manager's
  /// ``NSStagedMigrationManager/container``.
  public var willMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)? {
    get { handlers.withLock { $0.will } }
    set { handlers.withLock { $0.will = newValue } }
  }

  /// Runs after the stage's migration, on the store at ``nextModel``'s version: fill in or clean up what
  /// the change left (Core Data's `didMigrateHandler`). Reach the store through the manager's
  /// ``NSStagedMigrationManager/container``.
  public var didMigrateHandler: ((NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void)? {
    get { handlers.withLock { $0.did } }
    set { handlers.withLock { $0.did = newValue } }
  }
}

/// A custom stage's handler, as Core Data types it.
typealias StageHandler = (NSStagedMigrationManager, NSCustomMigrationStage) throws -> Void
