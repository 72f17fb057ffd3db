/// An attribute whose value is computed from other values of its object, when the object is saved (Xcode's
/// "Derived" check box): Core Data's `NSDerivedAttributeDescription`.
///
/// ```swift
/// let count = NSDerivedAttributeDescription()
/// count.name = "noteCount"
/// count.attributeType = .integer64AttributeType
/// count.derivationExpression = NSExpression(format: "notes.@count")
/// ```
///
/// Models read from Xcode files and compiled `.mom` files make one for every derived attribute. Its expression,
/// ``derivationExpression``, is declared with the expression type (the requests' layer); what the engine can
/// compute is listed in "Derived attributes" in Docs/ObjectGraph.md. Like every description, it can be changed
/// only until its model is used.
public final class NSDerivedAttributeDescription: NSAttributeDescription, @unchecked Sendable {
  // `@unchecked Sendable` as its superclass: it adds no stored property, and the attribute's state is frozen
  // with its model (see `NSPropertyDescription`).
}
