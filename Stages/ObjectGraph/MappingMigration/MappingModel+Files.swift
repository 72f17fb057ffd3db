import Foundation

extension NSMappingModel {
  /// The mapping model at `url` (Core Data's older `init(contentsOfURL:)`): the same as ``init(contentsOf:)``.
  public convenience init?(contentsOfURL url: URL?) {
    self.init(contentsOf: url)
  }

  /// Loads a mapping model file: a compiled `.cdm` (what Xcode ships in an app) or the `.xcmappingmodel`
  /// folder Xcode's mapping editor saves (its `xcmapping.xml`).
  ///
  /// ```swift
  /// let url = Bundle.module.url(forResource: "V2toV3", withExtension: "cdm")!
  /// let mapping = NSMappingModel(contentsOf: url)
  /// ```
  ///
  /// A `.xcmappingmodel` leaves the expressions of unedited property mappings for the model compiler to write,
  /// from the source model: ObjectGraph writes them as the compiler does, so it needs the two models. This
  /// initializer finds them by the paths the file records (relative to the Xcode project, looked up in the
  /// folders above the `.xcmappingmodel`); when they are elsewhere, use
  /// ``init(contentsOf:sourceModel:destinationModel:)``.
  ///
  /// A mapping that names a policy class (`entityMigrationPolicyClassName`) loads, but the migration manager
  /// refuses it until its ``NSEntityMapping/migrationPolicy`` is set to an instance. A value expression
  /// ObjectGraph cannot evaluate (see ``NSPropertyMapping``) is refused here, naming the entity mapping, the
  /// property and the expression.
  /// - Parameter url: a `.cdm` file, a `.xcmappingmodel` folder or the `xcmapping.xml` inside one.
  /// - Returns: `nil`, as Core Data's does, for a `nil` URL or a mapping model that cannot be loaded: nothing
  ///   at `url`, a damaged file, an entity mapping whose source expression or filter ObjectGraph cannot run, a
  ///   value expression it cannot evaluate, a `.xcmappingmodel` whose models cannot be found, or a mapping
  ///   naming an entity the models lack. The reason, naming the file, is written to standard error as one
  ///   line (`ObjectGraph: error: NSMappingModel(contentsOf:) returned nil: …`), where Core Data logs it.
  public convenience init?(contentsOf url: URL?) {
    guard let url else { return nil }
    do {
      try self.init(loadingContentsOf: url)
    } catch {
      ErrorLog.write("NSMappingModel(contentsOf:) returned nil", error)
      return nil
    }
  }

  /// Loads a mapping model file as ``init(contentsOf:)`` does, throwing what is wrong instead of logging it:
  /// for the workshop's own tools and tests (not public: Core Data has no such initializer).
  /// - Throws: ``ObjectGraphModelInvalidError`` naming the file and what is wrong.
  package convenience init(loadingContentsOf url: URL) throws {
    self.init(entityMappings: try MappingFileReader.read(url, models: nil))
  }

  /// Loads a mapping model file as ``init(contentsOf:)`` does, with the models it maps between, and checks
  /// that every entity it names is in them.
  ///
  /// - Parameters:
  ///   - url: a `.cdm` file, a `.xcmappingmodel` folder or the `xcmapping.xml` inside one.
  ///   - sourceModel: the model the mapping migrates from.
  ///   - destinationModel: the model the mapping migrates to.
  /// - Throws: ``ObjectGraphModelInvalidError`` as ``init(contentsOf:)`` does, and when an entity
  ///   mapping names an entity the models do not have.
  public convenience init(contentsOf url: URL, sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel)
    throws
  {
    self.init(entityMappings: try MappingFileReader.read(url, models: (sourceModel, destinationModel)))
  }

  /// Finds the mapping model among the bundles' resources whose entity version hashes are those of the two
  /// models (Core Data's `NSMappingModel(from:forSourceModel:destinationModel:)`): every entity mapping's
  /// source entity hash must be the source model's hash of that entity, and its destination entity hash the
  /// destination model's.
  ///
  /// The compiled `.cdm` files at the top of each bundle's resources are tried first (what Xcode ships, and
  /// all Core Data looks at): one that matches wins. Then the `.xcmappingmodel` folders there, which a Swift
  /// package on Linux may ship instead: their hashes are those of the models each records (its source and
  /// destination model paths, found as ``init(contentsOf:)`` finds them), so one made for other versions does
  /// not match.
  ///
  /// - Parameters:
  ///   - bundles: where to look; `nil` for the main bundle.
  ///   - sourceModel: the model to migrate from.
  ///   - destinationModel: the model to migrate to.
  /// - Returns: `nil` when no mapping model in the bundles matches (or a model is `nil`), and, as Core Data's
  ///   does, when a `.cdm` in the bundles cannot be read, when the mapping model that matches has a value
  ///   expression ObjectGraph cannot evaluate, or when none matches and a `.xcmappingmodel` could not be read
  ///   (its models not found beside it, say); the reason for those, naming the file (and the entity mapping,
  ///   property and expression), is written to standard error as one line, where Core Data logs it.
  public convenience init?(
    from bundles: [Bundle]?, forSourceModel sourceModel: NSManagedObjectModel?, destinationModel: NSManagedObjectModel?
  ) {
    guard let sourceModel, let destinationModel else { return nil }
    let found: NSMappingModel?
    do {
      found = try Self.matching(in: bundles ?? [Bundle.main], source: sourceModel, destination: destinationModel)
    } catch {
      ErrorLog.write("NSMappingModel(from:forSourceModel:destinationModel:) returned nil", error)
      return nil
    }
    guard let found else { return nil }
    self.init(entityMappings: found.entityMappings)
  }

  /// The mapping model in `bundles` made for the two models, under the Swift name Apple's SDK gives
  /// `mappingModelFromBundles:forSourceModel:destinationModel:` (Core Data's
  /// `init?(fromBundles:forSourceModel:destinationModel:)`): the same search, and the same `nil`s, as
  /// ``init(from:forSourceModel:destinationModel:)``.
  public convenience init?(
    fromBundles bundles: [Bundle]?, forSourceModel sourceModel: NSManagedObjectModel?, destinationModel: NSManagedObjectModel?
  ) {
    self.init(from: bundles, forSourceModel: sourceModel, destinationModel: destinationModel)
  }

  /// The mapping model in `bundles` made for `source` and `destination`, as
  /// ``init(from:forSourceModel:destinationModel:)`` finds it, throwing what that initializer logs: a container
  /// opening a store must fail on a mapping model it cannot read, not fall back to inference.
  static func matching(in bundles: [Bundle], source: NSManagedObjectModel, destination: NSManagedObjectModel) throws
    -> NSMappingModel?
  {
    let folders = bundles.map { $0.resourceURL ?? $0.bundleURL }
    return try MappingFileSearch.find(in: folders, source: source, destination: destination).map {
      NSMappingModel(entityMappings: $0)
    }
  }
}

extension NSMappingModel: Equatable {
  /// Mapping models are equal when their entity mappings are, in order: the same names, types, entity
  /// names, policy class names, source predicates (by format) and property mappings (by destination name and
  /// expression text; closures cannot be compared and are ignored). Version hashes and user info are not
  /// compared: a `.xcmappingmodel` and the `.cdm` compiled from it are equal.
  public static func == (lhs: NSMappingModel, rhs: NSMappingModel) -> Bool {
    guard lhs.entityMappings.count == rhs.entityMappings.count else { return false }
    func properties(_ mappings: [NSPropertyMapping]) -> [[String?]] { mappings.map { [$0.name, $0.valueExpression] } }
    return zip(lhs.entityMappings, rhs.entityMappings).allSatisfy { a, b in
      a.name == b.name && a.mappingType == b.mappingType && a.sourceEntityName == b.sourceEntityName
        && a.destinationEntityName == b.destinationEntityName
        && a.entityMigrationPolicyClassName == b.entityMigrationPolicyClassName
        && a.sourcePredicate?.description == b.sourcePredicate?.description
        && properties(a.attributeMappings) == properties(b.attributeMappings)
        && properties(a.relationshipMappings) == properties(b.relationshipMappings)
    }
  }
}
