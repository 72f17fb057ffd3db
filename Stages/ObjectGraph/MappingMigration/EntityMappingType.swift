/// What an ``NSEntityMapping`` does with the instances of its entities (with
/// its raw values).
///
/// ``NSMigrationManager`` runs the three phases of a migration for every mapping that has a source entity,
/// except ``removeEntityMappingType``; ``addEntityMappingType`` mappings create nothing on their own (a policy
/// of another mapping, or the app after the migration, makes the new objects).
public enum NSEntityMappingType: UInt, Sendable, Hashable {
  /// No type was given; the manager treats it as ``customEntityMappingType``.
  case undefinedEntityMappingType = 0x00
  /// The mapping's ``NSEntityMapping/migrationPolicy`` does the work its own way.
  case customEntityMappingType = 0x01
  /// A destination entity with no source: nothing is created from the source store.
  case addEntityMappingType = 0x02
  /// A source entity with no destination: its instances are not carried over.
  case removeEntityMappingType = 0x03
  /// Each source instance is copied as it is (the entity did not change).
  case copyEntityMappingType = 0x04
  /// Each source instance becomes a destination instance through the property mappings.
  case transformEntityMappingType = 0x05
}
