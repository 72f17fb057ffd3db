/// What an ``NSEntityMapping`` does with the instances of its entities (Core Data's `NSEntityMappingType`).
///
/// ``NSMigrationManager`` runs the three phases of a migration for every mapping that has a source entity,
/// except ``remove``; ``add`` mappings create nothing on their own (a policy of another mapping, or the app
/// after the migration, makes the new objects).
public enum NSEntityMappingType: Sendable, Hashable {
  /// A destination entity with no source: nothing is created from the source store.
  case add
  /// A source entity with no destination: its instances are not carried over.
  case remove
  /// Each source instance is copied as it is (the entity did not change).
  case copy
  /// Each source instance becomes a destination instance through the property mappings.
  case transform
  /// The mapping's ``NSEntityMapping/migrationPolicy`` does the work its own way.
  case custom
  /// No type was given; the manager treats it as ``custom``.
  case undefined
}
