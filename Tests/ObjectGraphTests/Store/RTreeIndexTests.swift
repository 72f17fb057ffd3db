import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// R-tree fetch indexes (`NSFetchIndexElementType.rTree`): the R*Tree virtual table a SQLite store keeps for one,
/// in step with the entity's rows on every write path, and the `indexed:by:` predicate function that reads it.
@Suite("R-tree fetch indexes", .temporaryFolders)
struct RTreeIndexTests {
  static let byLocation = NSFetchIndexDescription(
    name: "byLocation",
    elements: [.init(propertyName: "latitude", collationType: .rTree), .init(propertyName: "longitude", collationType: .rTree)])

  /// `Region` (name, latitude, longitude, and `extra` when asked) with `indexes`.
  static func model(indexes: [NSFetchIndexDescription] = [byLocation], extra: Bool = false, name: Bool = true) throws
    -> NSManagedObjectModel
  {
    var properties: [NSPropertyDescription] = [
      .attribute(NSAttributeDescription(name: "latitude", type: .double)),
      .attribute(NSAttributeDescription(name: "longitude", type: .double)),
    ]
    if name { properties.append(.attribute(NSAttributeDescription(name: "name", type: .string))) }
    if extra { properties.append(.attribute(NSAttributeDescription(name: "altitude", type: .integer32))) }
    let region = NSEntityDescription(name: "Region", properties: properties)
    region.indexes = indexes
    return try NSManagedObjectModel(entities: [region])
  }

  /// The R-tree's rows and the entity's rows with a coordinate set, each as `Z_PK` to its point; the R-tree's
  /// values are SQLite's 32-bit floats, rounded outwards, so each point is checked to lie in its box.
  static func expectInStep(_ url: URL, table: String = "Z_Region_byLocation", sourceLocation: SourceLocation = #_sourceLocation)
    throws
  {
    let boxes = try rawRows(url, "SELECT * FROM \(table) ORDER BY Z_PK")
    let rows = try rawRows(
      url, "SELECT Z_PK, ZLATITUDE, ZLONGITUDE FROM ZREGION WHERE ZLATITUDE NOT NULL OR ZLONGITUDE NOT NULL ORDER BY Z_PK")
    #expect(boxes.map { $0["Z_PK"] as Int64 } == rows.map { $0["Z_PK"] as Int64 }, sourceLocation: sourceLocation)
    for (box, row) in zip(boxes, rows) {
      // A nil coordinate spans its whole axis.
      let latitude: Double = row["ZLATITUDE"] ?? 0
      let longitude: Double = row["ZLONGITUDE"] ?? 0
      #expect(
        (box["ZLATITUDE_MIN"] as Double) <= latitude && latitude <= (box["ZLATITUDE_MAX"] as Double)
          && (box["ZLONGITUDE_MIN"] as Double) <= longitude && longitude <= (box["ZLONGITUDE_MAX"] as Double),
        "row \(row) is not in its box \(box)", sourceLocation: sourceLocation)
    }
  }

  static func insert(_ points: [(Double?, Double?)], in context: NSManagedObjectContext) throws {
    try context.performAndWait {
      let entity = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Region"])
      for (index, point) in points.enumerated() {
        let region = NSManagedObject(entity: entity, insertInto: context)
        region.setValue(point.0, forKey: "latitude")
        region.setValue(point.1, forKey: "longitude")
        region.setValue("r\(index)", forKey: "name")
      }
      try context.save()
    }
  }

  static func names(_ format: String, _ arguments: [Any], in context: NSManagedObjectContext) throws -> [String] {
    try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Region")
      request.predicate = NSPredicate(format: format, argumentArray: arguments)
      return try context.fetch(request).compactMap { $0.value(forKey: "name") as? String }.sorted()
    }
  }

  static func sql(_ url: URL, _ kind: String, _ name: String) throws -> String? {
    try rawRows(url, "SELECT sql FROM sqlite_master WHERE type = '\(kind)' AND name = '\(name)'").first?["sql"]
  }

  @Test("SQLite here has the R*Tree module")
  func moduleAvailable() throws {
    let queue = try DatabaseQueue()
    let options = try queue.read { try String.fetchAll($0, sql: "PRAGMA compile_options") }
    #expect(options.contains("ENABLE_RTREE"), "\(options)")
  }

  @Test("a new store has the index's virtual table, as Core Data names and writes it, and its three triggers")
  func createdTable() throws {
    let stack = try StoreStack(model: try Self.model())
    let url = stack.storeURL
    #expect(
      try Self.sql(url, "table", "Z_Region_byLocation")
        == "CREATE VIRTUAL TABLE Z_Region_byLocation USING RTREE (Z_PK INTEGER PRIMARY KEY, ZLATITUDE_MIN, ZLATITUDE_MAX, ZLONGITUDE_MIN, ZLONGITUDE_MAX)"
    )
    for suffix in ["_INSERT", "_UPDATE", "_DELETE"] {
      #expect(try Self.sql(url, "trigger", "Z_Region_byLocation" + suffix) != nil, "no trigger \(suffix)")
    }
    #expect(
      try Self.sql(url, "trigger", "Z_Region_byLocation_DELETE")
        == "CREATE TRIGGER Z_Region_byLocation_DELETE AFTER DELETE ON ZREGION FOR EACH ROW BEGIN DELETE FROM Z_Region_byLocation WHERE Z_PK = OLD.Z_PK ; END"
    )
    // No B-tree index is made for it.
    #expect(try rawRows(url, "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'Z_Region_%'").isEmpty)
  }

  @Test("the table follows saves (insert, update, delete), batch updates and batch deletes; a nil coordinate spans its axis")
  func inStep() throws {
    let stack = try StoreStack(model: try Self.model())
    let url = stack.storeURL
    let context = stack.context
    try Self.insert([(1, 2), (3, 4), (nil, 5), (7.25, -8.5), (nil, nil)], in: context)
    #expect(try rawRows(url, "SELECT COUNT(*) AS n FROM Z_Region_byLocation").first?["n"] == 4)
    let open = try rawRows(url, "SELECT ZLATITUDE_MIN, ZLATITUDE_MAX FROM Z_Region_byLocation WHERE ZLONGITUDE_MIN = 5")
    #expect(open.first?["ZLATITUDE_MIN"] == -Double.infinity && open.first?["ZLATITUDE_MAX"] == Double.infinity, "\(open)")
    try Self.expectInStep(url)

    try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Region")
      request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
      let regions = try context.fetch(request)
      regions[0].setValue(10.5, forKey: "latitude")  // moved
      regions[1].setValue(nil, forKey: "longitude")  // spans the longitudes
      regions[2].setValue(6, forKey: "latitude")  // in
      context.delete(regions[3])
      try context.save()
    }
    try Self.expectInStep(url)
    #expect(try rawRows(url, "SELECT COUNT(*) AS n FROM Z_Region_byLocation").first?["n"] == 3)

    try context.performAndWait {
      let update = NSBatchUpdateRequest(entityName: "Region")
      update.propertiesToUpdate = ["longitude": 42.0]
      _ = try context.execute(update)
    }
    try Self.expectInStep(url)
    #expect(
      try rawRows(url, "SELECT COUNT(*) AS n FROM Z_Region_byLocation WHERE ZLONGITUDE_MIN <= 42 AND ZLONGITUDE_MAX >= 42").first?["n"] == 4
    )

    try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Region")
      request.predicate = NSPredicate(format: "latitude > 8")
      _ = try context.execute(NSBatchDeleteRequest(fetchRequest: request))
    }
    try Self.expectInStep(url)
    #expect(try rawRows(url, "SELECT COUNT(*) AS n FROM Z_Region_byLocation").first?["n"] == 3)

    try context.performAndWait {
      let insert = NSBatchInsertRequest(
        entityName: "Region", objects: [["latitude": 20.0, "longitude": 30.0, "name": "b0"], ["name": "b1"]])
      _ = try context.execute(insert)
    }
    try Self.expectInStep(url)
    #expect(try rawRows(url, "SELECT COUNT(*) AS n FROM Z_Region_byLocation").first?["n"] == 4)
  }

  @Test("a subentity's fetch reads the R-tree its superentity declares; the table holds the whole hierarchy's rows")
  func subentity() throws {
    let region = NSEntityDescription(
      name: "Region",
      properties: [
        .attribute(NSAttributeDescription(name: "latitude", type: .double)),
        .attribute(NSAttributeDescription(name: "longitude", type: .double)),
        .attribute(NSAttributeDescription(name: "name", type: .string)),
      ])
    region.indexes = [Self.byLocation]
    let city = NSEntityDescription(name: "City", properties: [.attribute(NSAttributeDescription(name: "population", type: .integer64))])
    region.subentities = [city]
    let model = try NSManagedObjectModel(entities: [region, city])
    let log = Locked<[String]>([])
    let stack = try StoreStack(
      model: model, options: [ObjectGraphSQLTraceOption: { sql in log.withLock { $0.append(sql) } } as @Sendable (String) -> Void])
    try stack.context.performAndWait {
      for (index, name) in ["Region", "City", "City"].enumerated() {
        let object = NSManagedObject(entity: try #require(model.entitiesByName[name]), insertInto: stack.context)
        object.setValue(Double(index), forKey: "latitude")
        object.setValue(Double(index), forKey: "longitude")
        object.setValue("\(name)\(index)", forKey: "name")
      }
      try stack.context.save()
    }
    try Self.expectInStep(stack.storeURL)
    let cities = try stack.context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "City")
      request.predicate = NSPredicate(format: #"indexed:by:(latitude, "byLocation") <= 1"#)
      return try stack.context.fetch(request).compactMap { $0.value(forKey: "name") as? String }
    }
    #expect(cities == ["City1"])
    let fetch = log.withLock { $0 }.last { $0.contains("FROM ZREGION") } ?? ""
    #expect(fetch.contains("Z_Region_byLocation"), "\(fetch)")
  }

  @Test("a fetch with indexed:by: reads the R-tree, then compares the column itself")
  func fetchSQL() throws {
    let log = Locked<[String]>([])
    let stack = try StoreStack(
      model: try Self.model(), fileName: "Traced.sqlite",
      options: [ObjectGraphSQLTraceOption: { sql in log.withLock { $0.append(sql) } } as @Sendable (String) -> Void])
    try Self.insert([(1, 1), (2, 2), (3, 3)], in: stack.context)
    let found = try Self.names(
      #"indexed:by:(latitude, "byLocation") BETWEEN { %@, %@ } AND indexed:by:(longitude, "byLocation") BETWEEN { %@, %@ }"#,
      [1.5, 3.0, 0.0, 2.5], in: stack.context)
    #expect(found == ["r1"])
    let fetch = log.withLock { $0 }.last { $0.contains("FROM ZREGION") } ?? ""
    #expect(
      fetch.contains("t0.Z_PK IN (SELECT Z_PK FROM Z_Region_byLocation WHERE ZLATITUDE_MAX >= ? AND ZLATITUDE_MIN <= ?)")
        && fetch.contains("t0.Z_PK IN (SELECT Z_PK FROM Z_Region_byLocation WHERE ZLONGITUDE_MAX >= ? AND ZLONGITUDE_MIN <= ?)")
        && fetch.contains("t0.ZLATITUDE BETWEEN"),
      "\(fetch)")

    // One bound, and equality.
    #expect(try Self.names(#"indexed:by:(latitude, "byLocation") < 2"#, [], in: stack.context) == ["r0"])
    #expect(try Self.names(#"indexed:by:(latitude, "byLocation") >= 2"#, [], in: stack.context) == ["r1", "r2"])
    #expect(try Self.names(#"indexed:by:(longitude, "byLocation") == 3"#, [], in: stack.context) == ["r2"])
    let one = log.withLock { $0 }.last { $0.contains("FROM ZREGION") } ?? ""
    #expect(one.contains("WHERE ZLONGITUDE_MAX >= ? AND ZLONGITUDE_MIN <= ?"), "\(one)")

    // An index the entity does not have, or a comparison the R-tree cannot serve: the plain comparison.
    #expect(try Self.names(#"indexed:by:(latitude, "noSuchIndex") > 1"#, [], in: stack.context) == ["r1", "r2"])
    #expect(try Self.names(#"indexed:by:(name, "byLocation") == 'r1'"#, [], in: stack.context) == ["r1"])
    #expect(try Self.names(#"indexed:by:(latitude, "byLocation") != 1"#, [], in: stack.context) == ["r1", "r2"])
    let plain = log.withLock { $0 }.suffix(6).filter { $0.contains("FROM ZREGION") }
    #expect(!plain.contains { $0.contains("Z_Region_byLocation") }, "\(plain)")
  }

  @Test("over a few hundred random points, indexed:by: finds what the plain predicate finds, in the store and in memory")
  func randomPoints() throws {
    var random = SeededPoints(seed: 20_171_005)
    let stack = try StoreStack(model: try Self.model())
    let memory = try StoreStack(model: try Self.model(), type: .inMemory)
    var points: [(Double?, Double?)] = (0..<300).map { _ in (random.next(in: -90...90), random.next(in: -180...180)) }
    points += [(nil, 3), (4, nil), (0, 0), (45, 90)]
    try Self.insert(points, in: stack.context)
    try Self.insert(points, in: memory.context)
    try Self.expectInStep(stack.storeURL)
    for _ in 0..<25 {
      let latitudes = [random.next(in: -90...90), random.next(in: -90...90)].sorted()
      let longitudes = [random.next(in: -180...180), random.next(in: -180...180)].sorted()
      let arguments: [Any] = latitudes + longitudes
      let indexed =
        #"indexed:by:(latitude, "byLocation") BETWEEN { %@, %@ } AND indexed:by:(longitude, "byLocation") BETWEEN { %@, %@ }"#
      let plain = "latitude BETWEEN { %@, %@ } AND longitude BETWEEN { %@, %@ }"
      let expected = try Self.names(plain, arguments, in: stack.context)
      #expect(try Self.names(indexed, arguments, in: stack.context) == expected)
      #expect(try Self.names(indexed, arguments, in: memory.context) == expected)
      // evaluate(with:) on the objects agrees too.
      let evaluated = try stack.context.performAndWait {
        let all = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Region"))
        let predicate = NSPredicate(format: indexed, argumentArray: arguments)
        return all.filter { predicate.evaluate(with: $0) }.compactMap { $0.value(forKey: "name") as? String }.sorted()
      }
      #expect(evaluated == expected)
      let bound = latitudes[0]
      for op in ["<", "<=", ">", ">="] {
        let viaIndex = try Self.names(#"indexed:by:(latitude, "byLocation") \#(op) %@"#, [bound], in: stack.context)
        let viaColumn = try Self.names("latitude \(op) %@", [bound], in: stack.context)
        #expect(viaIndex == viaColumn, "\(op) \(bound): \(viaIndex.count) against \(viaColumn.count)")
      }
    }
    // A value a 32-bit float cannot hold exactly, at the very edge of the range.
    let edge = try #require(points.compactMap(\.0).first)
    #expect(
      try Self.names(#"indexed:by:(latitude, "byLocation") BETWEEN { %@, %@ }"#, [edge, edge], in: stack.context)
        == Self.names("latitude == %@", [edge], in: stack.context))
  }

  @Test("indexed:by: parses from a format and from NSExpression's function form, and prints as Core Data writes it")
  func parsing() throws {
    let format = NSPredicate(format: #"indexed:by:(latitude, "byLocation") BETWEEN {1, 2}"#)
    #expect(format.formatText == #"indexed:by:(latitude, "byLocation") BETWEEN {1, 2}"#)
    let built = NSComparisonPredicate(
      leftExpression: NSExpression(
        forFunction: "indexed:by:", arguments: [NSExpression(forKeyPath: "latitude"), NSExpression(forConstantValue: "byLocation")]),
      rightExpression: NSExpression(forConstantValue: 5), modifier: .direct, type: .greaterThan)
    #expect(built.formatText == #"indexed:by:(latitude, "byLocation") > 5"#)
    let stack = try StoreStack(model: try Self.model())
    try Self.insert([(1.5, 0), (6, 0)], in: stack.context)
    let found = try stack.context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Region")
      request.predicate = built
      return try stack.context.fetch(request).compactMap { $0.value(forKey: "name") as? String }
    }
    #expect(found == ["r1"])
    #expect(throws: (any Error).self) { try FetchPredicate(NSPredicate(format: "indexed:by:(latitude) > 1")).resolvedNode }
  }

  @Test("an index added in a new model version is made and filled on open, without a migration; changed, it is rebuilt; removed, dropped")
  func followsTheModel() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let plain = try StoreStack(model: try Self.model(indexes: []), at: url)
    try Self.insert((0..<50).map { (Double($0), Double(-$0)) } + [(nil, 1)], in: plain.context)
    try plain.close()
    #expect(try Self.sql(url, "table", "Z_Region_byLocation") == nil)

    let indexed = try StoreStack(model: try Self.model(), at: url)
    #expect(try rawRows(url, "SELECT COUNT(*) AS n FROM Z_Region_byLocation").first?["n"] == 51)
    try Self.expectInStep(url)
    #expect(try Self.names(#"indexed:by:(latitude, "byLocation") BETWEEN {10, 12}"#, [], in: indexed.context) == ["r10", "r11", "r12"])
    try indexed.close()

    // Reopened as it is: the table is kept, not rebuilt (a row put in by hand stays).
    let queue = try DatabaseQueue(path: url.path)
    try queue.write { try $0.execute(sql: "INSERT INTO Z_Region_byLocation VALUES (999, 0, 0, 0, 0)") }
    try queue.close()
    try StoreStack(model: try Self.model(), at: url).close()
    #expect(try rawRows(url, "SELECT Z_PK FROM Z_Region_byLocation WHERE Z_PK = 999").count == 1)

    // Changed (one element): made again with its columns.
    let latitudeOnly = NSFetchIndexDescription(name: "byLocation", elements: [.init(propertyName: "latitude", collationType: .rTree)])
    try StoreStack(model: try Self.model(indexes: [latitudeOnly]), at: url).close()
    #expect(
      try Self.sql(url, "table", "Z_Region_byLocation")
        == "CREATE VIRTUAL TABLE Z_Region_byLocation USING RTREE (Z_PK INTEGER PRIMARY KEY, ZLATITUDE_MIN, ZLATITUDE_MAX)")
    // The row without a latitude is left out now.
    #expect(try rawRows(url, "SELECT COUNT(*) AS n FROM Z_Region_byLocation").first?["n"] == 50)

    // Removed: the table and its triggers go.
    try StoreStack(model: try Self.model(indexes: []), at: url).close()
    #expect(try rawRows(url, "SELECT name FROM sqlite_master WHERE name LIKE 'Z_Region_byLocation%'").isEmpty)
  }

  @Test("a store opened read-only without the table is left so, and its indexed:by: fetches compare the columns")
  func readOnlyWithoutTable() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let plain = try StoreStack(model: try Self.model(indexes: []), at: url)
    try Self.insert([(1, 1), (2, 2)], in: plain.context)
    try plain.close()
    let before = try Data(contentsOf: url)
    let reader = try StoreStack(model: try Self.model(), at: url, options: [NSReadOnlyPersistentStoreOption: true])
    #expect(try Self.names(#"indexed:by:(latitude, "byLocation") > 1"#, [], in: reader.context) == ["r1"])
    try reader.close()
    #expect(try Data(contentsOf: url) == before)
  }

  @Test("a table Core Data made, with its own triggers, is kept as it is")
  func keepsCoreDataTriggers() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try StoreStack(model: try Self.model(), at: url).close()
    // Core Data's update trigger fires on any change of a row.
    let coreData =
      "CREATE TRIGGER Z_Region_byLocation_UPDATE AFTER UPDATE ON ZREGION FOR EACH ROW BEGIN DELETE FROM Z_Region_byLocation WHERE Z_PK = NEW.Z_PK ; INSERT INTO Z_Region_byLocation (Z_PK, ZLATITUDE_MIN, ZLATITUDE_MAX, ZLONGITUDE_MIN, ZLONGITUDE_MAX) VALUES (NEW.Z_PK, NEW.ZLATITUDE, NEW.ZLATITUDE, NEW.ZLONGITUDE, NEW.ZLONGITUDE) ; END"
    let queue = try DatabaseQueue(path: url.path)
    try queue.write { db in
      try db.execute(sql: "DROP TRIGGER Z_Region_byLocation_UPDATE")
      try db.execute(sql: coreData)
    }
    try queue.close()
    let stack = try StoreStack(model: try Self.model(), at: url)
    #expect(try Self.sql(url, "trigger", "Z_Region_byLocation_UPDATE") == coreData)
    try Self.insert([(1, 2)], in: stack.context)
    try stack.context.performAndWait {
      let region = try #require(try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Region")).first)
      region.setValue(5.0, forKey: "latitude")
      try stack.context.save()
    }
    try Self.expectInStep(url)
  }

  @Test("a lightweight migration keeps the table in step with the migrated rows, and writes after it too")
  func migration() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let version1 = try Self.model()
    let first = try StoreStack(model: version1, at: url)
    try Self.insert((0..<20).map { (Double($0), Double($0) / 2) }, in: first.context)
    try first.close()

    // Version 2 adds an attribute and drops one, which changes the entity's table.
    let version2 = try Self.model(extra: true, name: false)
    let second = try StoreStack(
      model: version2, at: url, options: MigrationTests.migrationOptions(sourceModels: [version1]))
    try Self.expectInStep(url)
    #expect(try rawRows(url, "SELECT COUNT(*) AS n FROM Z_Region_byLocation").first?["n"] == 20)
    try second.context.performAndWait {
      let entity = try #require(version2.entitiesByName["Region"])
      let region = NSManagedObject(entity: entity, insertInto: second.context)
      region.setValue(100.0, forKey: "latitude")
      region.setValue(100.0, forKey: "longitude")
      let request = NSFetchRequest<NSManagedObject>(entityName: "Region")
      request.predicate = NSPredicate(format: "latitude < 5")
      for old in try second.context.fetch(request) { second.context.delete(old) }
      try second.context.save()
    }
    try Self.expectInStep(url)
    #expect(try rawRows(url, "SELECT COUNT(*) AS n FROM Z_Region_byLocation").first?["n"] == 16)
  }

  @Test("a mapping migration's copy-back brings the migrated store's R-tree with it, and later writes keep it in step")
  func mappingMigration() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let first = try StoreStack(model: try Self.model(), at: url)
    try Self.insert((0..<10).map { (Double($0), Double($0)) }, in: first.context)
    try first.close()
    let migration = MappingModelMigration { request in
      let destination = try StoreStack(model: request.destinationModel, at: request.migratedStoreURL, options: nil)
      try Self.insert([(1, 1), (2, 2), (3, 3)], in: destination.context)
      try destination.close()
      return true
    }
    let second = try StoreStack(
      model: try Self.model(extra: true), at: url,
      options: [NSMigratePersistentStoresAutomaticallyOption: true, ObjectGraphMappingModelMigrationOption: migration])
    try Self.expectInStep(url)
    #expect(try rawRows(url, "SELECT COUNT(*) AS n FROM Z_Region_byLocation").first?["n"] == 3)
    try Self.insert([(9, 9)], in: second.context)
    try Self.expectInStep(url)
    #expect(try Self.names(#"indexed:by:(latitude, "byLocation") > 2"#, [], in: second.context) == ["r0", "r2"])
  }

  @Test("a binary store keeps its R-tree out of its archive and fills it again as it loads")
  func binaryStore() throws {
    let folder = try TemporaryFolder()
    let stack = try StoreStack(model: try Self.model(), type: .binary, folder: folder, fileName: "Store.binary")
    try Self.insert([(1, 1), (2, 2), (3, nil)], in: stack.context)
    let (_, context) = try stack.reopened()
    #expect(try Self.names(#"indexed:by:(latitude, "byLocation") >= 2"#, [], in: context) == ["r1", "r2"])
    #expect(try Self.names(#"indexed:by:(longitude, "byLocation") BETWEEN {0, 1.5}"#, [], in: context) == ["r0"])
  }

  @Test("a model loaded from an .xcdatamodel with an RTree fetch index makes the table")
  func xcodeModel() throws {
    let folder = try TemporaryFolder()
    let modelURL = folder.appending("Regions.xcdatamodel")
    try FileManager.default.createDirectory(at: modelURL, withIntermediateDirectories: true)
    let contents = """
      <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
      <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift">
          <entity name="Region" representedClassName="Region" syncable="YES" codeGenerationType="class">
              <attribute name="latitude" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
              <attribute name="longitude" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
              <attribute name="name" optional="YES" attributeType="String"/>
              <fetchIndex name="byLocation">
                  <fetchIndexElement property="latitude" type="RTree" order="ascending"/>
                  <fetchIndexElement property="longitude" type="RTree" order="ascending"/>
              </fetchIndex>
          </entity>
      </model>
      """
    try Data(contents.utf8).write(to: modelURL.appendingPathComponent("contents"))
    let model = try NSManagedObjectModel(loadingContentsOf: modelURL)
    #expect(model.entitiesByName["Region"]?.indexes.first?.elements.map(\.collationType) == [.rTree, .rTree])
    let stack = try StoreStack(model: model, folder: folder)
    #expect(
      try Self.sql(stack.storeURL, "table", "Z_Region_byLocation")
        == "CREATE VIRTUAL TABLE Z_Region_byLocation USING RTREE (Z_PK INTEGER PRIMARY KEY, ZLATITUDE_MIN, ZLATITUDE_MAX, ZLONGITUDE_MIN, ZLONGITUDE_MAX)"
    )
    try Self.insert([(1, 1), (2, 2)], in: stack.context)
    try Self.expectInStep(stack.storeURL)
    #expect(try Self.names(#"indexed:by:(latitude, "byLocation") > 1.5"#, [], in: stack.context) == ["r1"])
  }
}

/// A small seeded generator (SplitMix64), so that the random points are the same at every run.
private struct SeededPoints {
  private var state: UInt64
  init(seed: UInt64) { state = seed }

  mutating func next(in range: ClosedRange<Double>) -> Double {
    state &+= 0x9E37_79B9_7F4A_7C15
    let bits = UInt64(bitPattern: Int64(SplitMix.mix(state)))
    return range.lowerBound + Double(bits >> 11) / Double(UInt64(1) << 53) * (range.upperBound - range.lowerBound)
  }
}
