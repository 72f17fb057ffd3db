import Foundation

extension MappingExpression {
  /// What an expression is checked against: the source entity of its entity mapping and the names of the
  /// mapping model's entity mappings when known (a `.cdm` read without its models knows neither), and
  /// whether the entity mapping has a policy that `FUNCTION($entityPolicy, …)` can call.
  struct CheckContext {
    var source: NSEntityDescription?
    var mappingNames: Set<String>?
    var hasPolicy: Bool
    /// The destination entity, when known: `$destination.<key path>` is checked against it.
    var destination: NSEntityDescription? = nil
  }

  /// The keys `$entityMapping.<key>` and `$propertyMapping.<key>` read.
  static let mappingKeys: [MappingVariable: Set<String>] = [
    .entityMapping: ["name", "sourceEntityName", "destinationEntityName", "entityMigrationPolicyClassName"],
    .propertyMapping: ["name", "valueExpression"],
  ]

  /// The selectors `FUNCTION($manager, …)` may call: Core Data's two relationship functions.
  static let managerSelectors = [selector, sourceRelationshipSelector]
  /// The selectors `FUNCTION(<object or value>, …)` may call, with their number of arguments.
  static let valueSelectors: [String: Int] = [
    "valueForKey:": 1, "valueForKeyPath:": 1, "uppercaseString": 0, "lowercaseString": 0, "capitalizedString": 0,
    "stringByAppendingString:": 1,
  ]

  /// Parses `text` and checks it against `context`.
  /// - Throws: ``Unsupported`` saying what ObjectGraph cannot evaluate.
  static func checked(_ text: String, in context: CheckContext) throws -> MappingExpression {
    let expression = try parse(text)
    try expression.check(context)
    return expression
  }

  /// Checks the variables, functions and key paths of the expression.
  func check(_ context: CheckContext) throws {
    switch self {
    case .constant, .now:
      return
    case .variable(.source, let path):
      if let source = context.source { _ = try Self.check(path, from: source) }
    case .variable(.destination, let path):
      if let destination = context.destination { _ = try Self.check(path, from: destination) }
    case .variable(let variable, let path) where Self.mappingKeys[variable] != nil && path.steps.count == 1:
      guard case .key(let key) = path.steps[0], Self.mappingKeys[variable]?.contains(key) == true else {
        throw Unsupported(
          reason:
            "ObjectGraph reads only \(Self.mappingKeys[variable, default: []].sorted().joined(separator: ", ")) of $\(variable.rawValue)")
      }
    case .variable(let variable, let path):
      guard path.steps.isEmpty else {
        throw Unsupported(reason: "ObjectGraph does not read key paths of $\(variable.rawValue) ($\(variable.rawValue).\(path.text))")
      }
    case .function(.variable(.manager, let path), let selector, let arguments) where path.steps.isEmpty:
      try checkManagerFunction(selector, arguments, context)
    case .function(.variable(.entityPolicy, let path), let selector, let arguments) where path.steps.isEmpty:
      guard context.hasPolicy else {
        throw Unsupported(
          reason: "it calls \(selector) on $entityPolicy, but the entity mapping has no migration policy class; name "
            + "one (entityMigrationPolicyClassName) and answer the call in your NSEntityMigrationPolicy subclass's "
            + "evaluateFunction(_:arguments:manager:)")
      }
      for argument in arguments { try argument.check(context) }
    case .function(let operand, let selector, let arguments):
      guard let count = Self.valueSelectors[selector] else {
        throw Unsupported(
          reason: "ObjectGraph does not call \(selector) on \(operand.describedOperand); it calls "
            + Self.valueSelectors.keys.sorted().joined(separator: ", ") + " on a value, "
            + Self.managerSelectors.joined(separator: " and ") + " on $manager, and any selector on $entityPolicy "
            + "(answered by your policy)")
      }
      guard arguments.count == count else {
        throw Unsupported(reason: "\(selector) takes \(count) argument\(count == 1 ? "" : "s"), not \(arguments.count)")
      }
      try operand.check(context)
      for argument in arguments { try argument.check(context) }
      // $source.valueForKey:("a.b"): the key path is checked as $source.a.b is.
      if selector.hasPrefix("valueForKey"), case .variable(.source, let path) = operand, path.steps.isEmpty,
        case .constant(.string(let key)) = arguments[0], let source = context.source
      {
        let steps = try MappingKeyPath(text: key, singleKey: selector == "valueForKey:")
        _ = try Self.check(steps, from: source)
      }
    }
  }

  private func checkManagerFunction(_ selector: String, _ arguments: [MappingExpression], _ context: CheckContext) throws {
    guard Self.managerSelectors.contains(selector) else {
      throw Unsupported(
        reason: "ObjectGraph's migration manager does not answer \(selector); it answers "
          + Self.managerSelectors.joined(separator: " and "))
    }
    guard arguments.count == 2, case .constant(.string(let name)) = arguments[0] else {
      throw Unsupported(reason: "\(selector) takes a quoted name and the source instances")
    }
    try arguments[1].check(context)
    if selector == Self.selector {
      if let names = context.mappingNames, !names.contains(name) {
        throw Unsupported(reason: "the mapping model has no entity mapping named '\(name)'")
      }
    } else if let source = context.source, source.relationshipsByName[name] == nil {
      throw Unsupported(reason: "\(source.entityName) has no relationship '\(name)' in the source model")
    }
  }

  /// How the operand is named in a message.
  private var describedOperand: String {
    switch self {
    case .variable(let variable, let path):
      "$" + variable.rawValue + (path.steps.isEmpty ? "" : "." + path.text)
    case .constant: "a constant"
    case .now: "NOW()"
    case .function(_, let selector, _): "the result of \(selector)"
    }
  }

  // MARK: - Key paths against the source model

  /// What a key path reaches, as far as the model tells.
  enum Reach {
    /// One object of the entity (or none).
    case object(NSEntityDescription)
    /// A collection of objects of the entity.
    case objects(NSEntityDescription)
    /// One attribute value.
    case value
    /// A collection of attribute values.
    case values
  }

  /// Checks `path` from an instance of `entity` as Key-Value Coding evaluates it, and says what it reaches.
  static func check(_ path: MappingKeyPath, from entity: NSEntityDescription) throws -> Reach {
    try check(path.steps[...], from: .object(entity), whole: path)
  }

  private static func check(_ steps: ArraySlice<MappingKeyPath.Step>, from start: Reach, whole: MappingKeyPath) throws
    -> Reach
  {
    var reach = start
    var index = steps.startIndex
    while index < steps.endIndex {
      let step = steps[index]
      index += 1
      switch (step, reach) {
      case (.key(let key), .object(let entity)), (.key(let key), .objects(let entity)):
        let many = if case .objects = reach { true } else { false }
        guard let property = entity.propertiesByName[key] else {
          throw Unsupported(reason: "\(entity.entityName) has no property '\(key)' in the source model (key path \(whole.text))")
        }
        switch property.kind {
        case .attribute:
          reach = many ? .values : .value
        case .relationship(let relationship):
          guard let target = relationship.destinationEntity else {
            throw Unsupported(reason: "\(entity.entityName).\(key) has no destination entity in the source model")
          }
          if relationship.isToMany && many {
            throw Unsupported(
              reason: "the key path \(whole.text) goes through two to-many relationships, which gives a collection of "
                + "collections; gather the members with @distinctUnionOfSets (or @unionOfSets) before \(key)")
          }
          reach = relationship.isToMany || many ? .objects(target) : .object(target)
        }
      case (.key(let key), .value), (.key(let key), .values):
        throw Unsupported(reason: "the key path \(whole.text) goes on past an attribute, to '\(key)'")
      case (.collection(let collectionOperator), _):
        let member: Reach
        switch reach {
        case .objects(let entity): member = .object(entity)
        case .values: member = .value
        default:
          throw Unsupported(
            reason: "\(collectionOperator.rawValue) in \(whole.text) needs a collection at its left (a to-many "
              + "relationship)")
        }
        if collectionOperator == .count { return .value }
        let right = steps[index...]
        guard !right.isEmpty else {
          throw Unsupported(reason: "\(collectionOperator.rawValue) in \(whole.text) needs a key path at its right")
        }
        let end = try check(right, from: member, whole: whole)
        switch (collectionOperator.isAggregate, collectionOperator.flattens, end) {
        case (true, _, .value): return .value
        case (true, _, _):
          throw Unsupported(reason: "\(collectionOperator.rawValue) in \(whole.text) needs an attribute at its right")
        case (false, true, .objects(let target)): return .objects(target)
        case (false, true, .values): return .values
        case (false, true, _):
          throw Unsupported(
            reason: "\(collectionOperator.rawValue) in \(whole.text) gathers the members of collections; its right "
              + "key path must reach a to-many relationship")
        case (false, false, .object(let target)): return .objects(target)
        case (false, false, .value): return .values
        case (false, false, _):
          throw Unsupported(
            reason: "\(collectionOperator.rawValue) in \(whole.text) gives a collection of collections; use "
              + "@distinctUnionOfSets to gather their members")
        }
      }
    }
    return reach
  }
}

extension MappingKeyPath {
  /// Reads a key path given as text (`"countries.@count"`, the argument of `valueForKeyPath:`); with
  /// `singleKey` (`valueForKey:`), the whole text is one key.
  init(text: String, singleKey: Bool) throws {
    if singleKey {
      self.init(steps: [.key(text)])
      return
    }
    let steps: [Step] = try text.split(separator: ".", omittingEmptySubsequences: false).map { part in
      guard !part.isEmpty else { throw MappingExpression.Unsupported(reason: "the key path '\(text)' has an empty key") }
      guard part.hasPrefix("@") else { return .key(String(part)) }
      guard let collectionOperator = MappingCollectionOperator(name: String(part.dropFirst())) else {
        throw MappingExpression.Unsupported(reason: "\(part) in '\(text)' is not a Key-Value Coding collection operator")
      }
      return .collection(collectionOperator)
    }
    self.init(steps: steps)
  }
}
