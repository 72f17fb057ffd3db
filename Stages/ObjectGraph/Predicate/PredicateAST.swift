import Foundation

/// A parsed predicate: the tree the format parser builds, which the SQL compiler and the in-memory
/// evaluator both walk.
indirect enum PredicateNode: Sendable, Equatable {
  /// `TRUEPREDICATE` / `FALSEPREDICATE`.
  case constant(Bool)
  case not(PredicateNode)
  case and([PredicateNode])
  case or([PredicateNode])
  case comparison(PredicateComparison)
}

/// One comparison: `lhs op rhs`, maybe under `ANY`/`ALL`/`NONE`, with string options.
struct PredicateComparison: Sendable, Equatable {
  enum Operator: String, Sendable, Equatable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case between = "BETWEEN"
    case `in` = "IN"
    case contains = "CONTAINS"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case like = "LIKE"
    case matches = "MATCHES"
  }

  enum Modifier: Sendable, Equatable {
    /// A plain comparison.
    case direct
    /// `ANY keypath op value`: true when some member of the to-many matches.
    case any
    /// `ALL keypath op value`: true when every member matches (and vacuously for an empty set).
    case all
    /// `NONE keypath op value`: true when no member matches.
    case none
  }

  struct Options: OptionSet, Sendable, Equatable {
    let rawValue: Int
    /// `[c]`
    static let caseInsensitive = Options(rawValue: 1)
    /// `[d]`
    static let diacriticInsensitive = Options(rawValue: 2)
  }

  var modifier: Modifier = .direct
  var lhs: PredicateExpression
  var op: Operator
  var rhs: PredicateExpression
  var options: Options = []
}

/// A side of a comparison.
indirect enum PredicateExpression: Sendable, Equatable {
  /// A key path from the evaluated object: `["category", "name"]`; `SELF` is the empty path `[]`;
  /// `tags.@count` is `["tags", "@count"]`.
  case keyPath([String])
  /// A literal or a substituted argument.
  case constant(PredicateValue)
  /// An aggregate literal, `{1, 2, 3}`, or an array argument.
  case aggregate([PredicateExpression])
  /// A variable: `$limit` (a substitution variable, given by ``FetchPredicate/withSubstitutionVariables(_:)``)
  /// or, inside a `SUBQUERY`, its iteration variable with an optional key path from it (`$note.title` is
  /// `variable("note", path: ["title"])`).
  case variable(String, path: [String])
  /// Arithmetic on two numbers: `wordCount * 2`, `price - discount`.
  case arithmetic(PredicateArithmetic, PredicateExpression, PredicateExpression)
  /// `SUBQUERY(collection, $variable, predicate).@count`: how many members of a to-many match.
  case subqueryCount(PredicateSubquery)
}

/// An arithmetic operator inside a predicate.
///
/// Integers stay integers under `+ - *` (turning into doubles when the result would overflow, as SQLite
/// does); `/` always divides as doubles (as `NSExpression` does in memory), and dividing by zero gives
/// `nil`, as SQLite does.
enum PredicateArithmetic: String, Sendable, Equatable {
  case add = "+"
  case subtract = "-"
  case multiply = "*"
  case divide = "/"
}

/// The parts of `SUBQUERY(collection, $variable, predicate)`.
struct PredicateSubquery: Sendable, Equatable {
  /// The to-many it ranges over: a key path, or a key path from an outer subquery's variable.
  var collection: PredicateExpression
  /// The name each member is bound to while `predicate` runs (without the `$`).
  var variable: String
  /// The condition each member must meet.
  var predicate: PredicateNode
}

/// The collection operators that reduce a to-many's values to one (`notes.@sum.wordCount`).
enum PredicateCollectionOperator: String, Sendable, CaseIterable {
  case count = "@count"
  case sum = "@sum"
  case avg = "@avg"
  case min = "@min"
  case max = "@max"

  /// The operator a key path element names (`"@sum"`), if it names one.
  init?(element: String) {
    self.init(rawValue: element.lowercased())
  }
}

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
  case objectID(ManagedObjectID)
  /// An entity, by name: an ``EntityDescription`` argument, which `entity == %@` compares an object's entity
  /// with (see ``PredicateEntityKey``).
  case entity(String)
  /// An array or set argument (for `IN`, `BETWEEN`).
  case collection([PredicateValue])

  /// Converts an argument given to `FetchPredicate(format:_:)`. A managed object becomes its object ID,
  /// read now; when that ID is still temporary, `objects` remembers where to find the object's later one.
  /// - Throws: ``ObjectGraphError/Code/invalidValue`` for a type predicates cannot hold.
  init(argument: Any?, objects: PredicateObjectCapture? = nil) throws {
    guard let argument else {
      self = .null
      return
    }
    self = try Self.convert(argument, objects)
  }

  private static func convert(_ argument: Any, _ objects: PredicateObjectCapture?) throws -> PredicateValue {
    switch argument {
    case let value as PredicateValue: return value
    case let object as any PredicateArgumentObject:
      let id = object.objectID
      if id.isTemporaryID { objects?.note(object, id: id) }
      return .objectID(id)
    case let entity as EntityDescription: return .entity(entity.name)
    case let value as String: return .string(value)
    case let value as Substring: return .string(String(value))
    case let value as Bool: return .bool(value)
    case let value as Int: return .integer(Int64(value))
    case let value as Int8: return .integer(Int64(value))
    case let value as Int16: return .integer(Int64(value))
    case let value as Int32: return .integer(Int64(value))
    case let value as Int64: return .integer(value)
    case let value as UInt: return .integer(Int64(clamping: value))
    case let value as UInt8: return .integer(Int64(value))
    case let value as UInt16: return .integer(Int64(value))
    case let value as UInt32: return .integer(Int64(value))
    case let value as UInt64: return .integer(Int64(clamping: value))
    case let value as Double: return .double(value)
    case let value as Float: return .double(Double(value))
    case let value as Date: return .date(value)
    case let value as Data: return .data(value)
    case let value as UUID: return .uuid(value)
    case let value as URL: return .url(value)
    case let value as Decimal: return .decimal(value)
    case let value as ManagedObjectID: return .objectID(value)
    case let value as any Sequence:
      var items: [PredicateValue] = []
      for element in value { items.append(try convert(element, objects)) }
      return .collection(items)
    default:
      if case Optional<Any>.none = argument { return .null }
      let mirror = Mirror(reflecting: argument)
      if mirror.displayStyle == .optional {
        guard let wrapped = mirror.children.first?.value else { return .null }
        return try convert(wrapped, objects)
      }
      throw ObjectGraphError(
        .invalidValue,
        "A predicate argument of type \(type(of: argument)) cannot be used. Use a String, number, Bool, Date, Data, UUID, URL, Decimal, a managed object or its ManagedObjectID, an EntityDescription, or an array of those."
      )
    }
  }
}

/// The key `entity`, which names an object's entity in a predicate (`entity == %@` with an
/// ``EntityDescription``, `entity.name == "Note"`), as Core Data's key-value coding does for every managed
/// object. An entity's own property named `entity` hides it.
enum PredicateEntityKey {
  /// The key that names the object's entity.
  static let entity = "entity"
  /// The key after `entity` that names the entity's name.
  static let name = "name"
}
