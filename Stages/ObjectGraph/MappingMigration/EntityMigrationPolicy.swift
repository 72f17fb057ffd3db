import Foundation

/// What the migration manager calls for an ``NSEntityMapping`` at each step of a migration (Core Data's
/// `NSEntityMigrationPolicy`). The default implementation does what a mapping's property mappings say;
/// subclass it and override a step for what they cannot say, such as splitting one attribute into two.
///
/// The steps, for every mapping in the mapping model's order, phase by phase:
/// 1. ``begin(_:with:)``, ``createDestinationInstances(forSource:in:manager:)`` for each source instance,
///    ``endInstanceCreation(forMapping:manager:)``;
/// 2. ``createRelationships(forDestination:in:manager:)`` for each destination instance the mapping made,
///    ``endRelationshipCreation(forMapping:manager:)``;
/// 3. ``performCustomValidation(forMapping:manager:)``, then ``end(_:manager:)``, then the destination is
///    validated and saved.
///
/// An error thrown by any step stops the migration: the source store is left as it was and the destination
/// files are removed.
///
/// ```swift
/// final class SplitFullNamePolicy: NSEntityMigrationPolicy {
///   override func createDestinationInstances(
///     forSource source: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
///   ) throws {
///     try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
///     let parts = (source.value(forKey: "fullName") as? String ?? "").split(separator: " ", maxSplits: 1)
///     for note in manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source]) {
///       note.setValue(parts.first.map(String.init), forKey: "firstName")
///       note.setValue(parts.count > 1 ? String(parts[1]) : nil, forKey: "lastName")
///     }
///   }
/// }
/// ```
open class NSEntityMigrationPolicy {
  /// Makes a policy.
  public init() {}

  /// Called before the first destination instance of `mapping` is made. Does nothing by default.
  open func begin(_ mapping: NSEntityMapping, with manager: NSMigrationManager) throws {}

  /// Makes the destination instance(s) for one source instance. By default: one object of the mapping's
  /// destination entity in ``NSMigrationManager/destinationContext``, its attributes set by the mapping's
  /// ``NSEntityMapping/attributeMappings``, associated with the source instance
  /// (``NSMigrationManager/associate(sourceInstance:withDestinationInstance:for:)``) so that relationships
  /// can find it in phase 2. An override that makes objects itself must associate them too.
  open func createDestinationInstances(forSource source: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager)
    throws
  {
    guard let entity = manager.destinationEntity(for: mapping) else {
      throw ObjectGraphError(
        .migration,
        "Entity mapping '\(mapping.name)' has no destination entity '\(mapping.destinationEntityName ?? "")' in the destination model.")
    }
    guard !entity.isAbstract else {
      throw ObjectGraphError(
        .migration,
        "Entity mapping '\(mapping.name)' makes objects of \(entity.entityName), which is abstract in the destination model: objects of it cannot be made. Map to one of its subentities."
      )
    }
    let destination = entity.managedObjectClass.init(entity: entity, insertInto: manager.destinationContext)
    for propertyMapping in mapping.attributeMappings {
      try manager.apply(propertyMapping, source: source, destination: destination, mapping: mapping)
    }
    manager.associate(sourceInstance: source, withDestinationInstance: destination, for: mapping)
  }

  /// Called once every source instance of `mapping` has its destination instances. Does nothing by default.
  open func endInstanceCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

  /// Sets the relationships of one destination instance that `mapping` made. By default: each of the
  /// mapping's ``NSEntityMapping/relationshipMappings`` is evaluated with the source instance the destination
  /// was made from, and the source objects it gives are replaced by their destination instances.
  open func createRelationships(forDestination destination: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager)
    throws
  {
    guard let source = manager.sourceInstances(forEntityMappingName: mapping.name, destinationInstances: [destination]).first
    else { return }
    for propertyMapping in mapping.relationshipMappings {
      try manager.apply(propertyMapping, source: source, destination: destination, mapping: mapping)
    }
  }

  /// Called once every destination instance of `mapping` has its relationships. Does nothing by default.
  open func endRelationshipCreation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

  /// Called in phase 3, before the destination is validated and saved: check what the model's rules
  /// cannot, and throw to stop the migration. Does nothing by default.
  open func performCustomValidation(forMapping mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

  /// Called last for `mapping`, before the destination is saved. Does nothing by default.
  open func end(_ mapping: NSEntityMapping, manager: NSMigrationManager) throws {}

  /// Answers `FUNCTION($entityPolicy, "selector:", arguments…)` in a property mapping's value expression,
  /// where Core Data sends the message to the policy object (Swift on Linux cannot send a message by name).
  /// Override it for the selectors your mapping model uses, and call `super` for the others.
  ///
  /// ```swift
  /// override func evaluateFunction(_ selector: String, arguments: [Any?], manager: NSMigrationManager) throws -> Any? {
  ///   guard selector == "ratingFromText:" else { return try super.evaluateFunction(selector, arguments: arguments, manager: manager) }
  ///   return Int64(arguments.first as? String ?? "") ?? 0
  /// }
  /// ```
  /// - Parameters:
  ///   - selector: the selector as the expression writes it (`"ratingFromText:"`).
  ///   - arguments: the arguments, evaluated (`$source.name` as the source instance's name).
  ///   - manager: the migration manager running.
  /// - Returns: the value the property gets.
  /// - Throws: by default, ``NSMigrationError`` naming the selector; the migration stops.
  open func evaluateFunction(_ selector: String, arguments: [Any?], manager: NSMigrationManager) throws -> Any? {
    throw ObjectGraphError(
      .migration,
      "The value expression of entity mapping '\(manager.currentEntityMapping?.name ?? "")' calls \(selector) on its "
        + "migration policy, \(type(of: self)), which does not answer it. Override "
        + "evaluateFunction(_:arguments:manager:) in the policy to return the value.")
  }
}
