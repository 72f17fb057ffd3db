import Foundation

/// An entity mapping's own source expression (``NSEntityMapping/sourceExpression``), evaluated with `$manager`
/// standing for the manager.
extension NSMigrationManager: ExpressionKeyAnswering {
  /// The manager's keys a source expression may read (`$manager.sourceContext`), as Core Data's key-value
  /// coding answers them.
  func value(forExpressionKey key: String) -> Any? {
    switch key {
    case "sourceContext": sourceContext
    case "destinationContext": destinationContext
    case "sourceModel": sourceModel
    case "destinationModel": destinationModel
    case "mappingModel": mappingModel
    case "currentEntityMapping": currentEntityMapping
    case "userInfo": userInfo
    default: nil
    }
  }

  /// The source instances `expression` gives for `mapping`: objects of the source context, in the order the
  /// expression gives them.
  func sources(of expression: NSExpression, for mapping: NSEntityMapping) throws -> [NSManagedObject] {
    var value = expression.expressionType == .constantValue ? expression.constantValue : nil
    #if !canImport(Darwin)
      if let fetch = expression as? NSFetchRequestExpression {
        do {
          value = try fetch.value(variables: ["manager": self])
        } catch {
          throw ObjectGraphError(
            .migration, "Entity mapping '\(mapping.name)' could not run its source expression \(expression): \(error)",
            underlyingError: error)
        }
      }
    #endif
    guard let members = MappingKeyValueCoding.members(of: value),
      let objects = members as? [NSManagedObject],
      objects.allSatisfy({ $0.managedObjectContext === sourceContext })
    else {
      throw ObjectGraphError(
        .migration,
        "Entity mapping '\(mapping.name)' has the source expression \(expression), whose value is not a collection of objects of the source store. Use a fetch request expression run in $manager.sourceContext (NSFetchRequestExpression), or set sourceExpression to nil and give sourcePredicate."
      )
    }
    return objects
  }
}
