import Foundation

/// Models compare by content, as Core Data's `NSManagedObjectModel` does (`isEqual:`): two models are
/// equal when their entities have the same version hashes (names, attribute types, relationships,
/// inheritance: everything a store depends on) and their configurations hold the same entities. Two
/// loads of one model file are equal; a model and its next version are not.
extension NSManagedObjectModel {
  /// Whether `other` has the same entity version hashes and configurations (what ``isEqual(_:)`` answers).
  func hasSameContents(as other: NSManagedObjectModel) -> Bool {
    other === self
      || (entityVersionHashesByName == other.entityVersionHashesByName && configurationContents == other.configurationContents)
  }

  /// The entities' names and version hashes, hashed (what ``hash`` answers).
  var contentsHash: Int {
    var hasher = Hasher()
    for (name, hash) in entityVersionHashesByName.sorted(by: { $0.key < $1.key }) {
      hasher.combine(name)
      hasher.combine(hash)
    }
    return hasher.finalize()
  }

  /// Each configuration's entity names.
  private var configurationContents: [String: Set<String>] {
    var contents: [String: Set<String>] = [:]
    for name in configurations {
      contents[name] = Set((entities(forConfigurationName: name) ?? []).map(\.entityName))
    }
    return contents
  }
}
