import Foundation

/// How the instances of one source entity become instances of one destination entity (Core Data's
/// `NSEntityMapping`): one step of an ``NSMappingModel``.
///
/// The source instances are those ``sourceExpression`` gives: unless you set one, a fetch of
/// ``sourceEntityName``'s own instances (not its subentities', which have mappings of their own) that match
/// ``sourcePredicate``, the form Xcode's mapping editor writes. One difference from Core Data, because there is
/// no Objective-C runtime: the policy is an instance, ``migrationPolicy``, where Core Data takes a class name
/// (`entityMigrationPolicyClassName`) and makes the object by looking the class up at run time.
///
/// ```swift
/// NSEntityMapping(
///   name: "NoteToNote", mappingType: .transformEntityMappingType, sourceEntityName: "Note", destinationEntityName: "Note",
///   attributeMappings: [NSPropertyMapping(name: "title", valueExpression: "$source.title")],
///   sourcePredicate: NSPredicate(format: "archived == NO"))
/// ```
public final class NSEntityMapping {
  /// The mapping's name, by which ``NSMigrationManager/destinationInstances(forEntityMappingName:sourceInstances:)``
  /// and `FUNCTION(...)` expressions find it.
  public var name: String
  /// What the mapping does.
  public var mappingType: NSEntityMappingType
  /// The entity of the source model whose instances are migrated, or `nil` for an ``NSEntityMappingType/addEntityMappingType``.
  public var sourceEntityName: String?
  /// The entity of the destination model the instances become, or `nil` for an ``NSEntityMappingType/removeEntityMappingType``.
  public var destinationEntityName: String?
  /// How the destination instances' attributes get their values, in phase 1.
  public var attributeMappings: [NSPropertyMapping]
  /// How the destination instances' relationships get their values, in phase 2.
  public var relationshipMappings: [NSPropertyMapping]
  /// Which source instances are migrated: those the predicate accepts, or all when `nil`. It makes the
  /// ``sourceExpression`` unless one is set.
  public var sourcePredicate: NSPredicate?
  /// The expression set with ``sourceExpression``, or `nil` for the one ``sourcePredicate`` makes.
  private(set) var customSourceExpression: NSExpression?

  /// The expression whose value is the collection of source instances the mapping migrates (Core Data's
  /// `sourceExpression`).
  ///
  /// Unless you set one, it is the fetch Xcode's mapping editor writes: an ``NSFetchRequestExpression`` of a
  /// request for ``sourceEntityName``'s own instances with ``sourcePredicate``, run in `$manager.sourceContext`
  /// (`nil` for a mapping without a source entity). Set your own to choose the instances another way: the
  /// migration manager evaluates it with the variable `manager` standing for itself, so an
  /// ``NSFetchRequestExpression`` whose context expression is `NSExpression(format: "$manager.sourceContext")`
  /// fetches from the source store, and a constant expression may give an array or set of source objects.
  /// Its value must be a collection of objects of the source context, or the migration fails (134110) naming
  /// the mapping. Setting `nil` goes back to the fetch ``sourcePredicate`` makes.
  public var sourceExpression: NSExpression? {
    get {
      if let customSourceExpression { return customSourceExpression }
      #if canImport(Darwin)
        return nil
      #else
        guard let sourceEntityName else { return nil }
        let request = NSFetchRequest<any NSFetchRequestResult>(entityName: sourceEntityName)
        request.includesSubentities = false
        request.predicate = sourcePredicate
        return NSFetchRequestExpression.expression(
          forFetch: NSExpression(forConstantValue: request), context: NSExpression(format: "$manager.sourceContext"),
          countOnly: false)
      #endif
    }
    set { customSourceExpression = newValue }
  }
  /// The object the migration manager calls at each phase for this mapping (Core Data's
  /// `entityMigrationPolicyClassName`, as an instance: Swift on Linux cannot make an object from a class
  /// name). Subclass ``NSEntityMigrationPolicy`` to customise.
  public var migrationPolicy: NSEntityMigrationPolicy
  /// Anything the app wants to keep with the mapping (Core Data's `userInfo`).
  public var userInfo: [String: Any]
  /// The policy class a mapping model file names (Core Data's `entityMigrationPolicyClassName`), or `nil`.
  /// ObjectGraph cannot make an object from a class name: a mapping that names one is refused by the
  /// migration manager until its ``migrationPolicy`` is set to an instance of an ``NSEntityMigrationPolicy``
  /// subclass.
  public var entityMigrationPolicyClassName: String?
  /// The version hash of the source entity the mapping was made for (Core Data's `sourceEntityVersionHash`),
  /// as a compiled mapping model records it; `nil` when unknown.
  public var sourceEntityVersionHash: Data?
  /// The version hash of the destination entity the mapping was made for (Core Data's
  /// `destinationEntityVersionHash`); `nil` when unknown.
  public var destinationEntityVersionHash: Data?

  /// Makes an entity mapping.
  public init(
    name: String, mappingType: NSEntityMappingType, sourceEntityName: String?, destinationEntityName: String?,
    attributeMappings: [NSPropertyMapping] = [], relationshipMappings: [NSPropertyMapping] = [], sourcePredicate: NSPredicate? = nil,
    migrationPolicy: NSEntityMigrationPolicy = NSEntityMigrationPolicy(), userInfo: [String: Any] = [:]
  ) {
    self.name = name
    self.mappingType = mappingType
    self.sourceEntityName = sourceEntityName
    self.destinationEntityName = destinationEntityName
    self.attributeMappings = attributeMappings
    self.relationshipMappings = relationshipMappings
    self.sourcePredicate = sourcePredicate
    self.migrationPolicy = migrationPolicy
    self.userInfo = userInfo
  }

  /// Whether the migration manager runs the phases for this mapping: it has a source entity and is not a
  /// removal.
  var migratesInstances: Bool {
    sourceEntityName != nil && mappingType != .addEntityMappingType && mappingType != .removeEntityMappingType
  }
}
