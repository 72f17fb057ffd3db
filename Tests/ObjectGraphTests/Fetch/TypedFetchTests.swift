import EngineTestSupport
import Foundation
import Testing

@testable import ObjectGraph

/// `NSFetchRequest<Subclass>`: objects of an entity and of its subentities come back as their own classes,
/// and an object whose class is not the request's result type is refused, whatever its place in the results.
@Suite("Typed fetch results")
struct TypedFetchTests {
  class Vehicle: NSManagedObject {
    @ObjectGraphManaged var name: String?
  }
  final class Truck: Vehicle {}

  /// Vehicle (class Vehicle) with a subentity Truck (class Truck), and Plain, a subentity of Vehicle
  /// whose class is plain `NSManagedObject`.
  static func context() throws -> NSManagedObjectContext {
    let name = NSAttributeDescription(name: "name", type: .string)
    let vehicle = NSEntityDescription(name: "Vehicle", managedObjectClass: Vehicle.self, properties: [.attribute(name)])
    let truck = NSEntityDescription(name: "Truck", managedObjectClass: Truck.self, properties: [])
    let plain = NSEntityDescription(name: "Plain", properties: [])
    vehicle.subentities = [truck, plain]
    return try StoreStack(model: try NSManagedObjectModel(entities: [vehicle, truck, plain]), at: nil).context
  }

  static func insert(_ entityName: String, _ name: String, into context: NSManagedObjectContext) throws {
    NSEntityDescription.insertNewObject(forEntityName: entityName, into: context).setValue(name, forKey: "name")
  }

  @Test("a request for the superclass hands out each object as its own class, in the request's order")
  func mixedClasses() throws {
    let context = try Self.context()
    try context.performAndWait {
      for (index, entity) in ["Vehicle", "Truck", "Truck", "Vehicle", "Truck"].enumerated() {
        try Self.insert(entity, "\(index)", into: context)
      }
      try context.save()
      context.reset()
      let request = NSFetchRequest<Vehicle>(entityName: "Vehicle")
      let plain = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Plain"])
      request.predicate = NSPredicate(format: "entity != %@", plain)
      request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
      let vehicles = try context.fetch(request)
      #expect(vehicles.map(\.name) == ["0", "1", "2", "3", "4"])
      #expect(vehicles.map { $0 is Truck } == [false, true, true, false, true])
      #expect(try context.fetch(NSFetchRequest<Truck>(entityName: "Truck")).count == 3)
    }
  }

  @Test("an object of another class is refused even after many objects of the right class")
  func refusedAfterManyGoodOnes() throws {
    let context = try Self.context()
    try context.performAndWait {
      for index in 0..<50 { try Self.insert("Truck", String(format: "a%02d", index), into: context) }
      try Self.insert("Plain", "z", into: context)
      try context.save()
      let request = NSFetchRequest<Vehicle>(entityName: "Vehicle")
      request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
      let error = expectCode(.invalidValue) { _ = try context.fetch(request) }
      #expect(error?.message.contains("made as NSManagedObject, which is not a") == true, "\(String(describing: error))")
    }
  }

  @Test("an object of another class is refused after classes that take turns")
  func refusedAfterAlternatingClasses() throws {
    let context = try Self.context()
    try context.performAndWait {
      for (name, entity) in [("a", "Vehicle"), ("b", "Truck"), ("c", "Vehicle"), ("d", "Truck"), ("e", "Plain")] {
        try Self.insert(entity, name, into: context)
      }
      try context.save()
      let request = NSFetchRequest<Vehicle>(entityName: "Vehicle")
      request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
      let error = expectCode(.invalidValue) { _ = try context.fetch(request) }
      #expect(error?.message.contains("fetched a Plain made as NSManagedObject") == true, "\(String(describing: error))")
      request.fetchLimit = 4
      #expect(try context.fetch(request).map { $0 is Truck } == [false, true, false, true])
    }
  }
}
