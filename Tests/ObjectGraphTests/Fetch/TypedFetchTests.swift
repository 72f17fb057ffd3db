import Foundation
import Testing

@testable import ObjectGraph

/// `FetchRequest<Subclass>`: objects of an entity and of its subentities come back as their own classes,
/// and an object whose class is not the request's result type is refused, whatever its place in the results.
@Suite("Typed fetch results")
struct TypedFetchTests {
  class Vehicle: ManagedObject {
    @Managed var name: String?
  }
  final class Truck: Vehicle {}

  /// Vehicle (class Vehicle) with a subentity Truck (class Truck), and Plain, a subentity of Vehicle
  /// whose class is plain `ManagedObject`.
  static func context() throws -> ManagedObjectContext {
    let name = AttributeDescription(name: "name", type: .string)
    let vehicle = EntityDescription(name: "Vehicle", managedObjectClass: Vehicle.self, properties: [.attribute(name)])
    let truck = EntityDescription(name: "Truck", managedObjectClass: Truck.self, properties: [])
    let plain = EntityDescription(name: "Plain", properties: [])
    vehicle.subentities = [truck, plain]
    let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(entities: [vehicle, truck, plain]))
    try coordinator.addPersistentStore(type: .inMemory, at: nil)
    let context = ManagedObjectContext(concurrencyType: .privateQueue)
    context.persistentStoreCoordinator = coordinator
    return context
  }

  static func insert(_ entityName: String, _ name: String, into context: ManagedObjectContext) throws {
    try EntityDescription.insertNewObject(forEntityName: entityName, into: context).setValue(name, forKey: "name")
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
      let request = FetchRequest<Vehicle>(entityName: "Vehicle")
      let plain = try #require(context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Plain"])
      request.predicate = try FetchPredicate(format: "entity != %@", plain)
      request.sortDescriptors = [FetchSortDescriptor(key: "name")]
      let vehicles = try context.fetch(request)
      #expect(vehicles.map(\.name) == ["0", "1", "2", "3", "4"])
      #expect(vehicles.map { $0 is Truck } == [false, true, true, false, true])
      #expect(try context.fetch(FetchRequest<Truck>(entityName: "Truck")).count == 3)
    }
  }

  @Test("an object of another class is refused even after many objects of the right class")
  func refusedAfterManyGoodOnes() throws {
    let context = try Self.context()
    try context.performAndWait {
      for index in 0..<50 { try Self.insert("Truck", String(format: "a%02d", index), into: context) }
      try Self.insert("Plain", "z", into: context)
      try context.save()
      let request = FetchRequest<Vehicle>(entityName: "Vehicle")
      request.sortDescriptors = [FetchSortDescriptor(key: "name")]
      let error = expectCode(.invalidValue) { _ = try context.fetch(request) }
      #expect(error?.message.contains("made as ManagedObject, which is not a") == true, "\(String(describing: error))")
    }
  }
}
