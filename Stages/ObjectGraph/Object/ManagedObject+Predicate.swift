import Foundation

extension NSManagedObject: PredicateArgumentObject {
  /// The value(s) at a key path, for in-memory predicate evaluation and sorting.
  func predicateValue(atKeyPath path: [String]) throws -> PredicateKeyPathValue {
    var path = path
    if path.first == "SELF" { path.removeFirst() }
    guard let key = path.first else { return .single(.objectID(objectID)) }
    let rest = Array(path.dropFirst())
    if key == PredicateEntityKey.entity, layout.index(of: key) == nil {
      // `entity` and `entity.name`, as Core Data's key-value coding answers them for every object.
      if rest.isEmpty { return .single(.entity(entity.entityName)) }
      if rest == [PredicateEntityKey.name] { return .single(.string(entity.entityName)) }
      throw ObjectGraphError(
        .unknownKey,
        "Key path '\(path.joined(separator: "."))' goes through an object's entity; only 'entity' and 'entity.name' can be used in a predicate."
      )
    }
    guard let index = layout.index(of: key) else { return try undefinedPredicateValue(forKey: key, rest: rest) }
    fireFault(key: key)
    let slot = layout.slots[index]
    switch slot.kind {
    case .attribute(.transformableAttributeType):
      throw ObjectGraphError.transformableInFetch(entity: entity.entityName, key: key)
    case .attribute where slot.isComposite:
      // `location.latitude`: the element's own slot, named by the whole key path.
      let joined = path.joined(separator: ".")
      guard !rest.isEmpty, let element = layout.index(of: joined), !layout.slots[element].isComposite else {
        throw ObjectGraphError.compositeInPredicate(entity: entity.entityName, keyPath: joined)
      }
      return .single(Self.predicateValue(values[element]))
    case .attribute:
      guard rest.isEmpty else {
        throw ObjectGraphError(
          .unknownKey, "\(entity.entityName).\(key) is an attribute; key path '\(path.joined(separator: "."))' cannot go through it.")
      }
      return .single(Self.predicateValue(values[index]))
    case .toOne:
      guard let id = values[index].objectID else {
        return rest.isEmpty ? .single(.null) : (rest == ["@count"] ? .single(.integer(0)) : .single(.null))
      }
      guard !rest.isEmpty else { return .single(.objectID(id)) }
      guard let context = managedObjectContext else { return .single(.null) }
      return try context.object(with: id).predicateValue(atKeyPath: rest)
    case .toMany:
      // An ordered to-many's values come in its order, which `[FIRST]`, `[LAST]` and `[n]` pick by.
      let ids = slot.isOrdered ? relatedIDList(slot) : Array(relatedIDs(slot))
      if rest == ["@count"] { return .single(.integer(Int64(ids.count))) }
      guard !rest.isEmpty else { return .many(ids.map { .objectID($0) }) }
      guard let context = managedObjectContext else { return .many([]) }
      var result: [PredicateValue] = []
      for id in ids {
        switch try context.object(with: id).predicateValue(atKeyPath: rest) {
        case .single(let value): result.append(value)
        case .many(let values): result.append(contentsOf: values)
        }
      }
      return .many(result)
    }
  }

  /// Whether `path` reaches its values through one ordered to-many, in its members' order.
  func predicateReachesOrderedToMany(atKeyPath path: [String]) -> Bool {
    entity.reachesOneOrderedToMany(alongKeyPath: path)
  }

  /// The transformable attribute at the end of `path` (reached through to-ones) and the bytes it holds;
  /// `nil` when `path` does not end at a transformable attribute.
  func predicateTransformable(atKeyPath path: [String]) throws -> (attribute: NSAttributeDescription, bytes: Data?)? {
    let path = path.first == "SELF" ? Array(path.dropFirst()) : path
    guard let attribute = entity.transformableAttribute(atKeyPath: path), let key = path.first, let index = layout.index(of: key)
    else { return nil }
    fireFault(key: key)
    guard path.count > 1 else {
      if case .data(let bytes)? = values[index] { return (attribute, bytes) }
      return (attribute, nil)
    }
    // Through a to-one: no object there means no value.
    guard let id = values[index].objectID, let context = managedObjectContext else { return (attribute, nil) }
    return try context.object(with: id).predicateTransformable(atKeyPath: Array(path.dropFirst()))
  }

  /// A key the model does not have: the subclass's computed value (``value(forUndefinedKey:)``), and
  /// the rest of the key path through it when it is a managed object.
  private func undefinedPredicateValue(forKey key: String, rest: [String]) throws -> PredicateKeyPathValue {
    let value = try value(forUndefinedKey: key)
    guard !rest.isEmpty else { return .single(try PredicateValue(argument: value)) }
    if let object = value as? NSManagedObject { return try object.predicateValue(atKeyPath: rest) }
    if value == nil { return .single(.null) }
    throw ObjectGraphError(
      .unknownKey,
      "\(entity.entityName).\(key) is computed by \(type(of: self)) and is not a managed object; key path '\(([key] + rest).joined(separator: "."))' cannot go through it."
    )
  }

  /// The objects at the end of a to-many key path, for `SUBQUERY`.
  func predicateObjects(atKeyPath path: [String]) throws -> [any PredicateEvaluable] {
    guard case .many(let members) = try predicateValue(atKeyPath: path),
      members.allSatisfy({ if case .objectID = $0 { true } else { false } })
    else {
      throw ObjectGraphError(
        .predicateSyntax,
        "SUBQUERY ranges over a to-many relationship, and \(entity.entityName).\(path.joined(separator: ".")) is not one.")
    }
    guard let context = managedObjectContext else { return [] }
    return members.compactMap { member -> (any PredicateEvaluable)? in
      guard case .objectID(let id) = member else { return nil }
      return context.object(with: id)
    }
  }

  static func predicateValue(_ value: StoredValue) -> PredicateValue {
    guard let value else { return .null }
    switch value {
    case .string(let v): return .string(v)
    case .int64(let v): return .integer(v)
    case .int32(let v): return .integer(Int64(v))
    case .int16(let v): return .integer(Int64(v))
    case .bool(let v): return .bool(v)
    case .double(let v): return .double(v)
    case .float(let v): return .double(Double(v))
    case .date(let v): return .date(v)
    case .data(let v): return .data(v)
    case .objectID(let v): return .objectID(v)
    case .objectIDs, .orderedObjectIDs, .unloadedToMany: return .null
    case .boxed(let box):
      switch box.value {
      case let v as UUID: return .uuid(v)
      case let v as URL: return .url(v)
      case let v as Decimal: return .decimal(v)
      default: return .null
      }
    }
  }
}
