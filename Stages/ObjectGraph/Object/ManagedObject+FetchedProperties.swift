import Foundation

/// Fetched properties, evaluated as Core Data documents them: "a fetched property is not fetched until it is
/// requested, and the results are then cached until the object is turned into a fault"
/// (`NSFetchedPropertyDescription`).
extension NSManagedObject {
  /// The value of the fetched property `key` of the object's entity (or a superentity): its cached result, or
  /// the result of running its request now; `.none` when the entity has no fetched property of that name.
  ///
  /// A request that fails (a predicate that does not parse or names no property, a variable it is not given,
  /// an entity the model does not have, no context) gives `nil` and logs its error ("ObjectGraph: error: …",
  /// as the engine reports a failure that Core Data's API answers without an error); nothing is cached, so the
  /// next read tries again.
  func fetchedPropertyValue(forKey key: String) -> Any?? {
    if let cached = fetchedPropertyResults?[key] { return .some(cached) }
    guard let property = entity.fetchedProperty(named: key) else { return .none }
    do {
      let result = try evaluate(property)
      fetchedPropertyResults = (fetchedPropertyResults ?? [:]).merging([key: result]) { _, new in new }
      return .some(result)
    } catch {
      ErrorLog.write("value(forKey: \"\(key)\") of \(entity.entityName) (fetched property) returned nil", error)
      return .some(nil)
    }
  }

  /// Forgets the results of the object's fetched properties, so that the next read runs each request again
  /// (a refresh, or the object turning into a fault).
  func forgetFetchedProperties() {
    fetchedPropertyResults = nil
  }

  /// Runs the fetched property's request in the object's context, with `$FETCH_SOURCE` the object and
  /// `$FETCHED_PROPERTY` the property.
  private func evaluate(_ property: NSFetchedPropertyDescription) throws -> [Any] {
    let what = "\(entity.entityName).\(property.name)"
    guard let context = managedObjectContext else {
      throw ObjectGraphError(
        .objectNotFound, "Fetched property \(what) runs its request in its object's context, and the object is in none. Insert it first.")
    }
    guard let request = property.fetchRequest else {
      throw ObjectGraphError(.modelInvalid, "Fetched property \(what) has no fetch request. Give it one (fetchRequest) in the model.")
    }
    if let predicate = request.predicate {
      let template: FetchPredicate
      do {
        template = try FetchPredicate(predicate)
      } catch {
        let reason = ObjectGraphError.wrapping(error)
        throw ObjectGraphError(.init(rawValue: reason.code), "The predicate of fetched property \(what) cannot be used: \(reason.message)")
      }
      var variables: [String: Any] = [:]
      let names = template.substitutionVariableNames
      let others = names.subtracting([Self.fetchSource, Self.fetchedProperty]).sorted().map { "$" + $0 }
      guard others.isEmpty else {
        throw ObjectGraphError(
          .predicateSyntax,
          "The predicate of fetched property \(what) uses \(others.joined(separator: ", ")), which nothing fills in: a fetched property's request is given $FETCH_SOURCE (the object) and $FETCHED_PROPERTY (the property) only. Write the value into the predicate, or read it from the object ($FETCH_SOURCE.key)."
        )
      }
      if names.contains(Self.fetchSource) { variables[Self.fetchSource] = self }
      if names.contains(Self.fetchedProperty) { variables[Self.fetchedProperty] = property.name }
      // `$FETCH_SOURCE.name`: the value at the key path, given for the whole path (a variable has no keys).
      for path in template.node.variableKeyPaths() {
        guard let variable = path.first else { continue }
        let rest = Array(path.dropFirst())
        switch variable {
        case Self.fetchSource:
          switch try predicateValue(atKeyPath: rest) {
          case .single(let value): variables[path.joined(separator: ".")] = value
          case .many(let values): variables[path.joined(separator: ".")] = PredicateValue.collection(values)
          }
        case Self.fetchedProperty:
          variables[path.joined(separator: ".")] = try Self.value(of: property, atKeyPath: rest, what: what)
        default:
          continue
        }
      }
      do {
        request.predicate = FormatPredicate(try template.withSubstitutionVariables(variables))
      } catch {
        let reason = ObjectGraphError.wrapping(error)
        throw ObjectGraphError(
          .init(rawValue: reason.code), "The predicate of fetched property \(what) cannot be filled in: \(reason.message)")
      }
    }
    do {
      return try context.fetch(request)
    } catch {
      let reason = ObjectGraphError.wrapping(error)
      throw ObjectGraphError(.init(rawValue: reason.code), "The request of fetched property \(what) failed: \(reason.message)")
    }
  }

  /// `$FETCH_SOURCE`, the variable that stands for the object whose fetched property runs.
  static let fetchSource = "FETCH_SOURCE"
  /// `$FETCHED_PROPERTY`, the variable that stands for the fetched property's description.
  static let fetchedProperty = "FETCHED_PROPERTY"

  /// `$FETCHED_PROPERTY.name` and `$FETCHED_PROPERTY.userInfo.key`, the keys a description answers.
  private static func value(of property: NSFetchedPropertyDescription, atKeyPath path: [String], what: String) throws -> PredicateValue {
    switch path.first {
    case "name" where path.count == 1: return .string(property.name)
    case "userInfo" where path.count == 2: return property.userInfo[path[1]].map(PredicateValue.string) ?? .null
    default:
      throw ObjectGraphError(
        .unknownKey,
        "The predicate of fetched property \(what) reads $FETCHED_PROPERTY.\(path.joined(separator: ".")); a fetched property answers 'name' and 'userInfo.<key>'."
      )
    }
  }
}
