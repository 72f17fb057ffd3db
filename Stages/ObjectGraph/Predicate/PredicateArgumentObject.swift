import Foundation

/// An object given as a predicate argument (`"notebook == %@", notebook`), which the predicate names by
/// its ID: a managed object (the conformance is in `Object/`).
protocol PredicateArgumentObject: PredicateEvaluable, AnyObject {
  /// The object's ID now.
  var objectID: NSManagedObjectID { get }
  /// The box its ID lives in, read again when the predicate is used (the ID may be temporary now).
  var objectIDReference: ObjectIDReference { get }
}
