import Foundation

// The keys of the variables a property mapping's value expression is evaluated with (Core Data's, declared
// with `NSEntityMigrationPolicy`). Each key's value is the variable's name: `$source` in an expression is the
// value under `NSMigrationSourceObjectKey`, as Apple documents ("To access this key in a custom value
// expression string in the Xcode mapping model editor use `$source`").

/// Key for the migration manager, `$manager` in a value expression (Core Data's `NSMigrationManagerKey`).
public let NSMigrationManagerKey = "manager"
/// Key for the source object, `$source` in a value expression (Core Data's `NSMigrationSourceObjectKey`).
public let NSMigrationSourceObjectKey = "source"
/// Key for the destination object, `$destination` in a value expression: the destination instance being
/// filled, with the values earlier property mappings gave it (Core Data's `NSMigrationDestinationObjectKey`).
public let NSMigrationDestinationObjectKey = "destination"
/// Key for the entity mapping, `$entityMapping` in a value expression (Core Data's `NSMigrationEntityMappingKey`).
public let NSMigrationEntityMappingKey = "entityMapping"
/// Key for the property mapping, `$propertyMapping` in a value expression (Core Data's
/// `NSMigrationPropertyMappingKey`).
public let NSMigrationPropertyMappingKey = "propertyMapping"
/// Key for the entity migration policy, `$entityPolicy` in a value expression (Core Data's
/// `NSMigrationEntityPolicyKey`).
public let NSMigrationEntityPolicyKey = "entityPolicy"
