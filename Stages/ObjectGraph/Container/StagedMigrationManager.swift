import Foundation

/// Migrates a store through a series of model versions, stage by stage, when it is added (Core Data's
/// `NSStagedMigrationManager`): lightweight stages the engine runs alone, custom stages whose handlers edit
/// the data before and after their step.
///
/// ```swift
/// let manager = NSStagedMigrationManager([
///   NSLightweightMigrationStage([v1.versionChecksum, v2.versionChecksum]),
///   splitNames,  // an NSCustomMigrationStage from v2 to v3
/// ])
/// let description = NSPersistentStoreDescription(url: storeURL)
/// description.setOption(manager, forKey: NSPersistentStoreStagedMigrationManagerOptionKey)
/// ```
///
/// When a store whose model is not the one it is added with is opened, the manager walks its stages in the
/// order given, from the store's version (its model's ``NSManagedObjectModel/versionChecksum``): a
/// lightweight stage that names the store's version (but as its last) migrates it to the last version it
/// names; a custom stage whose ``NSCustomMigrationStage/currentModel`` is the store's version runs its
/// ``NSCustomMigrationStage/willMigrateHandler``, migrates the store to its
/// ``NSCustomMigrationStage/nextModel`` by inference, and runs its ``NSCustomMigrationStage/didMigrateHandler``;
/// other stages are passed over. The stages must end at the model the store is added with: the whole path
/// is checked before anything runs, and stages that do not get there fail the load with
/// ``NSMigrationError`` naming where they stop. A store already at that model runs no stage.
///
/// The staged migration is all or nothing: it runs on a copy of the store, under the store's write lock,
/// and the copy replaces the store's contents only once every stage has run. A handler that throws fails
/// the store's load with the handler's error, and the store is left byte for byte as it was.
///
/// `@unchecked Sendable`: ``stages`` is a `let`; ``container``, the one mutable state, is behind a lock; a
/// run holds a second lock from start to end, so two stores that use the same manager migrate one after the
/// other, each with its own container.
public final class NSStagedMigrationManager: NSObject, @unchecked Sendable, StagedMigrationRunner {
  /// The stages, in the order they run (Core Data's `stages`).
  public let stages: [NSMigrationStage]
  private let current = Locked<NSPersistentContainer?>(nil)
  private let running = NSLock()

  /// The container whose store is the one being migrated, at the version of the handler running (Core
  /// Data's `container`): handlers make their contexts from it. `nil` outside a handler.
  public var container: NSPersistentContainer? { current.withLock { $0 } }

  /// Makes a manager that runs `stages` in this order.
  public init(_ stages: [NSMigrationStage]) {
    self.stages = stages
    super.init()
  }

  /// One step of a run: an inferred migration to a model, or a custom stage with its two models.
  private enum Step {
    case inferred(NSManagedObjectModel)
    case custom(NSCustomMigrationStage, from: NSManagedObjectModel, to: NSManagedObjectModel)
  }

  var stageModels: [NSManagedObjectModel] {
    stages.compactMap { $0 as? NSCustomMigrationStage }.flatMap { [$0.currentModel, $0.nextModel] }
      .compactMap { try? $0.resolution.get() }
  }

  func migrate(
    storeAt url: URL, from source: NSManagedObjectModel, to destination: NSManagedObjectModel, configuration: String?,
    knownModels: [NSManagedObjectModel], defersCleanup: Bool
  ) throws {
    running.lock()
    defer { running.unlock() }
    let models = [destination, source] + stageModels + knownModels
    for step in try plan(from: source, to: destination, models: models) {
      switch step {
      case .inferred(let model):
        try migrateInferred(url, to: model, configuration: configuration, models: models, stage: nil, defers: defersCleanup)
      case .custom(let stage, let from, let to):
        if let handler = stage.willMigrateHandler {
          try withContainer(url, model: from, configuration: configuration) { try handler(self, stage) }
        }
        try migrateInferred(url, to: to, configuration: configuration, models: models, stage: stage, defers: defersCleanup)
        if let handler = stage.didMigrateHandler {
          try withContainer(url, model: to, configuration: configuration) { try handler(self, stage) }
        }
      }
    }
  }

  /// The steps from `source` to `destination`, the stages taken in order; throws when they do not get there.
  private func plan(from source: NSManagedObjectModel, to destination: NSManagedObjectModel, models: [NSManagedObjectModel])
    throws -> [Step]
  {
    let target = destination.versionChecksum
    var at = source.versionChecksum
    var steps: [Step] = []
    for stage in stages where at != target {
      if let stage = stage as? NSLightweightMigrationStage {
        guard let index = stage.versionChecksums.firstIndex(of: at), let last = stage.versionChecksums.last,
          index < stage.versionChecksums.count - 1
        else { continue }
        guard let model = models.first(where: { $0.versionChecksum == last }) else {
          throw ObjectGraphError(
            ObjectGraphError.Code(rawValue: NSManagedObjectModelReferenceNotFoundError),
            "The staged migration's \(stage.name) migrates to the model version with checksum \(last), but no model has it: looked among the models the custom stages reference, the model the store is added with, the versions beside its file and ObjectGraphMigrationSourceModelsOption. Reference the model in a custom stage, or pass it in that option. The store was left as it was."
          )
        }
        steps.append(.inferred(model))
        at = last
      } else if let stage = stage as? NSCustomMigrationStage, stage.currentModel.versionChecksum == at {
        steps.append(.custom(stage, from: try resolved(stage.currentModel, of: stage), to: try resolved(stage.nextModel, of: stage)))
        at = stage.nextModel.versionChecksum
      }
    }
    guard at == target else {
      let stopped =
        at == source.versionChecksum
        ? "no stage starts at the store's version (checksum \(at))"
        : "they stop at the model version with checksum \(at)"
      throw ObjectGraphError(
        .migration,
        "The staged migration's \(stages.count) stage(s) do not lead to the model the store is added with (checksum \(target)): \(stopped). Stages run in the order given; add a stage from there (an NSLightweightMigrationStage naming both checksums, or an NSCustomMigrationStage). The store was left as it was."
      )
    }
    return steps
  }

  /// The model `reference` names, or the error saying which stage's reference found none.
  private func resolved(_ reference: NSManagedObjectModelReference, of stage: NSMigrationStage) throws -> NSManagedObjectModel {
    do {
      return try reference.resolution.get()
    } catch {
      throw ObjectGraphError(
        ObjectGraphError.Code(rawValue: error.code),
        "The staged migration's \(stage.name) references \(reference.name), which was not found: \(error.message) The store was left as it was."
      )
    }
  }

  /// Migrates the store at `url` to `model` by inference, as adding it with automatic migration does; a
  /// refusal keeps its code and says which stage's step it was (`stage`, or the lightweight one to `model`).
  /// `defers` leaves the step's cleanup for later (`NSPersistentStoreDeferredLightweightMigrationOptionKey`).
  private func migrateInferred(
    _ url: URL, to model: NSManagedObjectModel, configuration: String?, models: [NSManagedObjectModel], stage: NSMigrationStage?,
    defers: Bool
  ) throws {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    do {
      let store = try coordinator.addPersistentStore(
        type: .sqlite, configuration: configuration, at: url,
        options: [
          NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
          ObjectGraphMigrationSourceModelsOption: models, NSSQLitePragmasOption: ["journal_mode": "DELETE"],
          NSPersistentStoreDeferredLightweightMigrationOptionKey: defers,
        ])
      try coordinator.remove(store)
    } catch let error as ObjectGraphError {
      let step = stage.map { "the next model of \($0.name)" } ?? "the model version with checksum \(model.versionChecksum)"
      throw ObjectGraphError(
        ObjectGraphError.Code(rawValue: error.code),
        "In the staged migration, the inferred migration to \(step) failed, on the copy of the store it migrates: \(error.message) The store was left as it was.",
        underlyingError: error)
    }
  }

  /// Runs `body` with ``container`` set to a container that has the store at `url` loaded with `model`.
  private func withContainer(_ url: URL, model: NSManagedObjectModel, configuration: String?, _ body: () throws -> Void) throws {
    let container = NSPersistentContainer(name: url.deletingPathExtension().lastPathComponent, managedObjectModel: model)
    let description = NSPersistentStoreDescription(url: url)
    description.configuration = configuration
    description.shouldMigrateStoreAutomatically = false
    description.shouldInferMappingModelAutomatically = false
    description.setValue("DELETE" as NSString, forPragmaNamed: "journal_mode")
    container.persistentStoreDescriptions = [description]
    let coordinator = container.persistentStoreCoordinator
    let store = try coordinator.addPersistentStore(
      type: .sqlite, configuration: configuration, at: url, options: [NSSQLitePragmasOption: ["journal_mode": "DELETE"]])
    current.withLock { $0 = container }
    defer {
      current.withLock { $0 = nil }
      try? coordinator.remove(store)
    }
    try body()
  }
}
