import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

@Suite("Mapping model files (.xcmappingmodel, .cdm)", .temporaryFolders)
struct MappingModelFileTests {
  static func mappingFolder() throws -> URL {
    try Fixtures.sampleModelFolder().appendingPathComponent("MappingModels", isDirectory: true)
  }

  static func xcmapping() throws -> URL { try mappingFolder().appendingPathComponent("V2toV3.xcmappingmodel") }
  static func cdm() throws -> URL { try mappingFolder().appendingPathComponent("V2toV3.cdm") }

  static func version(_ name: String) throws -> NSManagedObjectModel {
    let versions = try NSManagedObjectModel.versions(in: CompiledModelTests.xcdatamodeld())
    return try #require(versions.first { $0.name == name }?.model)
  }

  static let policyClass = "REPLACE_AT_RUNTIME.V2to3MakerPolicy"
  static let manager = "FUNCTION($manager, "
  static func toPerson(_ keyPath: String) -> String {
    "FUNCTION($manager, \"destinationInstancesForEntityMappingNamed:sourceInstances:\", \"PersonToPerson\", $source.\(keyPath))"
  }

  @Test("the .xcmappingmodel and the .cdm compiled from it load to equal mapping models", .needsFixtures)
  func bothFormsAreEqual() throws {
    let xcode = try NSMappingModel(loadingContentsOf: Self.xcmapping())
    let compiled = try NSMappingModel(loadingContentsOf: Self.cdm())
    #expect(xcode == compiled)
    for (a, b) in zip(xcode.entityMappings, compiled.entityMappings) {
      #expect(a.name == b.name)
      #expect(a.mappingType == b.mappingType, "\(a.name)")
      #expect(a.attributeMappings.map(\.valueExpression) == b.attributeMappings.map(\.valueExpression), "\(a.name)")
      #expect(a.relationshipMappings.map(\.valueExpression) == b.relationshipMappings.map(\.valueExpression), "\(a.name)")
    }
    #expect(
      compiled.entityMappings.map(\.name) == [
        "CarToCar", "LuxuryCarToLuxuryCar", "PersonToPerson", "SportCarToSportCar", "Maker",
      ])
    #expect(
      compiled.entityMappings.map(\.mappingType) == [
        .customEntityMappingType, .customEntityMappingType, .copyEntityMappingType, .customEntityMappingType, .addEntityMappingType,
      ])
    #expect(
      compiled.entityMappings.map(\.entityMigrationPolicyClassName) == [Self.policyClass, Self.policyClass, nil, Self.policyClass, nil])
    let car = try #require(compiled.entityMappingsByName["CarToCar"])
    #expect(car.sourceEntityName == "Car" && car.destinationEntityName == "Car" && car.sourcePredicate == nil)
    #expect(car.attributeMappings.map(\.name) == ["markedForDeletionAsOf", "model", "numberPlate"])
    #expect(car.attributeMappings.map(\.valueExpression) == ["$source.markedForDeletionAsOf", "$source.model", "$source.numberPlate"])
    #expect(car.relationshipMappings.map(\.valueExpression) == [nil, Self.toPerson("owner"), Self.toPerson("owner")])
    #expect(car.sourceEntityVersionHash?.count == 32 && car.destinationEntityVersionHash?.count == 32)
    let person = try #require(compiled.entityMappingsByName["PersonToPerson"])
    #expect(
      person.relationshipMappings.map(\.valueExpression) == [
        "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"cars\", $source.cars)",
        "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"cars\", $source.cars)",
      ])
    let maker = try #require(compiled.entityMappingsByName["Maker"])
    #expect(maker.sourceEntityName == nil && maker.attributeMappings.map(\.valueExpression) == [nil])
    // A different mapping model is not equal.
    let changed = try NSMappingModel(loadingContentsOf: Self.cdm())
    changed.entityMappings[0].attributeMappings[0].valueExpression = "$source.model"
    #expect(changed != compiled)
  }

  @Test("the explicit models: the same mapping; entities the models lack are refused naming the file", .needsFixtures)
  func explicitModels() throws {
    let v2 = try Self.version("SampleModel2")
    let v3 = try Self.version("SampleModel3")
    #expect(
      try NSMappingModel(contentsOf: Self.xcmapping(), sourceModel: v2, destinationModel: v3)
        == NSMappingModel(loadingContentsOf: Self.cdm()))
    let v1 = try Self.version("SampleModel")
    for url in [try Self.cdm(), try Self.xcmapping()] {
      CompiledModelTests.expectInvalid(url.lastPathComponent, ["LuxuryCar", "source model does not have"]) {
        _ = try NSMappingModel(contentsOf: url, sourceModel: v1, destinationModel: v3)
      }
    }
  }

  @Test("NSMappingModel(from:forSourceModel:destinationModel:) finds a .cdm by its entity version hashes", .needsFixtures)
  func fromBundles() throws {
    let folder = try TemporaryFolder()
    try FileManager.default.copyItem(at: Self.cdm(), to: folder.appending("V2toV3.cdm"))
    let bundle = try #require(Bundle(path: folder.url.path))
    let v1 = try CompiledModelTests.versionsOfMomd()[0]
    let v2 = try CompiledModelTests.versionsOfMomd()[1]
    let v3 = try CompiledModelTests.versionsOfMomd()[2]
    #expect(NSMappingModel(from: [bundle], forSourceModel: v1, destinationModel: v3) == nil)
    #expect(NSMappingModel(from: [bundle], forSourceModel: v2, destinationModel: nil) == nil)
    // The .cdm records Apple's hashes of its entities, which the engine's models compute too.
    let found = NSMappingModel(from: [bundle], forSourceModel: v2, destinationModel: v3)
    #expect(found == (try NSMappingModel(loadingContentsOf: Self.cdm())))
    #expect(found != nil)
  }

  @Test("damaged mapping files are refused naming the file", .needsFixtures)
  func damaged() throws {
    let folder = try TemporaryFolder()
    let bytes = try Data(contentsOf: Self.cdm())
    let truncated = folder.appending("Truncated.cdm")
    for length in stride(from: 0, to: bytes.count, by: 211) {
      try bytes.prefix(length).write(to: truncated)
      CompiledModelTests.expectInvalid(truncated.path, ["mapping model file"]) { _ = try NSMappingModel(loadingContentsOf: truncated) }
    }
    let model = folder.appending("Model.cdm")
    try FileManager.default.copyItem(at: CompiledModelTests.momd().appendingPathComponent("SampleModel.mom"), to: model)
    CompiledModelTests.expectInvalid(model.path, ["NSManagedObjectModel, not an NSMappingModel"]) {
      _ = try NSMappingModel(loadingContentsOf: model)
    }
    // An xcmapping.xml whose models cannot be found, and one that is not XML.
    let lonely = folder.appending("Lonely.xcmappingmodel")
    try FileManager.default.createDirectory(at: lonely, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: Self.xcmapping().appendingPathComponent("xcmapping.xml"), to: lonely.appendingPathComponent("xcmapping.xml"))
    CompiledModelTests.expectInvalid("xcmapping.xml", ["SampleModel2.xcdatamodel", "sourceModel:destinationModel:"]) {
      _ = try NSMappingModel(loadingContentsOf: lonely)
    }
    let v2 = try Self.version("SampleModel2")
    let v3 = try Self.version("SampleModel3")
    #expect(try NSMappingModel(contentsOf: lonely, sourceModel: v2, destinationModel: v3) == NSMappingModel(loadingContentsOf: Self.cdm()))
    let file = lonely.appendingPathComponent("xcmapping.xml")
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
    try Data("<database><object type=\"A\" id=\"z1\"><attr".utf8).write(to: file)
    CompiledModelTests.expectInvalid("xcmapping.xml", ["not well-formed XML"]) {
      _ = try NSMappingModel(contentsOf: lonely, sourceModel: v2, destinationModel: v3)
    }
  }

  /// What the app's `V2to3MakerPolicy` does: each car's old `maker` text becomes a `Maker` object (one per
  /// name) that the new car is `createdBy`.
  final class MakerPolicy: NSEntityMigrationPolicy {
    var makers: [String: NSManagedObject] = [:]

    override func createDestinationInstances(
      forSource source: NSManagedObject, in mapping: NSEntityMapping, manager: NSMigrationManager
    ) throws {
      try super.createDestinationInstances(forSource: source, in: mapping, manager: manager)
      guard let name = source.value(forKey: "maker") as? String else { return }
      let maker: NSManagedObject
      if let known = makers[name] {
        maker = known
      } else {
        maker = NSEntityDescription.insertNewObject(forEntityName: "Maker", into: manager.destinationContext)
        maker.setValue(name, forKey: "name")
        makers[name] = maker
      }
      for car in manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [source]) {
        car.setValue(maker, forKey: "createdBy")
      }
    }
  }

  /// A SampleModel2 store made by the engine: 3 people, 4 cars, a sports car and a luxury car.
  static func writeVersion2Store(at url: URL) throws {
    let context = try StoreStack(model: try version("SampleModel2"), at: url).context
    try context.performAndWait {
      let people = (0..<3).map { index in
        let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
        person.setValue("First\(index)", forKey: "firstName")
        person.setValue("Last\(index)", forKey: "lastName")
        person.setValue(Date(timeIntervalSinceReferenceDate: Double(index)), forKey: "updatedAt")
        return person
      }
      for (index, entity) in ["Car", "Car", "Car", "Car", "SportCar", "LuxuryCar"].enumerated() {
        let car = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        car.setValue("PLATE-\(index)", forKey: "numberPlate")
        car.setValue(index % 2 == 0 ? "Fiat" : "Tesla", forKey: "maker")
        car.setValue("Model \(index)", forKey: "model")
        car.setValue(people[index % 3], forKey: "owner")
        if entity == "LuxuryCar" { car.setValue(true, forKey: "isLimitedEdition") }
      }
      try context.save()
    }
  }

  @Test("migrating an engine-made SampleModel2 store with each file gives SampleModel3's objects", .needsFixtures)
  func migrate() throws {
    for url in [try Self.cdm(), try Self.xcmapping()] {
      let folder = try TemporaryFolder()
      let storeURL = folder.appending("V2.sqlite")
      let migratedURL = folder.appending("V3.sqlite")
      try Self.writeVersion2Store(at: storeURL)
      let mapping = try NSMappingModel(loadingContentsOf: url)
      let v2 = try Self.version("SampleModel2")
      let v3 = try Self.version("SampleModel3")

      // The named policy class cannot be made from its name: refused, naming the mapping and the class.
      do {
        try NSMigrationManager(sourceModel: v2, destinationModel: v3).migrateStore(
          from: storeURL, type: .sqlite, mapping: mapping, to: migratedURL, type: .sqlite)
        Issue.record("migrated without the policy instance")
      } catch let error as ObjectGraphError {
        #expect(error.message.contains("CarToCar") && error.message.contains(Self.policyClass), "\(error.message)")
      }

      let policy = MakerPolicy()
      for entityMapping in mapping.entityMappings where entityMapping.entityMigrationPolicyClassName != nil {
        entityMapping.migrationPolicy = policy
      }
      try NSMigrationManager(sourceModel: v2, destinationModel: v3).migrateStore(
        from: storeURL, type: .sqlite, mapping: mapping, to: migratedURL, type: .sqlite)

      let context = try MigrationTests.open(
        v3, at: migratedURL, options: [NSMigratePersistentStoresAutomaticallyOption: false, NSInferMappingModelAutomaticallyOption: true])
      try context.performAndWait {
        let cars = try MigrationTests.fetch("Car", in: context, sortedBy: "numberPlate")
        #expect(cars.map(\.entity.entityName) == ["Car", "Car", "Car", "Car", "SportCar", "LuxuryCar"], "\(url.lastPathComponent)")
        #expect(cars.map { $0.value(forKey: "model") as? String } == (0..<6).map { "Model \($0)" })
        #expect(
          cars.map { ($0.value(forKey: "createdBy") as? NSManagedObject)?.value(forKey: "name") as? String } == [
            "Fiat", "Tesla", "Fiat", "Tesla", "Fiat", "Tesla",
          ])
        #expect(
          cars.map { ($0.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "firstName") as? String } == [
            "First0", "First1", "First2", "First0", "First1", "First2",
          ])
        // previousOwners is mapped from the old owner.
        #expect(
          cars.map {
            (($0.value(forKey: "previousOwners") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "firstName") as? String }
          }
            == [["First0"], ["First1"], ["First2"], ["First0"], ["First1"], ["First2"]])
        #expect(cars.last?.value(forKey: "isLimitedEdition") as? Bool == true)
        let makers = try MigrationTests.fetch("Maker", in: context, sortedBy: "name")
        #expect(makers.map { $0.value(forKey: "name") as? String } == ["Fiat", "Tesla"])
        #expect(makers.map { ($0.value(forKey: "cars") as? Set<NSManagedObject>)?.count } == [3, 3])
        let people = try MigrationTests.fetch("Person", in: context, sortedBy: "firstName")
        let carCounts: [Int?] = people.map { person -> Int? in (person.value(forKey: "cars") as? Set<NSManagedObject>)?.count }
        let previousCarCounts: [Int?] = people.map { person -> Int? in
          (person.value(forKey: "previousCars") as? Set<NSManagedObject>)?.count
        }
        let twoEach: [Int?] = [2, 2, 2]
        #expect(carCounts == twoEach)
        #expect(previousCarCounts == twoEach)
      }
    }
  }
}
