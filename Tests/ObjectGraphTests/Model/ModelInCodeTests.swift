import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Classes the model below names by `managedObjectClassName`, found by name as Core Data finds them.
final class CodeBuiltShelf: NSManagedObject {}
final class CodeBuiltBook: NSManagedObject {}

/// Models built in code the way Core Data's documentation builds them: descriptions made with `init()`,
/// their properties set one by one, relationships joined by object, the entities handed to the model.
@Suite("Models built in code, Core Data's way", .temporaryFolders)
struct ModelInCodeTests {
  /// Shelf <->> Book, written as an app written for Core Data writes it.
  static func library() -> NSManagedObjectModel {
    let shelf = NSEntityDescription()
    shelf.name = "Shelf"
    shelf.managedObjectClassName = "CodeBuiltShelf"
    let book = NSEntityDescription()
    book.name = "Book"
    book.managedObjectClassName = NSStringFromClass(CodeBuiltBook.self)

    let label = NSAttributeDescription()
    label.name = "label"
    label.attributeType = .stringAttributeType
    label.isOptional = false
    label.defaultValue = "Unsorted"

    let title = NSAttributeDescription()
    title.name = "title"
    title.attributeType = .stringAttributeType
    let pages = NSAttributeDescription()
    pages.name = "pages"
    pages.attributeType = .integer32AttributeType
    pages.defaultValue = 0

    let books = NSRelationshipDescription()
    books.name = "books"
    books.destinationEntity = book
    books.deleteRule = .cascadeDeleteRule  // maxCount stays 0: to-many, as Core Data documents
    let onShelf = NSRelationshipDescription()
    onShelf.name = "shelf"
    onShelf.destinationEntity = shelf
    onShelf.maxCount = 1
    books.inverseRelationship = onShelf
    onShelf.inverseRelationship = books

    shelf.properties = [label, books]
    book.properties = [title, pages, onShelf]
    let model = NSManagedObjectModel()
    model.entities = [shelf, book]
    return model
  }

  @Test("The model's entities, properties and relationships read as they were set")
  func descriptions() throws {
    let model = Self.library()
    let shelf = try #require(model.entitiesByName["Shelf"])
    let book = try #require(model.entitiesByName["Book"])
    #expect(shelf.properties.map(\.name) == ["label", "books"])
    #expect(shelf.properties.first is NSAttributeDescription && shelf.properties.last is NSRelationshipDescription)
    var attributeNames: [String] = []
    for case let attribute as NSAttributeDescription in book.properties { attributeNames.append(attribute.name) }
    #expect(attributeNames == ["title", "pages"])
    let books = try #require(shelf.relationshipsByName["books"])
    let onShelf = try #require(book.relationshipsByName["shelf"])
    #expect(books.isToMany && books.maxCount == 0)
    #expect(!onShelf.isToMany && onShelf.maxCount == 1)
    #expect(books.destinationEntity === book && onShelf.destinationEntity === shelf)
    #expect(books.inverseRelationship === onShelf && onShelf.inverseRelationship === books)
    #expect(shelf.relationships(forDestination: book).map(ObjectIdentifier.init) == [ObjectIdentifier(books)])
    #expect(shelf.relationships(forDestination: shelf).isEmpty)
    #expect(shelf.managedObjectClassName == "CodeBuiltShelf")
    #expect(shelf.managedObjectClass == CodeBuiltShelf.self && book.managedObjectClass == CodeBuiltBook.self)
    #expect(NSRelationshipDescription().isToMany)  // a new relationship's maxCount is 0
    #expect(NSAttributeDescription().isOptional && NSAttributeDescription().attributeType == .undefinedAttributeType)
  }

  @Test("entitiesByName names the same entities before the model is frozen, after it, and from many threads")
  func entitiesByNameWhenFrozen() throws {
    let model = Self.library()
    let before = model.entitiesByName.mapValues(ObjectIdentifier.init)
    #expect(before.keys.sorted() == ["Book", "Shelf"])
    let stack = try StoreStack(model: model, fileName: "Library.sqlite")
    #expect(model.isFrozen)
    #expect(model.entitiesByName.mapValues(ObjectIdentifier.init) == before)
    let seen = Locked<[[String: ObjectIdentifier]]>([])
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      let names = model.entitiesByName.mapValues(ObjectIdentifier.init)
      seen.withLock { $0.append(names) }
    }
    #expect(seen.withLock { $0 }.allSatisfy { $0 == before })
    withExtendedLifetime(stack) {}
  }

  @Test("A store opens with the model; objects are the named classes, and relationships keep their inverses")
  func storeAndObjects() throws {
    let stack = try StoreStack(model: Self.library(), fileName: "Library.sqlite")
    let context = stack.context
    try context.performAndWait {
      let shelf = NSEntityDescription.insertNewObject(forEntityName: "Shelf", into: context)
      #expect(shelf is CodeBuiltShelf)
      #expect(shelf.value(forKey: "label") as? String == "Unsorted")
      let book = CodeBuiltBook(context: context)
      book.setValue("Dune", forKey: "title")
      book.setValue(shelf, forKey: "shelf")
      #expect((shelf.value(forKey: "books") as? Set<NSManagedObject>)?.contains(book) == true)
      try context.save()
    }
    let reader = stack.freshContext()
    try reader.performAndWait {
      let books = try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Book"))
      #expect(books.count == 1)
      #expect(books.first is CodeBuiltBook)
      #expect(books.first?.value(forKey: "title") as? String == "Dune")
      #expect(books.first?.value(forKey: "pages") as? Int == 0)
      #expect((books.first?.value(forKey: "shelf") as? NSManagedObject)?.value(forKey: "label") as? String == "Unsorted")
    }
  }

  @Test("Entities that do not fit together are refused when a store is added, saying what is wrong")
  func invalidModel() throws {
    let note = NSEntityDescription()
    note.name = "Note"
    let stray = NSEntityDescription()
    stray.name = "Stray"
    let link = NSRelationshipDescription()
    link.name = "stray"
    link.destinationEntity = stray
    link.maxCount = 1
    note.properties = [link]
    let model = NSManagedObjectModel()
    model.entities = [note]  // Stray is not in the model
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let folder = try TemporaryFolder()
    let url = folder.url.appendingPathComponent("Bad.sqlite")
    let error = try #require(throws: NSError.self) { try coordinator.addPersistentStore(type: .sqlite, at: url) }
    #expect(error.domain == NSCocoaErrorDomain || error.domain == ObjectGraphError.engineErrorDomain)
    #expect(error.code == ObjectGraphModelInvalidError)
    #expect(error.localizedDescription.contains("Note.stray") && error.localizedDescription.contains("Stray"))
    #expect(!FileManager.default.fileExists(atPath: url.path))
  }

  @Test("Subentities set on the parent inherit its properties; setting a child's properties keeps the inherited ones the parent's")
  func subentities() throws {
    let item = NSEntityDescription()
    item.name = "Item"
    item.isAbstract = true
    let name = NSAttributeDescription()
    name.name = "name"
    name.attributeType = .stringAttributeType
    item.properties = [name]
    let photo = NSEntityDescription()
    photo.name = "Photo"
    let width = NSAttributeDescription()
    width.name = "width"
    width.attributeType = .integer64AttributeType
    item.subentities = [photo]
    photo.properties = photo.properties + [width]
    #expect(photo.superentity === item)
    #expect(photo.properties.map(\.name) == ["name", "width"])
    #expect(photo.ownProperties.map(\.name) == ["width"])
    #expect(photo.isKindOf(entity: item) && !item.isKindOf(entity: photo))
    #expect(item.subentitiesByName["Photo"] === photo)
    let model = NSManagedObjectModel()
    model.entities = [item, photo]
    let stack = try StoreStack(model: model)
    try stack.context.performAndWait {
      let made = NSEntityDescription.insertNewObject(forEntityName: "Photo", into: stack.context)
      made.setValue("Beach", forKey: "name")
      made.setValue(640, forKey: "width")
      try stack.context.save()
    }
    #expect(try stack.storedCount("Item") == 1)
  }
}
