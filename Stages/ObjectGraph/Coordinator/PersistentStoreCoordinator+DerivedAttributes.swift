import Foundation

/// Derived attributes checked when a store is added, as Core Data checks them: "If you try to add a store to a
/// coordinator whose model contains derived attributes of a type not supported by the store, the add fails".
extension NSPersistentStoreCoordinator {
  /// Refuses to add a store for `configuration` when one of its entities has a derived attribute whose
  /// expression the engine cannot compute (a function it does not know, a collection where one value is
  /// needed) or reads a key path the entity cannot reach. An attribute marked derived without an expression
  /// is left to the save that needs it, as before (Xcode's editor makes one while an expression is typed).
  /// - Throws: ``ObjectGraphModelInvalidError`` naming the entity, the attribute and the expression.
  func checkDerivedAttributes(configuration: String?) throws {
    let entities = (managedObjectModel.entities(forConfigurationName: configuration) ?? []).sorted { $0.entityName < $1.entityName }
    for entity in entities {
      for attribute in entity.attributesByName.values.sorted(by: { $0.name < $1.name }) where attribute.isDerived {
        guard let text = attribute.derivationFormat, !text.isEmpty else { continue }
        let problem: String?
        do {
          problem = try DerivationExpression(text).unreachableKeyPath(from: entity)
        } catch let error as ObjectGraphError {
          problem = error.message
        }
        if let problem {
          throw ObjectGraphError(
            .modelInvalid,
            "Entity \(entity.entityName) has the derived attribute \(attribute.name) = \(text), which ObjectGraph cannot compute: \(problem) Fix the expression in the model; the store was not added."
          )
        }
      }
    }
  }
}
