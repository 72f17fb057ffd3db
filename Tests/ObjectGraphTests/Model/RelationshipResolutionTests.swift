import Dispatch
import EngineTestSupport
import Foundation
import Testing

@testable import ObjectGraph

/// A relationship's `destinationEntity` and `entity` are set when a model is made from its entity, and
/// stay readable while that model lives: the model holds every entity they can point at. They are not
/// weak references (a weak reference to an entity would slow every retain of it, one per object made), so
/// once the model is gone they read `nil`, even when one of the entities is still held elsewhere.
@Suite("Relationship resolution")
struct RelationshipResolutionTests {
  /// Notebook ⇄ Note, as two entities not yet in any model.
  private static func entities() -> (notebook: NSEntityDescription, note: NSEntityDescription) {
    let notebook = NSEntityDescription(
      name: "Notebook",
      properties: [
        .attribute(NSAttributeDescription(name: "title", type: .string)),
        .relationship(NSRelationshipDescription(name: "notes", destination: "Note", inverse: "notebook", toMany: true)),
      ])
    let note = NSEntityDescription(
      name: "Note",
      properties: [
        .attribute(NSAttributeDescription(name: "title", type: .string)),
        .relationship(NSRelationshipDescription(name: "notebook", destination: "Notebook", inverse: "notes")),
      ])
    return (notebook, note)
  }

  private static func relationship(_ name: String, of entity: NSEntityDescription) throws -> NSRelationshipDescription {
    try #require(entity.relationshipsByName[name])
  }

  @Test("before a model is made, a relationship points nowhere; once made, at the model's entities")
  func resolvedByTheModel() throws {
    let (notebook, note) = Self.entities()
    let toNotebook = try Self.relationship("notebook", of: note)
    #expect(toNotebook.destinationEntity == nil)
    #expect(toNotebook.resolvedEntity == nil)

    let title = try #require(note.attributesByName["title"])
    #expect(title.resolvedEntity == nil)

    let model = try NSManagedObjectModel(entities: [notebook, note])
    #expect(toNotebook.destinationEntity === notebook)
    #expect(toNotebook.entity === note)
    #expect(toNotebook.inverseRelationship === (try Self.relationship("notes", of: notebook)))
    // Every property, attributes included, knows its entity (Core Data's NSPropertyDescription.entity).
    #expect(title.entity === note)
    #expect(note.properties.allSatisfy { $0.entity === note } && notebook.properties.allSatisfy { $0.entity === notebook })
    withExtendedLifetime(model) {}
  }

  @Test("an inherited property's entity is the superentity that declares it")
  func inheritedPropertyEntity() throws {
    let item = NSEntityDescription(name: "Item", properties: [.attribute(NSAttributeDescription(name: "title", type: .string))])
    let task = NSEntityDescription(name: "Task", properties: [.attribute(NSAttributeDescription(name: "due", type: .date))])
    task.superentity = item
    let model = try NSManagedObjectModel(entities: [item, task])
    #expect(task.propertiesByName["title"]?.entity === item)
    #expect(task.propertiesByName["due"]?.entity === task)
    withExtendedLifetime(model) {}
  }

  @Test("reading the entity of a property no model has taken stops the program, naming the property")
  func entityBeforeAModelStops() async {
    let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = NSAttributeDescription(name: "title", type: .string).entity
    }
    let said = String(decoding: stopped?.standardErrorContent ?? [], as: UTF8.self)
    #expect(said.contains("Property 'title' belongs to no entity"), "it printed: \(said)")
  }

  /// The model alone keeps the entities its relationships point at: the caller holds neither.
  @Test("the model keeps what its relationships point at alive")
  func modelKeepsTheEntities() throws {
    let (model, toNotebook) = try { () throws -> (NSManagedObjectModel, NSRelationshipDescription) in
      let (notebook, note) = Self.entities()
      return (try NSManagedObjectModel(entities: [notebook, note]), try Self.relationship("notebook", of: note))
    }()
    let destination = try #require(toNotebook.destinationEntity)
    #expect(destination.name == "Notebook")
    #expect(toNotebook.entity.entityName == "Note")
    #expect(destination === model.entitiesByName["Notebook"])
  }

  /// Once the model is gone the pointers read `nil`, even with both entities still held by the caller:
  /// only the model that set them vouches for them.
  @Test("once the model is gone, a relationship points nowhere, with its entities still held")
  func nilOnceTheModelIsGone() throws {
    let (notebook, note) = Self.entities()
    let toNotebook = try Self.relationship("notebook", of: note)
    weak var gone: NSManagedObjectModel?
    do {
      let model = try NSManagedObjectModel(entities: [notebook, note])
      gone = model
      #expect(toNotebook.destinationEntity === notebook)
    }
    #expect(gone == nil)
    #expect(toNotebook.destinationEntity == nil)
    #expect(toNotebook.resolvedEntity == nil)
    // The names stay: a new model made from the same entities resolves them again.
    #expect(toNotebook.destinationEntityName == "Notebook")
    let again = try NSManagedObjectModel(entities: [notebook, note])
    #expect(toNotebook.destinationEntity === notebook)
    withExtendedLifetime(again) {}
  }

  /// Reads from many threads while another thread lets the model go: each read sees the destination or
  /// `nil`, never a freed entity (ThreadSanitizer runs this suite in CI).
  @Test("reads racing the model's release see the entity or nil")
  func readsRacingTheRelease() async throws {
    for _ in 0..<20 {
      let (toNotebook, release) = try { () throws -> (NSRelationshipDescription, @Sendable () -> Void) in
        let (notebook, note) = Self.entities()
        let holder = ModelHolder(try NSManagedObjectModel(entities: [notebook, note]))
        return (try Self.relationship("notebook", of: note), { holder.release() })
      }()
      let names = Locked<Set<String>>([])
      DispatchQueue.concurrentPerform(iterations: 8) { index in
        if index == 0 { release() }
        for _ in 0..<200 {
          let name = toNotebook.destinationEntity?.entityName ?? "nil"
          names.withLock { _ = $0.insert(name) }
        }
      }
      #expect(names.withLock { $0 }.isSubset(of: ["Notebook", "nil"]))
      #expect(toNotebook.destinationEntity == nil)
    }
  }

  /// An object kept after its whole stack is gone still answers an in-memory predicate through a
  /// relationship: no match, and no crash.
  @Test("an object outliving its stack evaluates a predicate through a relationship as no match")
  func orphanObjectPredicate() throws {
    let note = try { () throws -> NSManagedObject in
      let (notebook, note) = Self.entities()
      let model = try NSManagedObjectModel(entities: [notebook, note])
      let context = try StoreStack(model: model, at: nil).context
      return context.performAndWait {
        let object = NSManagedObject(entity: note, insertInto: context)
        object.setValue("Groceries", forKey: "title")
        return object
      }
    }()
    let predicate = NSPredicate(format: "notebook.title == %@", "Inbox")
    #expect(predicate.evaluate(with: note) == false)
    #expect(note.entity.relationshipsByName["notebook"]?.destinationEntity == nil)
  }
}

/// Holds a model until `release()`, from any thread.
private final class ModelHolder: Sendable {
  private let model: Locked<NSManagedObjectModel?>
  init(_ model: NSManagedObjectModel) { self.model = Locked(model) }
  func release() { model.withLock { $0 = nil } }
}
