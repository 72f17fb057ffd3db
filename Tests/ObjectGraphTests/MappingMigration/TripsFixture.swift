import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// The `Fixtures/Trips` model and mapping models (see the fixtures' README), and a store of its first
/// version made by the tests: three travellers, three countries, three moods, two continents.
enum TripsFixture {
  static let folder = TestFolders.fixtures.appendingPathComponent("Trips", isDirectory: true)
  static let xcdatamodeld = folder.appendingPathComponent("Trips.xcdatamodeld", isDirectory: true)
  static let mapping = folder.appendingPathComponent("TripsToTrips2.xcmappingmodel", isDirectory: true)
  static func refused(_ name: String) -> URL {
    folder.appendingPathComponent("Refused/\(name).xcmappingmodel", isDirectory: true)
  }

  /// A version of the model, read from `xcdatamodeld` (the fixture's, or a copy).
  static func version(_ name: String, in xcdatamodeld: URL = xcdatamodeld) throws -> NSManagedObjectModel {
    try #require(try NSManagedObjectModel.versions(in: xcdatamodeld).first { $0.name == name }?.model)
  }

  /// Copies the model and the mapping model into `folder` (a bundle holding nothing else) and returns the
  /// copied `.xcdatamodeld`.
  @discardableResult
  static func bundle(in folder: TemporaryFolder, mapping: URL = mapping) throws -> URL {
    let copy = folder.appending("Trips.xcdatamodeld")
    try FileManager.default.copyItem(at: xcdatamodeld, to: copy)
    try FileManager.default.copyItem(at: mapping, to: folder.appending(mapping.lastPathComponent))
    return copy
  }

  /// Ada visited France and Japan, Bo Italy and France, Cy nowhere. France (67, Europe) is calm and sunny,
  /// Japan (125, Asia) busy and calm, Italy (59, Europe) sunny.
  static func writeVersion1Store(at url: URL, model: NSManagedObjectModel) throws {
    let context = try StoreStack(model: model, at: url).context
    try context.performAndWait {
      func insert(_ entity: String, _ values: [String: Any]) throws -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
      }
      let europe = try insert("Continent", ["name": "Europe"])
      let asia = try insert("Continent", ["name": "Asia"])
      let calm = try insert("Mood", ["label": "calm"])
      let busy = try insert("Mood", ["label": "busy"])
      let sunny = try insert("Mood", ["label": "sunny"])
      let france = try insert(
        "Country", ["name": "France", "population": Int64(67), "continent": europe, "moods": Set([calm, sunny])])
      let japan = try insert(
        "Country", ["name": "Japan", "population": Int64(125), "continent": asia, "moods": Set([busy, calm])])
      let italy = try insert("Country", ["name": "Italy", "population": Int64(59), "continent": europe, "moods": Set([sunny])])
      _ = try insert("Traveller", ["name": "Ada", "countries": Set([france, japan])])
      _ = try insert("Traveller", ["name": "Bo", "countries": Set([italy, france])])
      _ = try insert("Traveller", ["name": "Cy"])
      try context.save()
    }
  }

  /// The objects of `entity`, by name (or label).
  static func byName(_ entity: String, in context: NSManagedObjectContext) throws -> [String: NSManagedObject] {
    let key = entity == "Mood" ? "label" : "name"
    let objects = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity))
    return Dictionary(objects.map { ($0.value(forKey: key) as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// The names (or labels) of the objects a to-many holds, sorted.
  static func names(_ object: NSManagedObject?, _ key: String) -> [String] {
    let members = (object?.value(forKey: key) as? Set<NSManagedObject>) ?? []
    return members.compactMap { $0.value(forKey: $0.entity.entityName == "Mood" ? "label" : "name") as? String }.sorted()
  }

  static func int(_ object: NSManagedObject?, _ key: String) -> Int64? {
    (object?.value(forKey: key) as? NSNumber)?.int64Value
  }
}
