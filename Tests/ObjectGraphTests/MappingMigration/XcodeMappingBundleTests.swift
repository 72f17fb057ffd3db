import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Mapping models as a Swift package on Linux ships them: an `.xcmappingmodel` folder (nothing compiles it to
/// a `.cdm` there) in a bundle beside the model's `.xcdatamodeld`, found by the bundle search and on open by
/// the hashes of the models it records; relationship mappings that name only Xcode's "Key Path" and
/// "Mapping Name" (`sourcekeypath`, `sourcemappingname`); and value expressions ObjectGraph cannot evaluate,
/// refused when the file is loaded.
@Suite("Xcode mapping models in bundles", .temporaryFolders)
struct XcodeMappingBundleTests {
  typealias Trips = TripsFixture

  static let visited =
    "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"CountryToPlace\", $source.countries)"

  @Test("a relationship mapping naming only its key path and mapping name loads as the FUNCTION Xcode writes")
  func keyPathAndMappingName() throws {
    let mapping = try NSMappingModel(loadingContentsOf: Trips.mapping)
    let person = try #require(mapping.entityMappingsByName["TravellerToPerson"])
    let expressions = Dictionary(uniqueKeysWithValues: person.relationshipMappings.map { ($0.name, $0.valueExpression) })
    #expect(expressions["visited"] == Self.visited)
    #expect(
      expressions["moods"]
        == "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"MoodToMood\", $source.countries.@distinctUnionOfSets.moods)"
    )
    let place = try #require(mapping.entityMappingsByName["CountryToPlace"])
    let placeExpressions = Dictionary(uniqueKeysWithValues: place.relationshipMappings.map { ($0.name, $0.valueExpression) })
    // No mapping name: the mapping of the entity the key path reaches.
    #expect(
      placeExpressions["visitors"]
        == "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"TravellerToPerson\", $source.travellers)"
    )
    #expect(
      person.attributeMappings.map { "\($0.name)=\($0.valueExpression ?? "nil")" } == [
        "averagePopulation=$source.countries.@avg.population", "countryCount=$source.countries.@count",
        "largest=$source.countries.@max.population", "name=$source.name", "note=\"imported\"", "rank=7",
        "smallest=$source.countries.@min.population", "totalPopulation=$source.countries.@sum.population",
      ])
  }

  @Test("a bundle holding only an .xcmappingmodel and its model: found by the hashes of the models it records")
  func foundInBundle() throws {
    let folder = try TemporaryFolder()
    let xcdatamodeld = try Trips.bundle(in: folder)
    let bundle = try #require(Bundle(path: folder.url.path))
    let v1 = try Trips.version("Trips", in: xcdatamodeld)
    let v2 = try Trips.version("Trips 2", in: xcdatamodeld)
    let found = try #require(NSMappingModel(from: [bundle], forSourceModel: v1, destinationModel: v2))
    #expect(found == (try NSMappingModel(loadingContentsOf: Trips.mapping)))
    #expect(found.entityMappings.map(\.name) == ["TravellerToPerson", "CountryToPlace", "MoodToMood", "ContinentToContinent"])
    // Made for v1 to v2: not for the other way, nor from a version to itself.
    #expect(NSMappingModel(from: [bundle], forSourceModel: v2, destinationModel: v1) == nil)
    #expect(NSMappingModel(from: [bundle], forSourceModel: v1, destinationModel: v1) == nil)
  }

  @Test("opening a store finds the .xcmappingmodel beside the model and migrates every value and relationship")
  func migratesOnOpen() throws {
    let folder = try TemporaryFolder()
    let xcdatamodeld = try Trips.bundle(in: folder)
    let storeURL = folder.appending("Trips.sqlite")
    try Trips.writeVersion1Store(at: storeURL, model: try Trips.version("Trips", in: xcdatamodeld))
    let v2 = try Trips.version("Trips 2", in: xcdatamodeld)
    var options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: false]
    options[ObjectGraphMappingModelMigrationOption] = MappingModelMigration.mappingModels()
    let context = try MigrationTests.open(v2, at: storeURL, options: options)
    try context.performAndWait {
      let people = try Trips.byName("Person", in: context)
      #expect(people.keys.sorted() == ["Ada", "Bo", "Cy"])
      let (ada, bo, cy) = (people["Ada"], people["Bo"], people["Cy"])
      // Constants and aggregates.
      #expect(people.values.map { $0.value(forKey: "note") as? String } == ["imported", "imported", "imported"])
      #expect(people.values.map { Trips.int($0, "rank") } == [7, 7, 7])
      #expect([ada, bo, cy].map { Trips.int($0, "countryCount") } == [2, 2, 0])
      #expect([ada, bo, cy].map { Trips.int($0, "totalPopulation") } == [192, 126, 0])
      #expect([ada, bo, cy].map { ($0?.value(forKey: "averagePopulation") as? NSNumber)?.doubleValue } == [96, 63, 0])
      #expect([ada, bo, cy].map { Trips.int($0, "smallest") } == [67, 59, nil])
      #expect([ada, bo, cy].map { Trips.int($0, "largest") } == [125, 67, nil])
      // Relationships: through the mapping named in the file, and through collection operators.
      #expect(Trips.names(ada, "visited") == ["France", "Japan"])
      #expect(Trips.names(bo, "visited") == ["France", "Italy"])
      #expect(Trips.names(cy, "visited") == [])
      #expect(Trips.names(ada, "moods") == ["busy", "calm", "sunny"])
      #expect(Trips.names(bo, "moods") == ["calm", "sunny"])
      #expect(Trips.names(ada, "continents") == ["Asia", "Europe"])
      #expect(Trips.names(bo, "continents") == ["Europe"])
      let places = try Trips.byName("Place", in: context)
      #expect(places.keys.sorted() == ["France", "Italy", "Japan"])
      #expect(Trips.names(places["France"], "visitors") == ["Ada", "Bo"])
      #expect(Trips.names(places["Japan"], "moods") == ["busy", "calm"])
      #expect((places["Italy"]?.value(forKey: "continent") as? NSManagedObject)?.value(forKey: "name") as? String == "Europe")
      let moods = try Trips.byName("Mood", in: context)
      #expect(Trips.names(moods["calm"], "places") == ["France", "Japan"])
      #expect(Trips.names(moods["calm"], "people") == ["Ada", "Bo"])
      let continents = try Trips.byName("Continent", in: context)
      #expect(Trips.names(continents["Europe"], "places") == ["France", "Italy"])
      #expect(Trips.names(continents["Asia"], "people") == ["Ada"])
    }
  }

  @Test("value expressions ObjectGraph cannot evaluate are refused at load, naming mapping, property and expression")
  func refusedAtLoad() throws {
    let unknown = expectCode(.modelInvalid) { _ = try NSMappingModel(loadingContentsOf: Trips.refused("UnknownSelector")) }
    for part in ["UnknownSelector.xcmappingmodel", "'TravellerToPerson'", "'note'", "FUNCTION($source, \"reversedName:\", \"x\")"] {
      #expect(unknown?.message.contains(part) == true, "\(part): \(unknown?.message ?? "")")
    }
    let subquery = expectCode(.modelInvalid) { _ = try NSMappingModel(loadingContentsOf: Trips.refused("Subquery")) }
    for part in ["'TravellerToPerson'", "'note'", "<NSExpression type 13 (NSSubqueryExpression)>"] {
      #expect(subquery?.message.contains(part) == true, "\(part): \(subquery?.message ?? "")")
    }
    // Found by the bundle search, the matching file is refused the same way; opening the store leaves it as it was.
    let folder = try TemporaryFolder()
    let xcdatamodeld = try Trips.bundle(in: folder, mapping: Trips.refused("UnknownSelector"))
    let v1 = try Trips.version("Trips", in: xcdatamodeld)
    let v2 = try Trips.version("Trips 2", in: xcdatamodeld)
    let bundle = try #require(Bundle(path: folder.url.path))
    _ = expectCode(.modelInvalid) { _ = try NSMappingModel.matching(in: [bundle], source: v1, destination: v2) }
    let logged = ErrorLog.capturing { #expect(NSMappingModel(from: [bundle], forSourceModel: v1, destinationModel: v2) == nil) }
    #expect(logged.count == 1 && logged.first?.contains("UnknownSelector.xcmappingmodel") == true, "\(logged)")
    let storeURL = folder.appending("Trips.sqlite")
    try Trips.writeVersion1Store(at: storeURL, model: v1)
    let before = try Data(contentsOf: storeURL)
    var options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: false]
    options[ObjectGraphMappingModelMigrationOption] = MappingModelMigration.mappingModels()
    do {
      _ = try MigrationTests.open(v2, at: storeURL, options: options)
      Issue.record("opened with a mapping model holding an expression ObjectGraph cannot evaluate")
    } catch let error as ObjectGraphError {
      #expect(error.message.contains("reversedName:"), "\(error.message)")
    }
    #expect(try Data(contentsOf: storeURL) == before)
  }

  @Test("CoreDataPlus's V2toV3.xcmappingmodel alone in a bundle with its model: found, and migrates on open", .needsFixtures)
  func coreDataPlusBundle() throws {
    let folder = try TemporaryFolder()
    let xcdatamodeld = folder.appending("SampleModel.xcdatamodeld")
    try FileManager.default.copyItem(at: try CompiledModelTests.xcdatamodeld(), to: xcdatamodeld)
    try FileManager.default.copyItem(at: try MappingModelFileTests.xcmapping(), to: folder.appending("V2toV3.xcmappingmodel"))
    let bundle = try #require(Bundle(path: folder.url.path))
    let versions = try NSManagedObjectModel.versions(in: xcdatamodeld)
    let v2 = try #require(versions.first { $0.name == "SampleModel2" }?.model)
    let v3 = try #require(versions.first { $0.name == "SampleModel3" }?.model)
    let found = NSMappingModel(from: [bundle], forSourceModel: v2, destinationModel: v3)
    #expect(found == (try NSMappingModel(loadingContentsOf: try MappingModelFileTests.cdm())))
    #expect(found != nil)
    #expect(NSMappingModel(from: [bundle], forSourceModel: v3, destinationModel: v2) == nil)

    let storeURL = folder.appending("Cars.sqlite")
    try MappingModelFileTests.writeVersion2Store(at: storeURL)
    var options: [AnyHashable: Any] = [NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: false]
    options[ObjectGraphMappingModelMigrationOption] = MappingModelMigration.mappingModels(policies: MappingModelOnOpenTests.policies)
    let context = try MigrationTests.open(v3, at: storeURL, options: options)
    try context.performAndWait {
      let makers = try MigrationTests.fetch("Maker", in: context, sortedBy: "name")
      #expect(makers.map { $0.value(forKey: "name") as? String } == ["Fiat", "Tesla"])
      let cars = try MigrationTests.fetch("Car", in: context, sortedBy: "numberPlate")
      #expect(cars.count == 6)
      #expect(cars.allSatisfy { ($0.value(forKey: "previousOwners") as? Set<NSManagedObject>)?.count == 1 })
    }
  }

  @Test("with both a .cdm and an .xcmappingmodel in the bundles, the .cdm wins; an unreadable one alone is named", .needsFixtures)
  func compiledWins() throws {
    let folder = try TemporaryFolder()
    try FileManager.default.copyItem(at: try MappingModelFileTests.cdm(), to: folder.appending("V2toV3.cdm"))
    // An .xcmappingmodel that cannot even be read: never read when the .cdm matches.
    let broken = folder.appending("A.xcmappingmodel")
    try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
    try Data("<database><object".utf8).write(to: broken.appendingPathComponent("xcmapping.xml"))
    let versions = try CompiledModelTests.versionsOfMomd()
    let bundle = try #require(Bundle(path: folder.url.path))
    let found = NSMappingModel(from: [bundle], forSourceModel: versions[1], destinationModel: versions[2])
    #expect(found == (try NSMappingModel(loadingContentsOf: try MappingModelFileTests.cdm())))
    // Without the .cdm, nothing matches, and the file that could not be read is named.
    try FileManager.default.removeItem(at: folder.appending("V2toV3.cdm"))
    let error = expectCode(.modelInvalid) {
      _ = try NSMappingModel.matching(in: [bundle], source: versions[1], destination: versions[2])
    }
    #expect(error?.message.contains("A.xcmappingmodel") == true, "\(error?.message ?? "")")
    let logged = ErrorLog.capturing {
      #expect(NSMappingModel(from: [bundle], forSourceModel: versions[1], destinationModel: versions[2]) == nil)
    }
    #expect(logged.count == 1 && logged.first?.contains("A.xcmappingmodel") == true, "\(logged)")
  }
}
