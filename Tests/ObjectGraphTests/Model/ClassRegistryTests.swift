import Dispatch
import EngineTestSupport
import Foundation
import Testing

@testable import ObjectGraph

// Classes only these tests register: the class registry is one per process.
final class RegistryGadget: NSManagedObject {
  @ObjectGraphManaged var name: String?
}

final class RegistryGizmo: NSManagedObject {
  @ObjectGraphManaged var name: String?
}

final class RegistryWidget: NSManagedObject {
  @ObjectGraphManaged var name: String?
}

/// An entity's class is resolved through the registry when the model is used, and cached once the model
/// is frozen: a registration made after the coordinator froze the model must still be seen.
@Suite("Class registry")
struct ClassRegistryTests {
  /// A frozen model of one entity named `entityName`, whose Xcode class name is `className`, with no class
  /// given in code; and a private context on an in-memory store of it.
  private func stack(entityName: String, className: String) throws -> (NSEntityDescription, NSManagedObjectContext) {
    let entity = NSEntityDescription(name: entityName, properties: [.attribute(NSAttributeDescription(name: "name", type: .string))])
    entity.representedClassName = className
    let model = try NSManagedObjectModel(entities: [entity])
    return (entity, try StoreStack(model: model, at: nil).context)
  }

  @Test("A class registered after the model froze is used from then on, by faults and fetches too")
  func registrationAfterFreezing() throws {
    let (entity, context) = try stack(entityName: "RegistryGadgetEntity", className: "Shop.RegistryGadget")
    #expect(entity.managedObjectClass == NSManagedObject.self)
    #expect(entity.managedObjectClass == NSManagedObject.self)  // now from the cache
    let id = try context.performAndWait {
      let plain = NSManagedObject(entity: entity, insertInto: context)
      plain.setValue("first", forKey: "name")
      try context.save()
      return plain.objectID
    }

    NSManagedObjectModel.register(RegistryGadget.self)  // matches "Shop.RegistryGadget" without its module
    #expect(entity.managedObjectClass == RegistryGadget.self)
    let other = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    other.persistentStoreCoordinator = context.persistentStoreCoordinator
    try other.performAndWait {
      #expect(other.object(with: id) is RegistryGadget)
      let fetched = try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "RegistryGadgetEntity"))
      #expect(fetched.count == 1 && fetched.first is RegistryGadget)
    }
  }

  @Test("register(_:forEntityName:) after freezing replaces the class, and init(context:) finds the entity by it")
  func entityRegistrationAfterFreezing() throws {
    let (entity, context) = try stack(entityName: "RegistryGizmoEntity", className: "Unregistered")
    #expect(entity.managedObjectClass == NSManagedObject.self)
    NSManagedObjectModel.register(RegistryGizmo.self, forEntityName: "RegistryGizmoEntity")
    #expect(entity.managedObjectClass == RegistryGizmo.self)
    try context.performAndWait {
      let gizmo = RegistryGizmo(context: context)  // found by its class: the entity's name differs
      gizmo.name = "registered late"
      #expect(gizmo.entity === entity)
      try context.save()
      #expect(try context.count(for: NSFetchRequest<RegistryGizmo>(entityName: "RegistryGizmoEntity")) == 1)
    }
    #expect(context.entity(for: RegistryGizmo.self) === entity)
    #expect(context.entity(for: RegistryGizmo.self) === entity)  // from the model's cache
  }

  @Test("Many threads resolve the class while it is registered again and again: every answer is one of the two")
  func concurrentResolution() throws {
    let (entity, _) = try stack(entityName: "RegistryWidgetEntity", className: "RegistryWidget")
    let wrong = Locked(0)
    let registered = Locked(false)
    DispatchQueue.concurrentPerform(iterations: 8) { worker in
      if worker == 0 {
        for _ in 0..<200 { NSManagedObjectModel.register(RegistryWidget.self) }
        registered.withLock { $0 = true }
        return
      }
      for _ in 0..<5_000 {
        let type = entity.managedObjectClass
        if type != NSManagedObject.self && type != RegistryWidget.self { wrong.withLock { $0 += 1 } }
      }
    }
    #expect(wrong.withLock { $0 } == 0)
    #expect(registered.withLock { $0 })
    #expect(entity.managedObjectClass == RegistryWidget.self)
  }
}
