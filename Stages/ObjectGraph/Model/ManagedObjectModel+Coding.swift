import Foundation

/// Models archive themselves, as Core Data's do (`NSManagedObjectModel` is `NSSecureCoding`): the archive
/// holds every entity (each an entity's archive, with its properties), the inheritance between them, the
/// configurations, the fetch request templates, the version identifiers and the localization dictionary.
/// An unarchived model is made as ``init(entities:)`` makes one: relationships are resolved by name, and
/// it equals the original (``isEqual(_:)``: the same entity version hashes and configurations), so a store
/// saved with one opens with the other.
///
/// ```swift
/// let data = try NSKeyedArchiver.archivedData(withRootObject: model, requiringSecureCoding: true)
/// let copy = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSManagedObjectModel.self, from: data)
/// ```
///
/// Not archived, as in Core Data: the model's ``sourceURL`` and load warnings. A fetch request template keeps
/// its entity, predicate and flags (what a model file holds of it); the sort descriptors and other settings of
/// a template set in code with a request are not archived.
extension NSManagedObjectModel: NSSecureCoding {
  private enum Key {
    static let entities = "NSEntities"
    static let versionIdentifiers = "NSVersionIdentifiers"
    static let configurations = "NSConfigurations"
    static let templates = "NSFetchRequestTemplates"
    static let localization = "NSLocalizationDictionary"
  }

  private enum Field {
    static let name = "name"
    static let entity = "entity"
    static let predicate = "predicate"
    static let fetchLimit = "fetchLimit"
    static let fetchBatchSize = "fetchBatchSize"
    static let flags = "flags"
  }

  /// `true`: models decode with `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`.
  public static var supportsSecureCoding: Bool { true }

  /// Archives the model whole: entities, configurations, templates, version identifiers.
  public func encode(with coder: NSCoder) {
    let state = state.value
    coder.encode(NSArray(array: state.entities), forKey: Key.entities)
    coder.encodeTexts(state.versionIdentifiers.sorted(), forKey: Key.versionIdentifiers)
    let configurations = NSMutableDictionary()
    for (name, entities) in state.configurations {
      configurations[NSString(string: name)] = NSArray(array: entities.map { NSString(string: $0) })
    }
    coder.encode(configurations, forKey: Key.configurations)
    let templates = NSMutableArray()
    for template in state.fetchRequestTemplates {
      let entry = NSMutableDictionary()
      entry[Field.name] = NSString(string: template.name)
      entry[Field.entity] = NSString(string: template.entityName)
      if let format = template.predicateFormat { entry[Field.predicate] = NSString(string: format) }
      entry[Field.fetchLimit] = NSNumber(value: template.fetchLimit)
      entry[Field.fetchBatchSize] = NSNumber(value: template.fetchBatchSize)
      entry[Field.flags] = NSArray(array: Self.flags(of: template).map { NSNumber(value: $0) })
      templates.add(entry)
    }
    coder.encode(templates, forKey: Key.templates)
    if let localization = state.localizationDictionary {
      coder.encodeTextDictionary(localization, forKey: Key.localization)
    }
  }

  /// Reads a model back from an archive made by ``encode(with:)``, with its entities linked and resolved;
  /// `nil` (and the unarchiver's error) when the archive is not a model's, or its entities do not make one
  /// (the error then says why, as ``init(entities:)``'s would).
  public convenience init?(coder: NSCoder) {
    guard let entities = coder.decodeArchivedObjects(of: NSEntityDescription.self, forKey: Key.entities) else {
      if coder.error == nil { coder.failDecoding("a model", "its entities (\(Key.entities)) are not entities") }
      return nil
    }
    guard let identifiers = coder.decodeTexts(forKey: Key.versionIdentifiers),
      let configurations = (coder.decodeValue(forKey: Key.configurations) ?? [String: [String]]()) as? [String: [String]],
      let templates = Self.decodedTemplates(coder.decodeValue(forKey: Key.templates))
    else {
      coder.failDecoding("a model", "its version identifiers, configurations or fetch request templates are malformed")
      return nil
    }
    let localization = coder.containsValue(forKey: Key.localization) ? coder.decodeTextDictionary(forKey: Key.localization) : nil
    Self.link(entities)
    do {
      try self.init(
        entities: entities, versionIdentifiers: Set(identifiers), configurations: configurations,
        fetchRequestTemplates: templates, sourceURL: nil)
    } catch {
      coder.failDecoding("a model", "its entities do not make a model: \(error.localizedDescription)")
      return nil
    }
    if let localization { state.write(\.localizationDictionary, localization, what: "model") }
  }

  /// Sets each unarchived entity's subentities from the names its archive holds.
  private static func link(_ entities: [NSEntityDescription]) {
    let byName = Dictionary(entities.map { ($0.entityName, $0) }, uniquingKeysWith: { first, _ in first })
    for entity in entities {
      guard let family = entity.archivedFamily, !family.subentities.isEmpty else { continue }
      entity.subentities = family.subentities.compactMap { byName[$0] }
    }
  }

  /// A template's flags, in a fixed order.
  private static func flags(of template: FetchRequestTemplate) -> [Bool] {
    [
      template.includesSubentities, template.includesPropertyValues, template.includesPendingChanges,
      template.returnsObjectsAsFaults, template.returnsDistinctResults,
    ]
  }

  private static func decodedTemplates(_ value: Any?) -> [FetchRequestTemplate]? {
    guard let value else { return [] }
    guard let entries = value as? [[String: Any]] else { return nil }
    var templates: [FetchRequestTemplate] = []
    for entry in entries {
      guard let name = entry[Field.name] as? String, let entity = entry[Field.entity] as? String,
        let limit = entry[Field.fetchLimit] as? NSNumber, let batch = entry[Field.fetchBatchSize] as? NSNumber,
        let flags = (entry[Field.flags] as? [NSNumber])?.map(\.boolValue), flags.count == 5
      else { return nil }
      var template = FetchRequestTemplate(name: name, entityName: entity, predicateFormat: entry[Field.predicate] as? String)
      template.fetchLimit = limit.intValue
      template.fetchBatchSize = batch.intValue
      template.includesSubentities = flags[0]
      template.includesPropertyValues = flags[1]
      template.includesPendingChanges = flags[2]
      template.returnsObjectsAsFaults = flags[3]
      template.returnsDistinctResults = flags[4]
      templates.append(template)
    }
    return templates
  }
}
