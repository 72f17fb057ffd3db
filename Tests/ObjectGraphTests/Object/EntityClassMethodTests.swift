import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// A class only these tests' models use, so which model `entity()` answers from is theirs alone.
final class EntityProbe: NSManagedObject {
  @ObjectGraphManaged var label: String?
}

/// A class for the typed `fetchRequest()` Xcode's generated code declares, ported as written.
final class GeneratedProbe: NSManagedObject {
  @ObjectGraphManaged var label: String?
}

extension GeneratedProbe {
  class func fetchRequest() -> NSFetchRequest<GeneratedProbe> {
    NSFetchRequest<GeneratedProbe>(entityName: "GeneratedProbe")
  }
}

/// `Note.entity()`, `NSFetchRequest()` with its `entity` property, and `Note.fetchRequest()`, as ported code
/// writes them.
@Suite("entity() and fetch requests without a name", .temporaryFolders, .serialized)
struct EntityClassMethodTests {
  private static func probeModel(extra: [NSAttributeDescription] = []) throws -> NSManagedObjectModel {
    let probe = NSEntityDescription(
      name: "EntityProbe", managedObjectClass: EntityProbe.self,
      properties: ([NSAttributeDescription(name: "label", type: .string)] + extra).map { .attribute($0) })
    let generated = NSEntityDescription(
      name: "GeneratedProbe", managedObjectClass: GeneratedProbe.self,
      properties: [.attribute(NSAttributeDescription(name: "label", type: .string))])
    return try NSManagedObjectModel(entities: [probe, generated])
  }

  @Test("entity() is the class's entity in the model in use; NSFetchRequest() takes it through its entity property")
  func entityAndUnnamedRequest() throws {
    let stack = try StoreStack()
    let entity = Note.entity()
    #expect(entity.entityName == "Note" && entity.managedObjectClass == Note.self)
    try stack.context.performAndWait {
      for title in ["b", "a"] { Note(context: stack.context).title = title }
      try stack.context.save()
      let request = NSFetchRequest<Note>()
      #expect(request.entity == nil)
      request.entity = Note.entity()
      #expect(request.entity === Note.entity() && request.entityName == "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      #expect(try stack.context.fetch(request).map(\.title) == ["a", "b"])
      // Naming another entity forgets the one set.
      request.entityName = "Tag"
      #expect(request.entity == nil)
      #expect(NSFetchRequest<Note>(entity: Note.entity()).entity === Note.entity())
    }
  }

  @Test("Note.fetchRequest() fetches the class's entity; a typed one declared as Xcode generates it is chosen by type")
  func classFetchRequest() throws {
    let stack = try StoreStack(model: Self.probeModel())
    try stack.context.performAndWait {
      EntityProbe(context: stack.context).label = "x"
      GeneratedProbe(context: stack.context).label = "y"
      try stack.context.save()
      let untyped = EntityProbe.fetchRequest()
      #expect(untyped.entityName == "EntityProbe" && untyped.entity === EntityProbe.entity())
      let fetched = try stack.context.fetch(untyped) as? [NSManagedObject]
      #expect(fetched?.map { $0.value(forKey: "label") as? String } == ["x"])
      let typed: NSFetchRequest<GeneratedProbe> = GeneratedProbe.fetchRequest()
      #expect(try stack.context.fetch(typed).map(\.label) == ["y"])
    }
  }

  @Test("With several models in use, entity() answers from the most recently loaded one")
  func severalModels() throws {
    let first = try StoreStack(model: Self.probeModel())
    let second = try StoreStack(model: Self.probeModel(extra: [NSAttributeDescription(name: "extra", type: .integer64)]))
    // The models differ, so the first answer logs a warning (once per class) naming them.
    let logged = ErrorLog.capturing { #expect(EntityProbe.entity() === second.entity("EntityProbe")) }
    #expect(logged.count == 1)
    #expect(logged.first?.hasPrefix("ObjectGraph: warning: 2 loaded models have an entity for class EntityProbe") == true)
    #expect(ErrorLog.capturing { _ = EntityProbe.entity() }.isEmpty)
    #expect(EntityProbe.entity().attributesByName["extra"] != nil)
    // A model in use again (a new coordinator) becomes the most recent.
    _ = NSPersistentStoreCoordinator(managedObjectModel: first.model)
    #expect(EntityProbe.entity() === first.entity("EntityProbe"))
  }
}
