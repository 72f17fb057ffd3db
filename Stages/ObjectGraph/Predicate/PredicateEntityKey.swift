import Foundation

/// The key `entity`, which names an object's entity in a predicate (`entity == %@` with an
/// ``NSEntityDescription``, `entity.name == "Note"`), as Core Data's key-value coding does for every managed
/// object. An entity's own property named `entity` hides it.
enum PredicateEntityKey {
  /// The key that names the object's entity.
  static let entity = "entity"
  /// The key after `entity` that names the entity's name.
  static let name = "name"
}
