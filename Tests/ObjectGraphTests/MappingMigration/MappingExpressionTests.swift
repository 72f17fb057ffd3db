import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Answers `FUNCTION($entityPolicy, "greeting:", …)`.
final class GreetingPolicy: NSEntityMigrationPolicy {
  override func evaluateFunction(_ selector: String, arguments: [Any?], manager: NSMigrationManager) throws -> Any? {
    guard selector == "greeting:" else { return try super.evaluateFunction(selector, arguments: arguments, manager: manager) }
    return "Hello \(arguments.first.flatMap { $0 } ?? "nobody")"
  }
}

/// The value expressions Xcode's mapping editor writes and Core Data evaluates, on real rows of a store the
/// test makes (the Trips model, migrated by the migration manager with expressions set in code), and the
/// ones ObjectGraph refuses, before anything is made.
@Suite("Mapping value expressions", .temporaryFolders)
struct MappingExpressionTests {
  typealias Trips = TripsFixture

  /// The Trips mapping model with `edit` applied to its Traveller-to-Person mapping.
  static func mapping(_ edit: (NSEntityMapping) -> Void) throws -> NSMappingModel {
    let mapping = try NSMappingModel(loadingContentsOf: Trips.mapping)
    edit(try #require(mapping.entityMappingsByName["TravellerToPerson"]))
    return mapping
  }

  static func set(_ name: String, _ expression: String, in mapping: NSEntityMapping) {
    let all = mapping.attributeMappings + mapping.relationshipMappings
    if let existing = all.first(where: { $0.name == name }) {
      existing.valueExpression = expression
      existing.value = nil
    } else {
      mapping.attributeMappings.append(NSPropertyMapping(name: name, valueExpression: expression))
    }
  }

  /// A new version 1 store, and where to migrate it, with a manager from version 1 to version 2.
  static func store() throws -> (manager: NSMigrationManager, storeURL: URL, migratedURL: URL) {
    let folder = try TemporaryFolder()
    let v1 = try Trips.version("Trips")
    let storeURL = folder.appending("V1.sqlite")
    try Trips.writeVersion1Store(at: storeURL, model: v1)
    let manager = NSMigrationManager(sourceModel: v1, destinationModel: try Trips.version("Trips 2"))
    return (manager, storeURL, folder.appending("V2.sqlite"))
  }

  /// Migrates a new version 1 store with `mapping` and hands the migrated store's context to `check`.
  static func migrate(_ mapping: NSMappingModel, _ check: (NSManagedObjectContext) throws -> Void) throws {
    let (manager, storeURL, migratedURL) = try store()
    try manager.migrateStore(from: storeURL, type: .sqlite, mapping: mapping, to: migratedURL, type: .sqlite)
    let context = try MigrationTests.open(
      manager.destinationModel, at: migratedURL,
      options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
    try context.performAndWait { try check(context) }
  }

  @Test("NOW(), constants, FUNCTION($source, …) with known selectors and $entityPolicy give the right values")
  func scalarExpressions() throws {
    let before = Date()
    let mapping = try Self.mapping { person in
      Self.set("migratedAt", "NOW()", in: person)
      Self.set("note", "FUNCTION(FUNCTION($source, \"valueForKey:\", \"name\"), \"uppercaseString\")", in: person)
      Self.set("rank", "-3", in: person)
      Self.set("averagePopulation", "2.5", in: person)
      Self.set("countryCount", "FUNCTION($source, \"valueForKeyPath:\", \"countries.@count\")", in: person)
      Self.set("totalPopulation", "FUNCTION($source.countries.@unionOfObjects.continent, \"valueForKeyPath:\", \"@count\")", in: person)
      Self.set("smallest", "FUNCTION($source.countries.@distinctUnionOfObjects.continent, \"valueForKeyPath:\", \"@count\")", in: person)
      Self.set("largest", "FUNCTION($source.countries.@unionOfSets.moods, \"valueForKeyPath:\", \"@count\")", in: person)
      Self.set("name", "FUNCTION($entityPolicy, \"greeting:\", $source.name)", in: person)
      person.migrationPolicy = GreetingPolicy()
    }
    try Self.migrate(mapping) { context in
      let people = try Trips.byName("Person", in: context)
      #expect(people.keys.sorted() == ["Hello Ada", "Hello Bo", "Hello Cy"])
      let (ada, bo, cy) = (people["Hello Ada"], people["Hello Bo"], people["Hello Cy"])
      #expect([ada, bo, cy].map { $0?.value(forKey: "note") as? String } == ["ADA", "BO", "CY"])
      for person in [ada, bo, cy] {
        let date = try #require(person?.value(forKey: "migratedAt") as? Date)
        #expect(date >= before.addingTimeInterval(-1) && date <= Date())
        #expect(Trips.int(person, "rank") == -3)
        #expect((person?.value(forKey: "averagePopulation") as? NSNumber)?.doubleValue == 2.5)
      }
      #expect([ada, bo, cy].map { Trips.int($0, "countryCount") } == [2, 2, 0])
      // Continents of the countries: with duplicates (Bo's two countries are both in Europe), then each once.
      #expect([ada, bo, cy].map { Trips.int($0, "totalPopulation") } == [2, 2, 0])
      #expect([ada, bo, cy].map { Trips.int($0, "smallest") } == [2, 1, 0])
      // Moods of the countries, with duplicates: France (calm, sunny) + Japan (busy, calm), Italy (sunny) + France.
      #expect([ada, bo, cy].map { Trips.int($0, "largest") } == [4, 3, 0])
    }
  }

  @Test("relationship expressions: the manager's two functions and collection operators carry the members over")
  func relationshipExpressions() throws {
    let mapping = try Self.mapping { person in
      Self.set(
        "visited",
        "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"countries\", $source.countries)",
        in: person)
      Self.set(
        "moods",
        "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"MoodToMood\", "
          + "$source.countries.@unionOfSets.moods)", in: person)
    }
    // Nothing else sets the inverses: these mappings alone must carry the members.
    let place = try #require(mapping.entityMappingsByName["CountryToPlace"])
    place.relationshipMappings.removeAll { $0.name == "visitors" || $0.name == "moods" }
    let mood = try #require(mapping.entityMappingsByName["MoodToMood"])
    mood.relationshipMappings.removeAll()
    try Self.migrate(mapping) { context in
      let people = try Trips.byName("Person", in: context)
      #expect(Trips.names(people["Ada"], "visited") == ["France", "Japan"])
      #expect(Trips.names(people["Bo"], "visited") == ["France", "Italy"])
      #expect(Trips.names(people["Ada"], "moods") == ["busy", "calm", "sunny"])
      #expect(Trips.names(people["Bo"], "moods") == ["calm", "sunny"])
      let places = try Trips.byName("Place", in: context)
      #expect(Trips.names(places["France"], "visitors") == ["Ada", "Bo"])
    }
  }

  @Test("the expression forms read into their trees")
  func parsing() throws {
    #expect(try MappingExpression.parse("NOW()") == .now)
    #expect(try MappingExpression.parse(" \"a \\\"b\\\"\" ") == .constant(.string("a \"b\"")))
    #expect(try MappingExpression.parse("-12") == .constant(.integer(-12)))
    #expect(try MappingExpression.parse("2.5e1") == .constant(.double(25)))
    #expect(try MappingExpression.parse("YES") == .constant(.bool(true)))
    #expect(try MappingExpression.parse("nil") == .constant(.null))
    #expect(
      try MappingExpression.parse("$source.countries.@distinctUnionOfSets.moods")
        == .variable(.source, MappingKeyPath(steps: [.key("countries"), .collection(.distinctUnionOfSets), .key("moods")])))
    #expect(
      try MappingExpression.parse("FUNCTION($source, 'valueForKey:', 'name')")
        == .function(
          operand: .variable(.source, MappingKeyPath(steps: [])), selector: "valueForKey:", arguments: [.constant(.string("name"))]))
  }

  @Test(
    "what ObjectGraph cannot evaluate is refused, saying what",
    arguments: [
      ("$source.population * 2", "arithmetic"),
      ("{1, 2}", "aggregate"),
      ("$sourceObject.name", "$sourceObject"),
      ("name", "$source.name"),
      ("uppercase:($source.name)", "cannot be read"),
      ("SUM($source.countries)", "SUM()"),
      ("$source.countries.@firstObject.name", "@firstObject"),
      ("FUNCTION($manager, \"fetchRequestForSourceEntityNamed:predicateString:\", \"Country\", \"TRUEPREDICATE\")", "does not answer"),
      ("FUNCTION($source, \"reversedName\")", "does not call reversedName"),
      (
        "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"NoSuchMapping\", $source.countries)",
        "NoSuchMapping"
      ),
      ("$source.nickname", "no property 'nickname'"),
      ("$source.name.length", "past an attribute"),
      ("$source.countries.moods", "two to-many"),
      ("$source.countries.@sum.continent", "needs an attribute"),
      ("$source.name.@count", "needs a collection"),
      ("FUNCTION($entityPolicy, \"greeting:\", $source.name)", "no migration policy class"),
    ])
  func refused(_ expression: String, _ reason: String) throws {
    let v1 = try Trips.version("Trips")
    let context = MappingExpression.CheckContext(
      source: v1.entitiesByName["Traveller"], mappingNames: ["TravellerToPerson", "CountryToPlace"], hasPolicy: false)
    do {
      _ = try MappingExpression.checked(expression, in: context)
      Issue.record("\(expression) was accepted")
    } catch let unsupported as MappingExpression.Unsupported {
      #expect(unsupported.reason.contains(reason), "\(expression): \(unsupported.reason)")
    }
  }

  @Test("an expression set in code that ObjectGraph cannot evaluate stops the migration before anything is made")
  func refusedBeforeMigrating() throws {
    let (manager, storeURL, migratedURL) = try Self.store()
    let mapping = try Self.mapping { Self.set("countryCount", "$source.countries.@count + 1", in: $0) }
    let error = expectCode(.migration) {
      try manager.migrateStore(from: storeURL, type: .sqlite, mapping: mapping, to: migratedURL, type: .sqlite)
    }
    for part in ["'TravellerToPerson'", "'countryCount'", "$source.countries.@count + 1", "arithmetic"] {
      #expect(error?.message.contains(part) == true, "\(part): \(error?.message ?? "")")
    }
    #expect(!FileManager.default.fileExists(atPath: migratedURL.path))
  }
}
