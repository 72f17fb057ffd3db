import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Predicates as a predicate tutorial writes them (issue 24, finding 4): `%K` after a dot, in plain key
/// paths, after `ANY` and after a `SUBQUERY` variable, match the same objects as the written-out forms, in
/// the store's SQL and in memory.
@Suite("Tutorial predicates", .temporaryFolders)
struct TutorialPredicateTests {
  /// Country(name, population, isFavorite, cities ->> City), City(name, population, country -> Country).
  static func model() throws -> NSManagedObjectModel {
    let country = NSEntityDescription(
      name: "Country",
      properties: [
        .attribute(NSAttributeDescription(name: "name", type: .string)),
        .attribute(NSAttributeDescription(name: "population", type: .integer64, isOptional: false, defaultValue: Int64(0))),
        .attribute(NSAttributeDescription(name: "isFavorite", type: .boolean, isOptional: false, defaultValue: false)),
        .relationship(NSRelationshipDescription(name: "cities", destination: "City", inverse: "country", toMany: true)),
      ])
    let city = NSEntityDescription(
      name: "City",
      properties: [
        .attribute(NSAttributeDescription(name: "name", type: .string)),
        .attribute(NSAttributeDescription(name: "population", type: .integer64, isOptional: false, defaultValue: Int64(0))),
        .relationship(NSRelationshipDescription(name: "country", destination: "Country", inverse: "cities")),
      ])
    return try NSManagedObjectModel(entities: [country, city])
  }

  /// Three countries: Anland (big, cities 50 and 5,000, favourite), Beland (small, city 20), Celand (no cities).
  private func stack() throws -> StoreStack {
    let stack = try StoreStack(model: try Self.model())
    try stack.context.performAndWait {
      let model = stack.model
      func country(_ name: String, _ population: Int64, favorite: Bool, cities: [(String, Int64)]) {
        let country = NSManagedObject(entity: model.entitiesByName["Country"] ?? stack.entity("Country"), insertInto: stack.context)
        country.setValue(name, forKey: "name")
        country.setValue(population, forKey: "population")
        country.setValue(favorite, forKey: "isFavorite")
        for (cityName, cityPopulation) in cities {
          let city = NSManagedObject(entity: stack.entity("City"), insertInto: stack.context)
          city.setValue(cityName, forKey: "name")
          city.setValue(cityPopulation, forKey: "population")
          city.setValue(country, forKey: "country")
        }
      }
      country("Anland", 80_000, favorite: true, cities: [("a1", 50), ("a2", 5_000)])
      country("Beland", 900, favorite: false, cities: [("b1", 20)])
      country("Celand", 10, favorite: false, cities: [])
      try stack.context.save()
    }
    return stack
  }

  /// The names `predicate` matches among `entity`'s objects: fetched (SQL) and evaluated in memory over
  /// every object, which must agree.
  private func names(
    _ stack: StoreStack, _ entity: String, _ predicate: NSPredicate, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> [String] {
    let context = stack.freshContext()
    return try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: entity)
      request.predicate = predicate
      let fetched = try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }.sorted()
      let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
      let evaluated = all.filter { predicate.evaluate(with: $0) }.compactMap { $0.value(forKey: "name") as? String }.sorted()
      #expect(fetched == evaluated, "SQL and in-memory disagree on \(predicate)", sourceLocation: sourceLocation)
      return fetched
    }
  }

  @Test(
    "%K after a dot matches what the written-out key path matches",
    arguments: [
      ("City", "%K.%K > %lu", ["country", "population"], UInt(1_000), "country.population > 1000", ["a1", "a2"]),
      ("Country", "ANY %K.%K <= %lu", ["cities", "population"], UInt(20), "ANY cities.population <= 20", ["Beland"]),
      (
        "Country", "(SUBQUERY(%K, $x, $x.%K >= %lu).@count == 0)", ["cities", "population"], UInt(1_000),
        "(SUBQUERY(cities, $x, $x.population >= 1000).@count == 0)", ["Beland", "Celand"]
      ),
    ])
  func keyAfterDot(entity: String, format: String, keys: [String], number: UInt, written: String, expected: [String]) throws {
    let stack = try stack()
    let tutorial = NSPredicate(format: format, argumentArray: keys.map { $0 as Any } + [number])
    let plain = NSPredicate(format: written)
    #expect(try names(stack, entity, tutorial) == expected)
    #expect(try names(stack, entity, plain) == expected)
  }

  @Test("A SUBQUERY's variable followed by %K, compared with a second %K's @count")
  func subqueryAgainstCount() throws {
    let stack = try stack()
    let tutorial = NSPredicate(
      format: "(SUBQUERY(%K, $x, $x.%K < %lu).@count == %K.@count)", "cities", "population", UInt(1_000), "cities")
    let plain = NSPredicate(format: "(SUBQUERY(cities, $x, $x.population < 1000).@count == cities.@count)")
    #expect(try names(stack, "Country", tutorial) == ["Beland", "Celand"])
    #expect(try names(stack, "Country", plain) == ["Beland", "Celand"])
  }

  @Test("%K after a dot takes a dotted key path too, and keeps its argument's place among the others")
  func dottedArgumentAfterDot() throws {
    let stack = try stack()
    let predicate = NSPredicate(format: "%K.%K == %@ AND %K > %d", "country", "name", "Anland", "population", 100)
    #expect(try names(stack, "City", predicate) == ["a2"])
    let positional = NSPredicate(format: "%1$K.%2$K == %3$@", "country", "name", "Beland")
    #expect(try names(stack, "City", positional) == ["b1"])
  }

  @Test("A bare key path or %K as the whole predicate is refused, as Foundation's parser refuses it; == YES works")
  func bareBooleanKeyPath() throws {
    for (format, arguments) in [("isFavorite", [] as [String]), ("%K", ["isFavorite"])] {
      let error = try #require(throws: ObjectGraphError.self) {
        try FetchPredicate(NSPredicate(format: format, argumentArray: arguments.map { $0 as Any }))
      }
      #expect(error.code == .predicateSyntax, "\(format)")
      #expect(error.message.contains("== YES"), "\(error.message)")
    }
    let stack = try stack()
    #expect(try names(stack, "Country", NSPredicate(format: "%K == YES", "isFavorite")) == ["Anland"])
  }

  @Test(
    "A transformable attribute compared with nil (%K != NULL, == nil) matches in SQL and in memory alike",
    arguments: bothStoreTypes)
  func transformableNil(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: try TransformableTests.model(), type: type)
    try stack.context.performAndWait {
      for (title, keywords) in [("tagged", ["swift"]), ("bare", nil)] as [(String, [String]?)] {
        let card = NSManagedObject(entity: stack.entity("Card"), insertInto: stack.context)
        card.setValue(title, forKey: "title")
        card.setValue(keywords, forKey: "keywords")
      }
      try stack.context.save()
    }
    for (format, expected) in [("%K != NULL", ["tagged"]), ("%K == nil", ["bare"]), ("nil == %K", ["bare"])] {
      let predicate = NSPredicate(format: format, "keywords")
      let context = stack.freshContext()
      try context.performAndWait {
        let request = NSFetchRequest<NSManagedObject>(entityName: "Card")
        request.predicate = predicate
        let fetched = try context.fetch(request).compactMap { $0.value(forKey: "title") as? String }
        #expect(fetched == expected, "\(format)")
        let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Card"))
        let evaluated = all.filter { predicate.evaluate(with: $0) }.compactMap { $0.value(forKey: "title") as? String }
        #expect(evaluated == expected, "\(format) in memory")
      }
    }
  }
}
