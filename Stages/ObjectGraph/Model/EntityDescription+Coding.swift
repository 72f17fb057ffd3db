import Foundation

/// Entities archive themselves, as Core Data's do (`NSEntityDescription` is `NSSecureCoding`).
///
/// An entity's archive holds its name, class name, abstract flag, its own properties (each a property's
/// archive), fetched properties, uniqueness constraints, fetch indexes, user info, version hash modifier and
/// renaming identifier, and its superentity and subentities by name. Archived alone, it comes back on its own:
/// not in a model, with no superentity or subentities (their names are in the archive, and a model's archive
/// links them again), and relationships that name their destinations and inverses, resolved when a model is
/// made of it. Archive the model to keep a whole graph of entities. The Swift class given to an entity in
/// code (``managedObjectClass``) is not archived: its ``representedClassName`` is, which finds the class again
/// through the class registry.
///
/// The fetch indexes are archived as index objects (``NSFetchIndexDescription`` is `NSSecureCoding` too).
extension NSEntityDescription: NSSecureCoding {
  private enum Key {
    static let name = "NSEntityName"
    static let className = "NSClassNameForEntity"
    static let isAbstract = "NSIsAbstract"
    static let properties = "NSProperties"
    static let superentity = "NSSuperentityName"
    static let subentities = "NSSubentityNames"
    static let renamingIdentifier = "NSRenamingIdentifier"
    static let versionHashModifier = "NSVersionHashModifier"
    static let userInfo = "NSUserInfo"
    static let fetchedProperties = "NSFetchedProperties"
    static let uniquenessConstraints = "NSUniquenessConstraints"
    static let indexes = "NSFetchIndexDescriptions"
  }

  /// The keys of a fetched property's dictionary in the archive.
  private enum Field {
    static let name = "name"
    static let destination = "destination"
    static let predicate = "predicate"
    static let userInfo = "userInfo"
  }

  /// `true`: entities decode with `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`.
  public static var supportsSecureCoding: Bool { true }

  /// Archives the entity, its own properties and settings, and its superentity and subentities by name.
  public func encode(with coder: NSCoder) {
    let state = state.value
    coder.encodeText(state.name, forKey: Key.name)
    coder.encodeText(state.representedClassName, forKey: Key.className)
    coder.encode(state.isAbstract, forKey: Key.isAbstract)
    coder.encode(NSArray(array: state.ownProperties), forKey: Key.properties)
    coder.encodeText(state.superentity?.entityName, forKey: Key.superentity)
    coder.encodeTexts(state.subentities.map(\.entityName), forKey: Key.subentities)
    coder.encodeText(state.renamingIdentifier, forKey: Key.renamingIdentifier)
    coder.encodeText(state.versionHashModifier, forKey: Key.versionHashModifier)
    coder.encodeTextDictionary(state.userInfo, forKey: Key.userInfo)
    coder.encode(
      NSArray(array: state.uniquenessConstraints.map { NSArray(array: $0.map { NSString(string: $0) }) }),
      forKey: Key.uniquenessConstraints)
    let fetched = NSMutableArray()
    for property in state.fetchedProperties {
      let entry = NSMutableDictionary()
      entry[Field.name] = NSString(string: property.name)
      entry[Field.destination] = NSString(string: property.destinationEntityName)
      if let format = property.predicateFormat { entry[Field.predicate] = NSString(string: format) }
      entry[Field.userInfo] = NSDictionary(dictionary: property.userInfo)
      fetched.add(entry)
    }
    coder.encode(fetched, forKey: Key.fetchedProperties)
    coder.encode(NSArray(array: state.indexes), forKey: Key.indexes)
  }

  /// Reads an entity back from an archive made by ``encode(with:)``, on its own (see the extension's
  /// discussion); `nil` (and the unarchiver's error) when the archive is not an entity's.
  public convenience init?(coder: NSCoder) {
    guard let name = coder.decodeText(forKey: Key.name) else {
      coder.failDecoding("an entity", "it has no name (\(Key.name))")
      return nil
    }
    let what = "entity \(name)"
    guard let properties = coder.decodeArchivedObjects(of: NSPropertyDescription.self, forKey: Key.properties) else {
      if coder.error == nil { coder.failDecoding(what, "its properties are not attributes and relationships") }
      return nil
    }
    guard let userInfo = coder.decodeTextDictionary(forKey: Key.userInfo),
      let constraints = Self.decodedConstraints(coder.decodeValue(forKey: Key.uniquenessConstraints)),
      let fetched = Self.decodedFetchedProperties(coder.decodeValue(forKey: Key.fetchedProperties)),
      let indexes = coder.decodeArchivedObjects(of: NSFetchIndexDescription.self, forKey: Key.indexes)
    else {
      coder.failDecoding(what, "its user info, uniqueness constraints, fetched properties or fetch indexes are malformed")
      return nil
    }
    self.init(name: name, properties: properties)
    let className = coder.decodeText(forKey: Key.className)
    let superentity = coder.decodeText(forKey: Key.superentity)
    let subentities = coder.decodeTexts(forKey: Key.subentities) ?? []
    state.mutate(what: what) { state in
      state.representedClassName = className
      state.isAbstract = coder.decodeBool(forKey: Key.isAbstract)
      state.renamingIdentifier = coder.decodeText(forKey: Key.renamingIdentifier)
      state.versionHashModifier = coder.decodeText(forKey: Key.versionHashModifier)
      state.userInfo = userInfo
      state.uniquenessConstraints = constraints
      state.fetchedProperties = fetched
      state.archivedFamily = ArchivedFamily(superentity: superentity, subentities: subentities)
    }
    self.indexes = indexes
  }

  /// For an entity read from an archive, its superentity and subentities by name; `nil` for one made otherwise.
  var archivedFamily: ArchivedFamily? { state.read(\.archivedFamily) }

  private static func decodedConstraints(_ value: Any?) -> [[String]]? {
    guard let value else { return [] }
    return value as? [[String]]
  }

  private static func decodedFetchedProperties(_ value: Any?) -> [NSFetchedPropertyDescription]? {
    guard let value else { return [] }
    guard let entries = value as? [[String: Any]] else { return nil }
    var properties: [NSFetchedPropertyDescription] = []
    for entry in entries {
      guard let name = entry[Field.name] as? String, let destination = entry[Field.destination] as? String,
        let userInfo = (entry[Field.userInfo] ?? [String: String]()) as? [String: String]
      else { return nil }
      var property = NSFetchedPropertyDescription(
        name: name, destinationEntityName: destination, predicateFormat: entry[Field.predicate] as? String)
      property.userInfo = userInfo
      properties.append(property)
    }
    return properties
  }
}

/// An unarchived entity's superentity and subentities, by name, until its model's archive links them.
struct ArchivedFamily: Sendable {
  let superentity: String?
  let subentities: [String]
}
