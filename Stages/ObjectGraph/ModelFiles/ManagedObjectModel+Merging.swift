import Foundation

/// Merged models: one model made of several (typically an app's and its frameworks'), as Core Data's
/// `init(byMerging:)` and `mergedModel(from:)` make them.
///
/// ```swift
/// let model = NSManagedObjectModel.mergedModel(from: [.module])   // every model in the bundle, in one
/// ```
extension NSManagedObjectModel {
  /// A model holding the entities of every model of `models`: Core Data's `init(byMerging:)`, "to combine
  /// multiple models (typically from different frameworks) into one".
  ///
  /// The merged model has its own copies of the entities (the models given are not changed and may already be
  /// in use), their classes, the models' configurations (those of one name joined), fetch request templates and
  /// version identifiers. `nil` or an empty array gives an empty model. A model given twice, an entity that two models
  /// both have with the same version hash, or a template of one name, entity and predicate, is taken once.
  ///
  /// Returns `nil` when two models have different entities of one name, or fetch request templates of one name
  /// (Core Data raises an exception: "Can't merge models with two different entities named …"), or when the
  /// entities do not make a model together; a line on standard error says why, as ``init(contentsOf:)`` does.
  public convenience init?(byMerging models: [NSManagedObjectModel]?) {
    do {
      let merged = try Self.merge(models ?? [])
      try self.init(
        entities: merged.entities, versionIdentifiers: merged.versionIdentifiers, configurations: merged.configurations,
        fetchRequestTemplates: merged.templates, sourceURL: nil)
    } catch {
      ErrorLog.write("NSManagedObjectModel(byMerging:) returned nil", error)
      return nil
    }
  }

  /// Core Data's `init(byMergingModels:)`, the Objective-C name of ``init(byMerging:)``.
  public convenience init?(byMergingModels models: [NSManagedObjectModel]?) {
    self.init(byMerging: models)
  }

  /// The model merged from those of `models` that a store described by `metadata` was made with: Core Data's
  /// `init(byMerging:forStoreMetadata:)`, "for the version information in metadata".
  ///
  /// Every version of every model may be given: the models whose every entity's version hash is the one the
  /// metadata records (`NSStoreModelVersionHashes`) are merged, and the result is the model when the store's
  /// entities are exactly its entities; otherwise `nil` (no version matches the store, or the store has entities
  /// none of the models has).
  public convenience init?(byMerging models: [NSManagedObjectModel], forStoreMetadata metadata: [String: Any]) {
    guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Data] else { return nil }
    let matching = models.filter { model in
      !model.entities.isEmpty && model.entities.allSatisfy { stored[$0.entityName] == $0.versionHash }
    }
    guard !matching.isEmpty else { return nil }
    self.init(byMerging: matching)
    guard isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) else { return nil }
  }

  /// Core Data's `init(byMergingModels:forStoreMetadata:)`, the Objective-C name of
  /// ``init(byMerging:forStoreMetadata:)``.
  public convenience init?(byMergingModels models: [NSManagedObjectModel], forStoreMetadata metadata: [String: Any]) {
    self.init(byMerging: models, forStoreMetadata: metadata)
  }

  /// A model made by merging every model in `bundles` (`nil`: the main bundle): Core Data's
  /// `mergedModel(from:)`.
  ///
  /// A model in a bundle is a compiled `.momd` or `.mom` (as Xcode ships them in an app), or an `.xcdatamodeld`
  /// or `.xcdatamodel` (as SwiftPM copies them into a package's resource bundle), at the bundle's top level;
  /// of a model with versions, its current version. A model found as both `.momd` and `.xcdatamodeld` is taken
  /// once (the `.momd`, as ``NSPersistentContainer`` prefers it).
  ///
  /// Returns `nil` when the bundles hold no model, when one cannot be read, or when the models cannot be merged
  /// (see ``init(byMerging:)``); a line on standard error says why.
  public class func mergedModel(from bundles: [Bundle]?) -> NSManagedObjectModel? {
    do {
      let files = modelFiles(in: bundles ?? [.main])
      guard !files.isEmpty else {
        throw ObjectGraphError(
          .modelInvalid,
          "No model (.momd, .mom, .xcdatamodeld, .xcdatamodel) in the bundles at \((bundles ?? [.main]).map(\.bundleURL.path)). With SwiftPM, list the model in the target's resources and pass [.module]."
        )
      }
      let models = try files.map { try NSManagedObjectModel(loadingContentsOf: $0) }
      return NSManagedObjectModel(byMerging: models)
    } catch {
      ErrorLog.write("NSManagedObjectModel.mergedModel(from:) returned nil", error)
      return nil
    }
  }

  /// The model, merged from the models in `bundles` (`nil`: the main bundle), that a store described by
  /// `metadata` was made with: Core Data's `mergedModel(from:forStoreMetadata:)`.
  ///
  /// Every version of every model in the bundles is tried (see ``mergedModel(from:)`` for what a model in a
  /// bundle is): of each model, the version whose entities' hashes the metadata records, merged as
  /// ``init(byMerging:forStoreMetadata:)`` merges them. `nil` when no such model can be made.
  public class func mergedModel(from bundles: [Bundle]?, forStoreMetadata metadata: [String: Any])
    -> NSManagedObjectModel?
  {
    var versions: [NSManagedObjectModel] = []
    for file in modelFiles(in: bundles ?? [.main]) {
      do {
        versions += try NSManagedObjectModel.versions(in: file).map(\.model)
      } catch {
        ErrorLog.write("NSManagedObjectModel.mergedModel(from:forStoreMetadata:) skipped a model", error)
      }
    }
    return NSManagedObjectModel(byMerging: versions, forStoreMetadata: metadata)
  }

  /// The model files at the top level of `bundles`, one per model name and bundle, in a stable order.
  static func modelFiles(in bundles: [Bundle]) -> [URL] {
    var files: [URL] = []
    for bundle in bundles {
      var names: Set<String> = []
      for fileExtension in ["momd", "xcdatamodeld", "mom", "xcdatamodel"] {
        // Linux's Foundation answers `NSURL`s here, Apple's `URL`s: read each by its path.
        let urls = (bundle.urls(forResourcesWithExtension: fileExtension, subdirectory: nil) ?? [])
          .compactMap { ($0 as NSURL).path.map { URL(fileURLWithPath: $0) } }
          .sorted { $0.lastPathComponent < $1.lastPathComponent }
        for url in urls where names.insert(url.deletingPathExtension().lastPathComponent).inserted {
          files.append(url)
        }
      }
    }
    return files
  }

  /// The parts of a merged model: copies of the entities of `models`, and what else the models hold.
  private static func merge(_ models: [NSManagedObjectModel]) throws -> (
    entities: [NSEntityDescription], versionIdentifiers: Set<String>, configurations: [String: [String]],
    templates: [FetchRequestTemplate]
  ) {
    var entities: [NSEntityDescription] = []
    var hashes: [String: Data] = [:]
    var identifiers: Set<String> = []
    var configurations: [String: [String]] = [:]
    var templates: [String: FetchRequestTemplate] = [:]
    var seen: Set<ObjectIdentifier> = []
    for model in models where seen.insert(ObjectIdentifier(model)).inserted {
      if let problem = model.resolutionError { throw problem }
      // A copy through the model's own file format: every description the writer keeps, none shared.
      let copy = try NSManagedObjectModel.fromXcodeContents(
        XcodeModelWriter.contents(of: model), origin: "a copy of the model \(model) to merge")
      let originals = model.entitiesByName
      for entity in copy.entities {
        if let known = hashes[entity.entityName] {
          guard known == entity.versionHash else {
            throw ObjectGraphError(
              .modelInvalid,
              "Two models to merge have different entities named '\(entity.entityName)'. Rename one, or merge only one of them."
            )
          }
          continue
        }
        hashes[entity.entityName] = entity.versionHash
        entity.entityClass = originals[entity.entityName]?.entityClass
        if let original = originals[entity.entityName] {
          // What Xcode's format cannot hold: fetched properties' whole requests (sort descriptors, limits) and
          // validation predicates (set in code, or read from a compiled model).
          entity.fetchedProperties = original.fetchedProperties
          let rules = Dictionary(original.ownProperties.map { ($0.name, $0.validationRules) }, uniquingKeysWith: { first, _ in first })
          for property in entity.ownProperties {
            if let kept = rules[property.name], !kept.isEmpty { property.validationRules = kept }
          }
        }
        entities.append(entity)
      }
      identifiers.formUnion(model.versionIdentifiers)
      for (name, members) in model.state.read(\.configurations) {
        configurations[name, default: []] += members.filter { !(configurations[name] ?? []).contains($0) }
      }
      for template in model.fetchRequestTemplates {
        if let known = templates[template.name] {
          if known.entityName == template.entityName && known.predicateFormat == template.predicateFormat { continue }
          throw ObjectGraphError(
            .modelInvalid,
            "Two models to merge have different fetch request templates named '\(template.name)'. Rename one.")
        }
        templates[template.name] = template
      }
    }
    // The copies' relationships still point at the copied models' entities: a merged model resolves them by name.
    return (entities, identifiers, configurations, templates.values.sorted { $0.name < $1.name })
  }
}
