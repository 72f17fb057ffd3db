import Foundation

/// Key-Value Coding's `valueForKeyPath:` on migrated objects, as mapping expressions evaluate it: keys
/// through to-one and to-many relationships (a key of a collection gives the collection of its members'
/// values, nil left out), and the collection operators as Apple's "Using Collection Operators" describes
/// them. Numbers come back as the Swift types the attributes store (`Int64`, `Double`, `Decimal`, …).
enum MappingKeyValueCoding {
  typealias Unsupported = MappingExpression.Unsupported

  /// The value at `path` of `value` (an object, a collection, or `nil`).
  static func value(at path: MappingKeyPath, of value: Any?) throws -> Any? {
    try self.value(at: path.steps[...], of: value)
  }

  private static func value(at steps: ArraySlice<MappingKeyPath.Step>, of value: Any?) throws -> Any? {
    guard let step = steps.first else { return value }
    let rest = steps.dropFirst()
    switch step {
    case .key(let key):
      if let members = members(of: value) {
        // A key of a collection: each member's value, nil left out (NSSet's valueForKey:).
        let values = members.compactMap { member in (member as? NSManagedObject).flatMap { property(key, of: $0) } }
        return try self.value(at: rest, of: values)
      }
      guard let object = value as? NSManagedObject else { return nil }
      return try self.value(at: rest, of: property(key, of: object))
    case .collection(let collectionOperator):
      let members = members(of: value) ?? []
      if collectionOperator == .count { return Int64(members.count) }
      let values = try members.map { try self.value(at: rest, of: $0) }
      return try apply(collectionOperator, to: values)
    }
  }

  /// The value of one key of an object, `nil` for nil or a key its entity lacks.
  private static func property(_ key: String, of object: NSManagedObject) -> Any? {
    guard object.entity.propertiesByName[key] != nil else { return nil }
    let value = object.typedValue(forKey: key)
    if let value, case Optional<Any>.none = value { return nil }
    return value
  }

  /// The members of a collection value (a to-many's set or ordered set, an array the evaluation made), or
  /// `nil` when the value is not a collection. Strings and data are values, not collections.
  static func members(of value: Any?) -> [Any]? {
    switch value {
    case let set as Set<NSManagedObject>: Array(set)
    case let ordered as NSOrderedSet: ordered.array
    case let array as [NSManagedObject]: array
    case let array as [Any]: array
    case let set as Set<AnyHashable>: Array(set).map(\.base)
    default: nil
    }
  }

  private static func apply(_ collectionOperator: MappingCollectionOperator, to values: [Any?]) throws -> Any? {
    switch collectionOperator {
    case .count:
      return Int64(values.count)
    case .sum:
      return try sum(values.compactMap { $0 }, collectionOperator)
    case .avg:
      // nil counts as 0, as Key-Value Coding converts each value to a double; no members gives 0 (inferred).
      guard !values.isEmpty else { return Double(0) }
      let total = try values.reduce(0.0) { $0 + (try $1.map { try double($0, collectionOperator) } ?? 0) }
      return total / Double(values.count)
    case .min, .max:
      let present = values.compactMap { $0 }
      guard var best = present.first else { return nil }
      for candidate in present.dropFirst() {
        let ascending = try isAscending(candidate, best, collectionOperator)
        if ascending == (collectionOperator == .min) { best = candidate }
      }
      return best
    case .unionOfObjects, .distinctUnionOfObjects, .unionOfArrays, .distinctUnionOfArrays, .unionOfSets,
      .distinctUnionOfSets:
      var gathered: [Any] = []
      for value in values {
        guard let value else { continue }
        if collectionOperator.flattens {
          guard let inner = members(of: value) else {
            throw Unsupported(
              reason: "\(collectionOperator.rawValue) gathers the members of collections, and a value of type "
                + "\(type(of: value)) is not one")
          }
          gathered += inner
        } else {
          gathered.append(value)
        }
      }
      return collectionOperator.isDistinct ? distinct(gathered) : gathered
    }
  }

  /// Each member once, in the order first met: objects by identity, values by equality.
  static func distinct(_ values: [Any]) -> [Any] {
    var seenObjects = Set<ObjectIdentifier>()
    var seenValues = Set<AnyHashable>()
    return values.filter { value in
      if let object = value as? NSManagedObject { return seenObjects.insert(ObjectIdentifier(object)).inserted }
      if let hashable = value as? AnyHashable { return seenValues.insert(hashable).inserted }
      return true
    }
  }

  /// `@sum`: an `Int64` when every value is an integer, a `Decimal` when one is a decimal, else a `Double`.
  private static func sum(_ values: [Any], _ collectionOperator: MappingCollectionOperator) throws -> Any {
    let integers = values.compactMap(integer)
    if integers.count == values.count {
      var total: Int64 = 0
      for value in integers {
        let (next, overflow) = total.addingReportingOverflow(value)
        guard !overflow else { return try values.reduce(0.0) { $0 + (try double($1, collectionOperator)) } }
        total = next
      }
      return total
    }
    if values.contains(where: { $0 is Decimal }) {
      return try values.reduce(Decimal(0)) { total, value in
        if let decimal = value as? Decimal { return total + decimal }
        return total + Decimal(try double(value, collectionOperator))
      }
    }
    return try values.reduce(0.0) { $0 + (try double($1, collectionOperator)) }
  }

  /// An integer value (any integer type, or a Bool as 0 or 1), as the engine's coercion reads one.
  private static func integer(_ value: Any) -> Int64? {
    if let flag = value as? Bool { return flag ? 1 : 0 }
    guard case .int64(let number)? = SlotValue.coerce(value, to: .integer64AttributeType) else { return nil }
    return number
  }

  private static func double(_ value: Any, _ collectionOperator: MappingCollectionOperator) throws -> Double {
    if let number = integer(value) { return Double(number) }
    switch value {
    case let number as Double: return number
    case let number as Float: return Double(number)
    case let number as Decimal: return NSDecimalNumber(decimal: number).doubleValue
    case let number as NSNumber: return number.doubleValue
    default:
      throw Unsupported(reason: "\(collectionOperator.rawValue) adds numbers, and a value of type \(type(of: value)) is not one")
    }
  }

  /// Whether `a` comes before `b` (numbers, strings and dates, as `compare:` orders them).
  private static func isAscending(_ a: Any, _ b: Any, _ collectionOperator: MappingCollectionOperator) throws -> Bool {
    switch (a, b) {
    case let (a as String, b as String): return a < b
    case let (a as Date, b as Date): return a < b
    case let (a as Decimal, b as Decimal): return a < b
    default:
      if let a = integer(a), let b = integer(b) { return a < b }
      return try double(a, collectionOperator) < double(b, collectionOperator)
    }
  }
}
