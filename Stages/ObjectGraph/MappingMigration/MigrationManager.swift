import Foundation

/// Migrates a store to a new store file with an ``NSMappingModel``: the
/// explicit ("heavyweight") migration, for changes a lightweight migration cannot infer, such as an
/// attribute whose type changes or one attribute split into two.
///
/// ``migrateStore(from:type:options:mapping:to:type:options:)`` opens the source store read-only, makes a
/// new store at the destination, runs Core Data's three phases (create the destination instances, create
/// their relationships, validate and save) over the entity mappings, and closes both stores. Then the app
/// puts the new file in place (``NSPersistentStoreCoordinator/replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)``)
/// or opens it where it is.
///
/// ```swift
/// let manager = NSMigrationManager(sourceModel: v1, destinationModel: v2)
/// try manager.migrateStore(
///   from: storeURL, type: .sqlite, mapping: mapping, to: migratedURL, type: .sqlite)
/// try coordinator.replacePersistentStore(at: storeURL, withPersistentStoreFrom: migratedURL, type: .sqlite)
/// try coordinator.destroyPersistentStore(at: migratedURL, type: .sqlite)
/// ```
///
/// Managed objects are not `Sendable`: the whole migration runs on the calling thread, inside the two
/// contexts' `performAndWait`, and a manager is used from one thread at a time.
public final class NSMigrationManager {
  /// The model the source store was made with.
  public let sourceModel: NSManagedObjectModel
  /// The model the destination store is made with.
  public let destinationModel: NSManagedObjectModel
  /// The mapping model of the migration running or last run (empty before the first).
  public var mappingModel: NSMappingModel { run.mapping }
  /// The context that reads the source store during a migration.
  public private(set) var sourceContext: NSManagedObjectContext
  /// The context that writes the destination store during a migration.
  public private(set) var destinationContext: NSManagedObjectContext
  /// The entity mapping being run, or `nil` between migrations.
  public var currentEntityMapping: NSEntityMapping? { run.currentEntityMapping }
  /// How far the migration has come, from 0 to 1 (1 once the destination is saved and closed).
  public var migrationProgress: Float { run.progress }
  /// Anything the app's policies want to share during a migration (Core Data's `userInfo`).
  public var userInfo: [String: Any] = [:]
  /// Whether the manager tries to use a store-specific migration manager (Core Data's
  /// `usesStoreSpecificMigrationManager`, `true` by default). ObjectGraph has none: its stores have no
  /// migration manager of their own (a SQLite store's lightweight migration runs in place when the store is
  /// added, not through a manager), so this manager always migrates through its two contexts, calls every
  /// policy method and updates ``migrationProgress``, whatever the value.
  public var usesStoreSpecificMigrationManager = true

  /// What the migration running (or last run) knows: a new one for each ``migrateStore(from:type:options:mapping:to:type:options:)``.
  private var run = MigrationRun(mapping: NSMappingModel())

  /// Makes a manager that migrates stores of `sourceModel` to `destinationModel`.
  public init(sourceModel: NSManagedObjectModel, destinationModel: NSManagedObjectModel) {
    self.sourceModel = sourceModel
    self.destinationModel = destinationModel
    sourceContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    destinationContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
  }

  // MARK: - Associations

  /// Resets the association tables for the migration (Core Data's `reset()`): every source instance
  /// forgets the destination instances ``associate(sourceInstance:withDestinationInstance:for:)`` recorded
  /// for it, so ``destinationInstances(forEntityMappingName:sourceInstances:)`` and
  /// ``sourceInstances(forEntityMappingName:destinationInstances:)`` find none until new ones are recorded.
  /// As Apple documents, the source and destination contexts are not reset.
  public func reset() {
    run.associations = [:]
  }

  /// Records that `destination` was made from `source` by `entityMapping`, for the lookups below and for
  /// phase 2 (which sets the relationships of each destination instance a mapping associated).
  public func associate(
    sourceInstance source: NSManagedObject, withDestinationInstance destination: NSManagedObject, for entityMapping: NSEntityMapping
  ) {
    var entry = run.associations[entityMapping.name] ?? MigrationRun.Associations()
    let sourceKey = ObjectIdentifier(source)
    let destinationKey = ObjectIdentifier(destination)
    if entry.destinationsBySource[sourceKey] == nil { entry.sources.append(source) }
    if entry.sourcesByDestination[destinationKey] == nil { entry.destinations.append(destination) }
    entry.destinationsBySource[sourceKey, default: []].append(destination)
    entry.sourcesByDestination[destinationKey, default: []].append(source)
    run.associations[entityMapping.name] = entry
  }

  /// The destination instances the mapping named `mappingName` made from `sourceInstances`, in order
  /// (source instances it did not migrate give none); all it made when `sourceInstances` is `nil`.
  public func destinationInstances(forEntityMappingName mappingName: String, sourceInstances: [NSManagedObject]?) -> [NSManagedObject] {
    guard let entry = run.associations[mappingName] else { return [] }
    guard let sourceInstances else { return entry.destinations }
    return sourceInstances.flatMap { entry.destinationsBySource[ObjectIdentifier($0)] ?? [] }
  }

  /// The source instances the mapping named `mappingName` made `destinationInstances` from; all it
  /// migrated when `destinationInstances` is `nil`.
  public func sourceInstances(forEntityMappingName mappingName: String, destinationInstances: [NSManagedObject]?) -> [NSManagedObject] {
    guard let entry = run.associations[mappingName] else { return [] }
    guard let destinationInstances else { return entry.sources }
    return destinationInstances.flatMap { entry.sourcesByDestination[ObjectIdentifier($0)] ?? [] }
  }

  /// The destination instances any mapping made from `sourceInstances`: for relationships to an entity
  /// with subentities, whose instances several mappings migrate.
  func destinationInstancesInAnyMapping(for sourceInstances: [NSManagedObject]) -> [NSManagedObject] {
    sourceInstances.flatMap { source in
      mappingModel.entityMappings.flatMap { run.associations[$0.name]?.destinationsBySource[ObjectIdentifier(source)] ?? [] }
    }
  }

  /// Core Data's `destinationInstancesForSourceRelationshipNamed:sourceInstances:`: the destination instances
  /// made from `sourceInstances` by the mappings whose source entity is the destination entity of the
  /// relationship `name` of `mapping`'s source entity, or one of its subentities.
  func destinationInstances(
    forSourceRelationshipNamed name: String, of mapping: NSEntityMapping, sourceInstances: [NSManagedObject]
  ) -> [NSManagedObject] {
    guard let target = sourceEntity(for: mapping)?.relationshipsByName[name]?.destinationEntity else {
      return destinationInstancesInAnyMapping(for: sourceInstances)
    }
    let entities = Set(target.selfAndDescendants.map(\.name))
    let mappings = mappingModel.entityMappings.filter { $0.sourceEntityName.map(entities.contains) ?? false }
    return sourceInstances.flatMap { source in
      mappings.flatMap { run.associations[$0.name]?.destinationsBySource[ObjectIdentifier(source)] ?? [] }
    }
  }

  /// The source model's entity that `mapping` migrates, or `nil`.
  public func sourceEntity(for mapping: NSEntityMapping) -> NSEntityDescription? {
    mapping.sourceEntityName.flatMap { sourceModel.entitiesByName[$0] }
  }

  /// The destination model's entity that `mapping` makes, or `nil`.
  public func destinationEntity(for mapping: NSEntityMapping) -> NSEntityDescription? {
    mapping.destinationEntityName.flatMap { destinationModel.entitiesByName[$0] }
  }

  /// Stops the running migration at the end of the current step, which then throws error 134110 with
  /// `error` as its underlying error. Call it from a policy.
  public func cancelMigrationWithError(_ error: any Error) {
    if run.cancellation == nil { run.cancellation = error }
  }

  // MARK: - Migrating

  /// Migrates the store at `sourceURL` into a new store at `destinationURL`, as `mapping` says (Core Data's
  /// `migrateStore(from:type:options:mapping:to:type:options:)`).
  ///
  /// The source is opened read-only and never changed. The destination must not exist: it is made with the
  /// destination model and, when the migration fails, removed with its side files.
  /// - Throws: ``NSMigrationMissingSourceModelError`` (134130) when the source store was not
  ///   made with ``sourceModel``; ``NSPersistentStoreInvalidTypeError`` for a type other than
  ///   SQLite; ``NSMigrationError`` (134110) for everything else (an existing destination, an
  ///   expression that cannot be read, an error thrown by a policy, a cancellation, a validation failure),
  ///   naming the entity mapping and what happened.
  public func migrateStore(
    from sourceURL: URL, type sourceType: NSPersistentStore.StoreType, options sourceOptions: [AnyHashable: Any]? = nil,
    mapping: NSMappingModel,
    to destinationURL: URL, type destinationType: NSPersistentStore.StoreType, options destinationOptions: [AnyHashable: Any]? = nil
  ) throws {
    try migrateStore(
      from: sourceURL, type: sourceType, parsed: StoreOptions(dictionary: sourceOptions), mapping: mapping,
      to: destinationURL, type: destinationType, parsed: StoreOptions(dictionary: destinationOptions))
  }

  /// Migrates the store at `sourceURL` into a new store at `dURL`, the store types named by strings (Core
  /// Data's older `migrateStore(from:sourceType:options:with:toDestinationURL:destinationType:destinationOptions:)`);
  /// as `migrateStore(from:type:options:mapping:to:type:options:)`.
  ///
  /// - Parameters:
  ///   - sourceURL: the store to migrate, left as it is.
  ///   - sStoreType: its type (`NSSQLiteStoreType`, ...).
  ///   - sOptions: the options it is opened with.
  ///   - mappings: the mapping model; `nil` migrates with the mapping inferred between
  ///     ``sourceModel`` and ``destinationModel`` (``NSMappingModel/inferredMappingModel(forSourceModel:destinationModel:)``).
  ///   - dURL: where the new store is written.
  ///   - dStoreType: its type.
  ///   - dOptions: the options it is made with.
  /// - Throws: as `migrateStore(from:type:options:mapping:to:type:options:)`, and
  ///   ``NSMigrationMissingMappingModelError`` when `mappings` is `nil` and no mapping can be inferred
  ///   (nothing is changed then).
  public func migrateStore(
    from sourceURL: URL, sourceType sStoreType: String, options sOptions: [AnyHashable: Any]? = nil,
    with mappings: NSMappingModel?, toDestinationURL dURL: URL, destinationType dStoreType: String,
    destinationOptions dOptions: [AnyHashable: Any]? = nil
  ) throws {
    let mapping =
      try mappings ?? NSMappingModel.inferredMappingModel(forSourceModel: sourceModel, destinationModel: destinationModel)
    try migrateStore(
      from: sourceURL, type: NSPersistentStore.StoreType(rawValue: sStoreType), options: sOptions, mapping: mapping,
      to: dURL, type: NSPersistentStore.StoreType(rawValue: dStoreType), options: dOptions)
  }

  /// Migrates with options the engine has parsed: the work of both public forms.
  func migrateStore(
    from sourceURL: URL, type sourceType: NSPersistentStore.StoreType, parsed sourceOptions: StoreOptions,
    mapping: NSMappingModel, to destinationURL: URL, type destinationType: NSPersistentStore.StoreType,
    parsed destinationOptions: StoreOptions
  ) throws {
    guard sourceType == .sqlite, destinationType == .sqlite else {
      throw ObjectGraphError(
        .persistentStoreInvalidType, "A migration manager migrates SQLite stores: both store types must be .sqlite.")
    }
    run = MigrationRun(mapping: mapping)
    defer { run.currentEntityMapping = nil }
    let fileManager = FileManager.default
    guard fileManager.fileExists(atPath: sourceURL.path) else {
      throw failure("There is no store at \(sourceURL.path) to migrate. Nothing was changed.", url: sourceURL)
    }
    let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: sourceURL)
    guard sourceModel.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) else {
      throw ObjectGraphError(
        .migrationMissingSourceModel,
        "The store at \(sourceURL.path) was not made with the migration manager's source model (their entity version hashes differ). Make the manager with the model that made the store. Nothing was changed.",
        url: sourceURL)
    }
    let sideFiles = ["", "-wal", "-shm", "-journal"].map { URL(fileURLWithPath: destinationURL.path + $0) }
    if let existing = sideFiles.first(where: { fileManager.fileExists(atPath: $0.path) }) {
      throw failure(
        "The destination \(existing.path) exists; a migration makes a new store and does not overwrite one. Destroy it first (destroyPersistentStore(at:type:options:)) or choose another URL. Nothing was changed.",
        url: destinationURL)
    }
    do {
      try check(mapping)
    } catch let error as ObjectGraphError {
      throw ObjectGraphError(.migration, "\(error.message) Nothing was changed.", url: sourceURL)
    }

    var options = sourceOptions
    options.readOnly = true
    options.migratePersistentStoresAutomatically = false
    let sourceCoordinator = NSPersistentStoreCoordinator(managedObjectModel: sourceModel)
    let sourceStore = try sourceCoordinator.addPersistentStore(type: .sqlite, at: sourceURL, options: options)
    defer { try? sourceCoordinator.remove(sourceStore) }
    sourceContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    sourceContext.persistentStoreCoordinator = sourceCoordinator

    let destinationCoordinator = NSPersistentStoreCoordinator(managedObjectModel: destinationModel)
    var destinationStore: NSPersistentStore?
    do {
      destinationStore = try destinationCoordinator.addPersistentStore(type: .sqlite, at: destinationURL, options: destinationOptions)
      destinationContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      destinationContext.persistentStoreCoordinator = destinationCoordinator
      try sourceContext.performAndWait {
        try destinationContext.performAndWait { try runPhases(sourceURL: sourceURL) }
      }
      if let destinationStore { try destinationCoordinator.remove(destinationStore) }
      destinationStore = nil
    } catch {
      if let destinationStore { try? destinationCoordinator.remove(destinationStore) }
      destinationContext = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      for file in sideFiles { try? fileManager.removeItem(at: file) }
      let suffix = "The source store was left untouched and the destination's files were removed."
      if let error = error as? ObjectGraphError, error.code == .migration {
        throw ObjectGraphError(
          .migration, "\(error.message) \(suffix)", url: destinationURL, underlyingError: error.underlyingError)
      }
      throw ObjectGraphError(
        .migration, "Making the destination store at \(destinationURL.path) failed: \(error) \(suffix)", url: destinationURL,
        underlyingError: error)
    }
    run.progress = 1
  }

  /// The three phases, on the contexts' queue.
  private func runPhases(sourceURL: URL) throws {
    let mappings = mappingModel.entityMappings.filter(\.migratesInstances)
    var sources: [[NSManagedObject]] = []
    for mapping in mappings {
      sources.append(try step(mapping, "fetching its source instances") { try fetchSources(for: mapping) })
    }
    run.unitsTotal = 2 * sources.reduce(0) { $0 + $1.count } + mappings.count + 1
    for (mapping, instances) in zip(mappings, sources) {
      try step(mapping, "begin(_:with:)") { try mapping.migrationPolicy.begin(mapping, with: self) }
      for source in instances {
        try step(mapping, "createDestinationInstances(forSource:in:manager:)") {
          try mapping.migrationPolicy.createDestinationInstances(forSource: source, in: mapping, manager: self)
        }
        advance()
      }
      try step(mapping, "endInstanceCreation(forMapping:manager:)") {
        try mapping.migrationPolicy.endInstanceCreation(forMapping: mapping, manager: self)
      }
    }
    for (mapping, instances) in zip(mappings, sources) {
      let destinations = destinationInstances(forEntityMappingName: mapping.name, sourceInstances: nil)
      for destination in destinations {
        try step(mapping, "createRelationships(forDestination:in:manager:)") {
          try mapping.migrationPolicy.createRelationships(forDestination: destination, in: mapping, manager: self)
        }
      }
      run.unitsDone += instances.count
      report()
      try step(mapping, "endRelationshipCreation(forMapping:manager:)") {
        try mapping.migrationPolicy.endRelationshipCreation(forMapping: mapping, manager: self)
      }
    }
    for mapping in mappings {
      try step(mapping, "performCustomValidation(forMapping:manager:)") {
        try mapping.migrationPolicy.performCustomValidation(forMapping: mapping, manager: self)
      }
      advance()
    }
    for mapping in mappings {
      try step(mapping, "end(_:manager:)") { try mapping.migrationPolicy.end(mapping, manager: self) }
    }
    run.currentEntityMapping = nil
    do {
      try destinationContext.save()
    } catch {
      throw failure(
        "Validating and saving the destination failed\(culprit(of: error, in: mappings)): \(error)", url: nil, underlying: error)
    }
    advance()
  }

  /// Names the mapping whose destination entity a validation error names, when one does.
  private func culprit(of error: any Error, in mappings: [NSEntityMapping]) -> String {
    let text = "\(error)"
    let names = mappings.filter { mapping in
      mapping.destinationEntityName.map { text.contains("\($0).") || text.contains("\($0) ") } ?? false
    }.map { "'\($0.name)'" }
    return names.isEmpty ? "" : " (objects made by entity mapping \(names.joined(separator: ", ")))"
  }

  /// Runs one step of `mapping`, turning what it throws (or a cancellation it asked for) into 134110.
  @discardableResult
  private func step<T>(_ mapping: NSEntityMapping, _ what: String, _ body: () throws -> T) throws -> T {
    run.currentEntityMapping = mapping
    let result: T
    do {
      result = try body()
    } catch let error as ObjectGraphError where error.code == .migration {
      throw error
    } catch {
      throw failure("Entity mapping '\(mapping.name)' failed in \(what): \(error)", url: nil, underlying: error)
    }
    if let cancellation = run.cancellation {
      throw failure(
        "Entity mapping '\(mapping.name)' cancelled the migration in \(what): \(cancellation)", url: nil, underlying: cancellation)
    }
    return result
  }

  private func advance() {
    run.unitsDone += 1
    report()
  }

  private func report() {
    run.progress = min(Float(run.unitsDone) / Float(max(run.unitsTotal, 1)), 1)
  }

  /// The source instances of `mapping`: the value of the source expression set on it, or its source entity's
  /// own instances (not its subentities', which have their own mappings) that match its predicate.
  private func fetchSources(for mapping: NSEntityMapping) throws -> [NSManagedObject] {
    if let expression = mapping.customSourceExpression { return try sources(of: expression, for: mapping) }
    guard let name = mapping.sourceEntityName else { return [] }
    let request = NSFetchRequest<NSManagedObject>(entityName: name)
    request.includesSubentities = false
    request.predicate = mapping.sourcePredicate
    return try sourceContext.fetch(request)
  }

  /// A 134110 error; ``migrateStore(from:type:options:mapping:to:type:options:)`` adds what became of the
  /// files.
  private func failure(_ message: String, url: URL?, underlying: (any Error)? = nil) -> ObjectGraphError {
    ObjectGraphError(.migration, message, url: url, underlyingError: underlying)
  }

  // MARK: - Checking the mapping model before anything is made

  /// Refuses a mapping model whose names or expressions the manager cannot use, before the destination is
  /// made.
  private func check(_ mapping: NSMappingModel) throws {
    var seen = Set<String>()
    for entityMapping in mapping.entityMappings {
      let name = entityMapping.name
      guard seen.insert(name).inserted else {
        throw failure("Two entity mappings are named '\(name)'; give each its own name.", url: nil)
      }
      if let sourceName = entityMapping.sourceEntityName, sourceModel.entitiesByName[sourceName] == nil {
        throw failure("Entity mapping '\(name)' names source entity '\(sourceName)', which the source model does not have.", url: nil)
      }
      guard entityMapping.migratesInstances else { continue }
      if let className = entityMapping.entityMigrationPolicyClassName,
        type(of: entityMapping.migrationPolicy) == NSEntityMigrationPolicy.self
      {
        throw failure(
          "Entity mapping '\(name)' names the migration policy class '\(className)', which ObjectGraph cannot make from "
            + "its name (Swift on Linux has no run-time class lookup). Set the mapping's migrationPolicy to an "
            + "instance of your NSEntityMigrationPolicy subclass before migrating.",
          url: nil)
      }
      guard let source = sourceEntity(for: entityMapping) else { continue }
      guard let destination = destinationEntity(for: entityMapping) else {
        throw failure(
          "Entity mapping '\(name)' names destination entity '\(entityMapping.destinationEntityName ?? "(none)")', which the destination model does not have.",
          url: nil)
      }
      let context = MappingExpression.CheckContext(
        source: source, mappingNames: Set(mapping.entityMappings.map(\.name)),
        hasPolicy: type(of: entityMapping.migrationPolicy) != NSEntityMigrationPolicy.self, destination: destination)
      for (propertyMapping, isAttribute) in entityMapping.attributeMappings.map({ ($0, true) })
        + entityMapping.relationshipMappings.map({ ($0, false) })
      {
        let property = propertyMapping.name
        let exists =
          isAttribute
          ? destination.attributesByName[property] != nil : destination.relationshipsByName[property] != nil
        guard exists else {
          throw failure(
            "Entity mapping '\(name)' has \(isAttribute ? "an attribute" : "a relationship") mapping for \(destination.entityName).\(property), which is not \(isAttribute ? "an attribute" : "a relationship") of the destination model.",
            url: nil)
        }
        guard propertyMapping.value == nil, let text = propertyMapping.valueExpression else { continue }
        do {
          run.parsed[ObjectIdentifier(propertyMapping)] = try MappingExpression.checked(text, in: context)
        } catch let unsupported as MappingExpression.Unsupported {
          throw failure(
            "Entity mapping '\(name)', property mapping '\(property)': cannot use the expression \(text): "
              + "\(unsupported.reason). Compute the value with a closure (NSPropertyMapping(name:value:)) instead.",
            url: nil)
        }
      }
    }
  }

  // MARK: - Evaluating property mappings

  /// Evaluates `propertyMapping` for `source` and sets the result on `destination`, checking that it fits
  /// the destination property (a value of the wrong type would otherwise stop the program).
  func apply(_ propertyMapping: NSPropertyMapping, source: NSManagedObject, destination: NSManagedObject, mapping: NSEntityMapping) throws {
    let value: Any?
    if let closure = propertyMapping.value {
      value = try closure(source, self)
    } else if let text = propertyMapping.valueExpression {
      let what = "Entity mapping '\(mapping.name)', property mapping '\(propertyMapping.name)'"
      do {
        let expression = try run.parsed[ObjectIdentifier(propertyMapping)] ?? MappingExpression.parse(text)
        value = try expression.evaluate(
          .init(source: source, manager: self, mapping: mapping, destination: destination, propertyMapping: propertyMapping))
      } catch let unsupported as MappingExpression.Unsupported {
        throw failure("\(what): the expression \(text) cannot be evaluated: \(unsupported.reason).", url: nil)
      }
    } else {
      return
    }
    let key = propertyMapping.name
    let entity = destination.entity
    if let attribute = entity.attributesByName[key] {
      let conformed = Self.conform(value, to: attribute.attributeType)
      try checkAttribute(conformed, attribute, key: "\(entity.entityName).\(key)", mapping: mapping)
      destination.setValue(conformed, forKey: key)
    } else if let relationship = entity.relationshipsByName[key] {
      destination.setValue(try relationshipValue(value, relationship, key: "\(entity.entityName).\(key)", mapping: mapping), forKey: key)
    } else {
      throw failure(
        "Entity mapping '\(mapping.name)' maps \(entity.entityName).\(key), which the destination entity does not have.", url: nil)
    }
  }

  private func checkAttribute(_ value: Any?, _ attribute: NSAttributeDescription, key: String, mapping: NSEntityMapping) throws {
    guard let value, !Self.isNil(value) else { return }
    switch attribute.attributeType {
    case .transformableAttributeType, .compositeAttributeType, .objectIDAttributeType, .undefinedAttributeType: return
    default: break
    }
    guard SlotValue.coerce(value, to: attribute.attributeType) != nil else {
      throw failure(
        "Entity mapping '\(mapping.name)' gives \(key), a \(attribute.attributeType.xcodeName) attribute, the value \(value) of type \(type(of: value)). Convert it in the property mapping's closure.",
        url: nil)
    }
  }

  private func relationshipValue(_ value: Any?, _ relationship: NSRelationshipDescription, key: String, mapping: NSEntityMapping) throws
    -> Any?
  {
    let objects = Self.objects(in: value)
    let accepted = Set((relationship.destinationEntity?.selfAndDescendants ?? []).map(\.name))
    for object in objects where object.managedObjectContext !== destinationContext || !accepted.contains(object.entity.entityName) {
      throw failure(
        "Entity mapping '\(mapping.name)' gives \(key) a \(object.entity.entityName) object that is not a destination instance of \(relationship.destinationEntityName). Map source objects with FUNCTION($manager, \"\(MappingExpression.selector)\", ...) or destinationInstances(forEntityMappingName:sourceInstances:).",
        url: nil)
    }
    if relationship.isToMany {
      return relationship.isOrdered ? NSOrderedSet(array: objects) : Set(objects)
    }
    guard objects.count <= 1 else {
      throw failure(
        "Entity mapping '\(mapping.name)' gives the to-one \(key) \(objects.count) objects; a to-one takes one at most.", url: nil)
    }
    return objects.first
  }

  /// `value` as an attribute of `type` takes it where an `NSNumber` would convert: an integer 0 or 1 for a
  /// Boolean, a whole `Double` for an integer type, a `Decimal` or `Double` for the other number types.
  static func conform(_ value: Any?, to type: NSAttributeType) -> Any? {
    switch (type, value) {
    case (.booleanAttributeType, let number as Int64) where number == 0 || number == 1: return number == 1
    case (.integer16AttributeType, let number as Double), (.integer32AttributeType, let number as Double),
      (.integer64AttributeType, let number as Double):
      return Int64(exactly: number) ?? number
    case (.doubleAttributeType, let number as Decimal), (.floatAttributeType, let number as Decimal):
      return NSDecimalNumber(decimal: number).doubleValue
    case (.decimalAttributeType, let number as Double): return Decimal(number)
    default: return value
    }
  }

  /// The managed objects a relationship value holds: none for `nil`, one for an object, the members of a
  /// set, array or ordered set.
  static func objects(in value: Any?) -> [NSManagedObject] {
    guard let value, !isNil(value) else { return [] }
    if let object = value as? NSManagedObject { return [object] }
    if let ordered = value as? NSOrderedSet { return ordered.array.compactMap { $0 as? NSManagedObject } }
    if let sequence = value as? any Sequence { return sequence.compactMap { $0 as? NSManagedObject } }
    return []
  }

  private static func isNil(_ value: Any) -> Bool {
    if case Optional<Any>.none = value { return true }
    return false
  }
}
