import Foundation

/// What one run of ``NSMigrationManager/migrateStore(from:type:options:mapping:to:type:options:)`` knows, made
/// new for each run (as a ``SaveTransaction`` is for each save), so that nothing of a previous run is left
/// over: the mapping model, the instances associated so far, a cancellation asked for, the parsed
/// expressions, the progress and the entity mapping running.
final class MigrationRun {
  /// The mapping model being run.
  let mapping: NSMappingModel
  /// The instances each entity mapping associated, by the mapping's name.
  var associations: [String: Associations] = [:]
  /// The error a policy cancelled the migration with, if it did.
  var cancellation: (any Error)?
  /// The property mappings' value expressions, parsed once when the mapping model is checked.
  var parsed: [ObjectIdentifier: MappingExpression] = [:]
  /// Units of work done and in all, for ``progress``.
  var unitsDone = 0
  var unitsTotal = 1
  /// How far the run has come, from 0 to 1.
  var progress: Float = 0
  /// The entity mapping running, or `nil` between steps.
  var currentEntityMapping: NSEntityMapping?

  /// The source and destination instances one entity mapping associated, in order.
  struct Associations {
    var destinationsBySource: [ObjectIdentifier: [NSManagedObject]] = [:]
    var sourcesByDestination: [ObjectIdentifier: [NSManagedObject]] = [:]
    var sources: [NSManagedObject] = []
    var destinations: [NSManagedObject] = []
  }

  init(mapping: NSMappingModel) {
    self.mapping = mapping
  }
}
