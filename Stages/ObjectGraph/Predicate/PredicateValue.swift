import Foundation

/// A value inside a predicate, normalised so that the SQL compiler and the evaluator agree on it.
enum PredicateValue: Sendable, Hashable {
  case null
  case string(String)
  /// Every integer type (and `Bool` from a `%d` argument is *not* folded here: see ``bool``).
  case integer(Int64)
  case double(Double)
  case bool(Bool)
  case date(Date)
  case data(Data)
  case uuid(UUID)
  case url(URL)
  case decimal(Decimal)
  case objectID(NSManagedObjectID)
  /// An entity, by name: an ``NSEntityDescription`` argument, which `entity == %@` compares an object's entity
  /// with (see ``PredicateEntityKey``).
  case entity(String)
  /// An array or set argument (for `IN`, `BETWEEN`).
  case collection([PredicateValue])

  /// Converts an argument given to `NSPredicate(format:_:)`. A managed object becomes its object ID,
  /// read now; when that ID is still temporary, `objects` remembers where to find the object's later one.
  /// - Throws: ``ObjectGraphInvalidValueError`` for a type predicates cannot hold, or arrays nested
  ///   more than ``PredicateNode/maximumDepth`` levels deep.
  init(argument: Any?, objects: PredicateObjectCapture? = nil) throws {
    guard let argument else {
      self = .null
      return
    }
    self = try Self.convert(argument, objects)
  }

  private static func convert(_ argument: Any, _ objects: PredicateObjectCapture?, depth: Int = 1) throws -> PredicateValue {
    // A value (a number, a string, …) is tried against the value types first: casting one to a class or a
    // class-bound protocol makes Foundation bridge it to an object (an NSNumber for a number) for each
    // cast, which cost a predicate with a number argument most of its making. An object (a managed
    // object, an ID, an NSNumber or NSString from Objective-C-style code) is tried against the classes
    // first. The result is the same either way: no type is both.
    let isObject = type(of: argument) is AnyClass
    if !isObject, let value = scalar(argument) { return value }
    switch argument {
    case let object as any PredicateArgumentObject:
      let id = object.objectID
      if id.isTemporaryID { objects?.note(object, id: id) }
      return .objectID(id)
    case let entity as NSEntityDescription: return .entity(entity.entityName)
    case let value as NSManagedObjectID: return .objectID(value)
    default:
      break
    }
    if isObject, let value = scalar(argument) { return value }
    switch argument {
    case let value as any Sequence:
      guard depth < PredicateNode.maximumDepth else {
        throw ObjectGraphError(
          .invalidValue,
          "A predicate argument nests arrays or sets more than \(PredicateNode.maximumDepth) levels deep. Pass a flat array (for IN) or two bounds (for BETWEEN)."
        )
      }
      var items: [PredicateValue] = []
      for element in value { items.append(try convert(element, objects, depth: depth + 1)) }
      return .collection(items)
    default:
      if case Optional<Any>.none = argument { return .null }
      let mirror = Mirror(reflecting: argument)
      if mirror.displayStyle == .optional {
        guard let wrapped = mirror.children.first?.value else { return .null }
        return try convert(wrapped, objects, depth: depth)
      }
      throw ObjectGraphError(
        .invalidValue,
        "A predicate argument of type \(type(of: argument)) cannot be used. Use a String, number, Bool, Date, Data, UUID, URL, Decimal, a managed object or its NSManagedObjectID, an NSEntityDescription, or an array of those."
      )
    }
  }

  /// The value of an argument of a value type predicates hold (or of the object Foundation bridges one
  /// from), or `nil`.
  private static func scalar(_ argument: Any) -> PredicateValue? {
    switch argument {
    case let value as PredicateValue: value
    case let value as String: .string(value)
    case let value as Substring: .string(String(value))
    case let value as Bool: .bool(value)
    case let value as Int: .integer(Int64(value))
    case let value as Int8: .integer(Int64(value))
    case let value as Int16: .integer(Int64(value))
    case let value as Int32: .integer(Int64(value))
    case let value as Int64: .integer(value)
    case let value as UInt: .integer(Int64(clamping: value))
    case let value as UInt8: .integer(Int64(value))
    case let value as UInt16: .integer(Int64(value))
    case let value as UInt32: .integer(Int64(value))
    case let value as UInt64: .integer(Int64(clamping: value))
    case let value as Double: .double(value)
    case let value as Float: .double(Double(value))
    case let value as Date: .date(value)
    case let value as Data: .data(value)
    case let value as UUID: .uuid(value)
    case let value as URL: .url(value)
    case let value as Decimal: .decimal(value)
    default: nil
    }
  }
}
