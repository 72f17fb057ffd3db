import Foundation

extension MappingExpression {
  /// What an expression is evaluated with: Core Data's `$source`, `$destination`, `$manager`,
  /// `$entityMapping`, `$propertyMapping` and `$entityPolicy` (``NSMigrationSourceObjectKey`` and the others).
  struct Evaluation {
    let source: NSManagedObject
    let manager: NSMigrationManager
    let mapping: NSEntityMapping
    /// The destination instance the value is for, as far as it is filled (earlier property mappings' values).
    var destination: NSManagedObject? = nil
    var propertyMapping: NSPropertyMapping? = nil
  }

  /// The expression's value for one source instance.
  /// - Throws: ``Unsupported`` for what the check could not see (a value of the wrong type at run time), or
  ///   what a policy's ``NSEntityMigrationPolicy/evaluateFunction(_:arguments:manager:)`` throws.
  func evaluate(_ evaluation: Evaluation) throws -> Any? {
    switch self {
    case .constant(let constant):
      return constant.value
    case .now:
      return Date()
    case .variable(.source, let path):
      return try MappingKeyValueCoding.value(at: path, of: evaluation.source)
    case .variable(.destination, let path):
      return try MappingKeyValueCoding.value(at: path, of: evaluation.destination)
    case .variable(.entityMapping, let path):
      return Self.value(of: evaluation.mapping, at: path)
    case .variable(.propertyMapping, let path):
      return evaluation.propertyMapping.flatMap { Self.value(of: $0, at: path) }
    case .variable(.manager, _):
      return evaluation.manager
    case .variable(.entityPolicy, _):
      return evaluation.mapping.migrationPolicy
    case .function(.variable(.manager, _), let selector, let arguments):
      guard arguments.count == 2, case .constant(.string(let name)) = arguments[0] else {
        throw Unsupported(reason: "\(selector) takes a quoted name and the source instances")
      }
      let instances = NSMigrationManager.objects(in: try arguments[1].evaluate(evaluation))
      if selector == Self.selector {
        return evaluation.manager.destinationInstances(forEntityMappingName: name, sourceInstances: instances)
      }
      return evaluation.manager.destinationInstances(
        forSourceRelationshipNamed: name, of: evaluation.mapping, sourceInstances: instances)
    case .function(.variable(.entityPolicy, _), let selector, let arguments):
      let values = try arguments.map { try $0.evaluate(evaluation) }
      return try evaluation.mapping.migrationPolicy.evaluateFunction(selector, arguments: values, manager: evaluation.manager)
    case .function(let operand, let selector, let arguments):
      let receiver = try operand.evaluate(evaluation)
      let values = try arguments.map { try $0.evaluate(evaluation) }
      return try Self.call(selector, on: receiver, with: values)
    }
  }

  /// `$entityMapping` or `$propertyMapping`, or one of the keys of ``mappingKeys`` read from it.
  private static func value(of object: AnyObject, at path: MappingKeyPath) -> Any? {
    guard case .key(let key)? = path.steps.first else { return object }
    switch (object, key) {
    case (let mapping as NSEntityMapping, "name"): return mapping.name
    case (let mapping as NSEntityMapping, "sourceEntityName"): return mapping.sourceEntityName
    case (let mapping as NSEntityMapping, "destinationEntityName"): return mapping.destinationEntityName
    case (let mapping as NSEntityMapping, "entityMigrationPolicyClassName"): return mapping.entityMigrationPolicyClassName
    case (let mapping as NSPropertyMapping, "name"): return mapping.name
    case (let mapping as NSPropertyMapping, "valueExpression"): return mapping.valueExpression
    default: return nil
    }
  }

  /// A selector of ``valueSelectors`` called on a value.
  private static func call(_ selector: String, on receiver: Any?, with arguments: [Any?]) throws -> Any? {
    switch selector {
    case "valueForKey:", "valueForKeyPath:":
      guard let key = arguments.first as? String else {
        throw Unsupported(reason: "\(selector) takes a key as a string, not \(arguments.first.map { "\($0 ?? "nil")" } ?? "nothing")")
      }
      let path = try MappingKeyPath(text: key, singleKey: selector == "valueForKey:")
      return try MappingKeyValueCoding.value(at: path, of: receiver)
    default:
      guard let receiver else { return nil }  // A message to nil gives nil.
      guard let text = receiver as? String else {
        throw Unsupported(reason: "\(selector) is a string method, and the value is a \(type(of: receiver))")
      }
      switch selector {
      case "uppercaseString": return text.uppercased()
      case "lowercaseString": return text.lowercased()
      case "capitalizedString": return text.capitalized
      case "stringByAppendingString:":
        guard let suffix = arguments.first as? String else {
          throw Unsupported(reason: "stringByAppendingString: takes a string")
        }
        return text + suffix
      default:
        throw Unsupported(reason: "ObjectGraph does not call \(selector)")
      }
    }
  }
}
