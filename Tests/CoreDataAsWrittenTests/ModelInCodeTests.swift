import Foundation
import ObjectGraph
import TestSupport
import Testing

// Models built in code, as Apple's documentation builds them (NSManagedObjectModel, NSEntityDescription,
// NSAttributeDescription, NSRelationshipDescription with settable properties), with classes of their own so
// that they do not depend on the target's model.

public class Author: NSManagedObject {}

extension Author {
  @nonobjc public class func fetchRequest() -> NSFetchRequest<Author> {
    return NSFetchRequest<Author>(entityName: "Author")
  }

  @ObjectGraphManaged public var name: String?
  @ObjectGraphManaged public var born: NSNumber?
  @ObjectGraphManaged public var novels: NSSet?
}

public class Novel: NSManagedObject {}

extension Novel {
  @nonobjc public class func fetchRequest() -> NSFetchRequest<Novel> {
    return NSFetchRequest<Novel>(entityName: "Novel")
  }

  @ObjectGraphManaged public var title: String?
  @ObjectGraphManaged public var author: Author?
}

/// The model, made in code.
func makeLibraryModel() -> NSManagedObjectModel {
  let model = NSManagedObjectModel()

  let author = NSEntityDescription()
  author.name = "Author"
  author.managedObjectClassName = NSStringFromClass(Author.self)

  let novel = NSEntityDescription()
  novel.name = "Novel"
  novel.managedObjectClassName = NSStringFromClass(Novel.self)

  let name = NSAttributeDescription()
  name.name = "name"
  name.attributeType = .stringAttributeType
  name.isOptional = false

  let born = NSAttributeDescription()
  born.name = "born"
  born.attributeType = .integer32AttributeType
  born.isOptional = true

  let title = NSAttributeDescription()
  title.name = "title"
  title.type = .string
  title.isOptional = false
  title.defaultValue = "Untitled"

  let novels = NSRelationshipDescription()
  novels.name = "novels"
  novels.destinationEntity = novel
  novels.minCount = 0
  novels.maxCount = 0
  novels.deleteRule = .cascadeDeleteRule
  novels.isOptional = true

  let writtenBy = NSRelationshipDescription()
  writtenBy.name = "author"
  writtenBy.destinationEntity = author
  writtenBy.minCount = 0
  writtenBy.maxCount = 1
  writtenBy.deleteRule = .nullifyDeleteRule
  writtenBy.isOptional = true

  novels.inverseRelationship = writtenBy
  writtenBy.inverseRelationship = novels

  author.properties = [name, born, novels]
  novel.properties = [title, writtenBy]
  author.uniquenessConstraints = [["name"]]

  model.entities = [author, novel]
  return model
}

@Suite("Models built in code", .temporaryFolders)
struct ModelInCodeTests {
  func container() throws -> NSPersistentContainer {
    let container = NSPersistentContainer(name: "Library", managedObjectModel: makeLibraryModel())
    container.persistentStoreDescriptions = [
      NSPersistentStoreDescription(url: try TemporaryFolder().appending("Library.sqlite"))
    ]
    container.loadPersistentStores { _, error in
      if let error = error as NSError? {
        fatalError("Unresolved error \(error), \(error.userInfo)")
      }
    }
    return container
  }

  @Test func theModelDescribesWhatWasSet() {
    let model = makeLibraryModel()
    #expect(model.entities.map(\.name) == ["Author", "Novel"])
    let author = model.entitiesByName["Author"]
    #expect(author?.attributesByName["name"]?.attributeType == .stringAttributeType)
    #expect(author?.attributesByName["name"]?.isOptional == false)
    #expect(author?.relationshipsByName["novels"]?.isToMany == true)
    #expect(author?.relationshipsByName["novels"]?.inverseRelationship?.name == "author")
    #expect(model.entitiesByName["Novel"]?.relationshipsByName["author"]?.destinationEntity?.name == "Author")
    #expect(model.entitiesByName["Novel"]?.attributesByName["title"]?.defaultValue as? String == "Untitled")
    #expect(author?.properties.count == 3)
  }

  @Test func objectsOfACodeModelSaveAndFetch() throws {
    let container = try container()
    let context = container.viewContext
    try context.performAndWait {
      let eliot = Author(context: context)
      eliot.name = "George Eliot"
      eliot.born = 1819
      let novel = Novel(context: context)
      novel.title = "Middlemarch"
      novel.author = eliot
      #expect(eliot.novels?.count == 1)
      try context.save()
    }
    let reader = container.newBackgroundContext()
    try reader.performAndWait {
      let request: NSFetchRequest<Novel> = Novel.fetchRequest()
      request.predicate = NSPredicate(format: "author.name == %@", "George Eliot")
      let novels = try reader.fetch(request)
      #expect(novels.map(\.title) == ["Middlemarch"])
      #expect(novels.first?.author?.born?.intValue == 1819)
    }
  }

  @Test func defaultValueAndMandatoryAttribute() throws {
    let container = try container()
    let context = container.viewContext
    context.performAndWait {
      let novel = Novel(context: context)
      #expect(novel.title == "Untitled")
      _ = Author(context: context)
      do {
        try context.save()
        Issue.record("an author without a name was saved")
      } catch let error as NSError where error.code == NSValidationMissingMandatoryPropertyError {
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "name")
      } catch {
        Issue.record("unexpected error \(error)")
      }
    }
  }

  @Test func cascadeDeleteRuleFromCode() throws {
    let container = try container()
    let context = container.viewContext
    try context.performAndWait {
      let author = Author(context: context)
      author.name = "Anonymous"
      for title in ["One", "Two"] {
        let novel = Novel(context: context)
        novel.title = title
        novel.author = author
      }
      try context.save()
      context.delete(author)
      try context.save()
      #expect(try context.count(for: Novel.fetchRequest()) == 0)
    }
  }

  @Test func uniquenessConstraintFromCode() throws {
    let container = try container()
    let context = container.viewContext
    context.performAndWait {
      let first = Author(context: context)
      first.name = "Same"
      let second = Author(context: context)
      second.name = "Same"
      do {
        try context.save()
        Issue.record("two authors with one name were saved")
      } catch let error as NSError {
        #expect(error.code == NSManagedObjectConstraintMergeError)
      }
    }
  }

  @Test func insertNewObjectByEntityName() throws {
    let container = try container()
    let context = container.viewContext
    try context.performAndWait {
      let object = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
      #expect(object is Author)
      object.setValue("By name", forKey: "name")
      try context.save()
      #expect(try context.count(for: Author.fetchRequest()) == 1)
    }
  }

  @Test func anEntityHasNoNameUntilOneIsSet() {
    let entity = NSEntityDescription()
    #expect(entity.name == nil)
    entity.name = "Draft"
    #expect(entity.name == "Draft")
  }

  @Test func aModelWithAnUnnamedEntityIsRefusedWhenAStoreIsAdded() {
    let unnamed = NSEntityDescription()
    let model = NSManagedObjectModel()
    model.entities = [unnamed]
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    do {
      try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
      Issue.record("a store was added for a model with an unnamed entity")
    } catch let error as NSError {
      #expect(error.localizedDescription.contains("An entity has no name"))
    }
    #expect(coordinator.persistentStores.isEmpty)
  }

  @Test func entityNameOfAClassAsAppsWriteIt() throws {
    let container = try container()
    let request = NSFetchRequest<Author>(entityName: Author.entityName)
    #expect(try container.viewContext.count(for: request) == 0)
    #expect(Author.entityName == "Author")
  }
}

extension NSManagedObject {
  /// The name of the class's entity, the way many apps write it.
  static var entityName: String { entity().name! }
}
