import Foundation
import ObjectGraph
import TestSupport
import Testing

// Classes laid out as Xcode's "Manual/None" code generation writes them: Item+CoreDataClass.swift and
// Item+CoreDataProperties.swift, here in one file each pair. (Xcode's `@objc(Item)` lines are left out.)

public class Item: NSManagedObject {}

extension Item {
  @nonobjc public class func fetchRequest() -> NSFetchRequest<Item> {
    return NSFetchRequest<Item>(entityName: "Item")
  }

  @ObjectGraphManaged public var title: String?
  @ObjectGraphManaged public var quantity: NSNumber?
  @ObjectGraphManaged public var createdAt: Date?
  @ObjectGraphManaged public var done: Bool
  @ObjectGraphManaged public var category: String?
  @ObjectGraphManaged public var list: ItemList?
  @ObjectGraphManaged public var labels: NSSet?
}

public class ItemList: NSManagedObject {
  public override func awakeFromInsert() {
    super.awakeFromInsert()
    name = "New List"
  }
}

extension ItemList {
  @nonobjc public class func fetchRequest() -> NSFetchRequest<ItemList> {
    return NSFetchRequest<ItemList>(entityName: "ItemList")
  }

  @ObjectGraphManaged public var name: String?
  @ObjectGraphManaged public var items: NSSet?
}

public class Label: NSManagedObject {}

extension Label {
  @nonobjc public class func fetchRequest() -> NSFetchRequest<Label> {
    return NSFetchRequest<Label>(entityName: "Label")
  }

  @ObjectGraphManaged public var name: String?
  @ObjectGraphManaged public var items: NSSet?
}

public class Book: NSManagedObject {}

extension Book {
  @nonobjc public class func fetchRequest() -> NSFetchRequest<Book> {
    return NSFetchRequest<Book>(entityName: "Book")
  }

  @ObjectGraphManaged public var title: String?
}

/// The model, loaded once from the test bundle, as an app loads its model once.
let sharedModel: NSManagedObjectModel = {
  guard let modelURL = Bundle.module.url(forResource: "Model", withExtension: "xcdatamodeld") else {
    fatalError("Failed to find the data model")
  }
  guard let model = NSManagedObjectModel(contentsOf: modelURL) else {
    fatalError("Failed to create the model from \(modelURL)")
  }
  return model
}()

/// The usual app-side stack: a container on a SQLite file, loaded synchronously.
func makeContainer(at storeURL: URL, configure: (NSPersistentStoreDescription) -> Void = { _ in }) -> NSPersistentContainer {
  let container = NSPersistentContainer(name: "Model", managedObjectModel: sharedModel)
  let description = NSPersistentStoreDescription(url: storeURL)
  configure(description)
  container.persistentStoreDescriptions = [description]
  container.loadPersistentStores { _, error in
    if let error = error as NSError? {
      fatalError("Unresolved error \(error), \(error.userInfo)")
    }
  }
  return container
}

@Suite("Xcode's classes and model", .temporaryFolders)
struct XcodeClassesTests {
  @Test func modelLoadsFromTheBundleWithItsEntities() throws {
    let model = sharedModel
    #expect(Set(model.entitiesByName.keys) == ["Item", "ItemList", "Label"])
    #expect(model.entitiesByName["Item"]?.attributesByName["quantity"]?.attributeType == .integer64AttributeType)
    #expect(model.entitiesByName["Item"]?.relationshipsByName["list"]?.isToMany == false)
    #expect(model.entitiesByName["ItemList"]?.relationshipsByName["items"]?.deleteRule == .cascadeDeleteRule)
  }

  @Test func entitiesFindTheirClassesByRepresentedClassName() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.viewContext
    try context.performAndWait {
      let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
      #expect(item is Item)
      let list = NSEntityDescription.insertNewObject(forEntityName: "ItemList", into: context)
      #expect(list is ItemList)
      #expect(Item.entity().name == "Item")
      (item as? Item)?.title = "Milk"
      try context.save()
    }
  }

  @Test func propertiesOfEveryKindRoundTripThroughTheStore() throws {
    let storeURL = try TemporaryFolder().appending("Model.sqlite")
    let created = Date(timeIntervalSince1970: 1_700_000_000)
    do {
      let container = makeContainer(at: storeURL)
      let context = container.viewContext
      try context.performAndWait {
        let list = ItemList(context: context)
        list.name = "Groceries"
        let item = Item(context: context)
        item.title = "Eggs"
        item.quantity = NSNumber(value: 12)
        item.createdAt = created
        item.done = true
        item.list = list
        let fresh = Label(context: context)
        fresh.name = "fresh"
        item.labels = NSSet(array: [fresh])
        try context.save()
      }
    }
    let container = makeContainer(at: storeURL)
    let context = container.newBackgroundContext()
    try context.performAndWait {
      let request: NSFetchRequest<Item> = Item.fetchRequest()
      let items = try context.fetch(request)
      #expect(items.count == 1)
      let item = try #require(items.first)
      #expect(item.title == "Eggs")
      #expect(item.quantity?.intValue == 12)
      #expect(item.createdAt == created)
      #expect(item.done)
      #expect(item.list?.name == "Groceries")
      #expect((item.list?.items?.count ?? 0) == 1)
      let names = (item.labels as? Set<Label>)?.compactMap(\.name)
      #expect(names == ["fresh"])
    }
  }

  @Test func cascadeDeleteRuleFromTheModel() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.viewContext
    try context.performAndWait {
      let list = ItemList(context: context)
      for title in ["One", "Two", "Three"] {
        let item = Item(context: context)
        item.title = title
        item.list = list
      }
      try context.save()
      context.delete(list)
      try context.save()
      let request: NSFetchRequest<Item> = Item.fetchRequest()
      let remaining = try context.count(for: request)
      #expect(remaining == 0)
    }
  }

  @Test func nullifyDeleteRuleFromTheModel() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.viewContext
    try context.performAndWait {
      let item = Item(context: context)
      item.title = "Labelled"
      let label = Label(context: context)
      label.name = "red"
      item.labels = NSSet(object: label)
      try context.save()
      context.delete(label)
      try context.save()
      #expect(item.labels?.count == 0)
      #expect(item.isDeleted == false)
    }
  }

  @Test func inverseRelationshipsAreKeptInMemory() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.viewContext
    context.performAndWait {
      let list = ItemList(context: context)
      let item = Item(context: context)
      item.list = list
      #expect(list.items?.contains(item) == true)
      item.list = nil
      #expect(list.items?.count == 0)
    }
  }

  @Test func optionalNumberTakesItsDefaultAndCanBeNil() throws {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.viewContext
    context.performAndWait {
      let item = Item(context: context)
      #expect(item.done == false)
      #expect(item.quantity?.intValue == 0)
      item.quantity = nil
      #expect(item.quantity == nil)
      #expect(item.isInserted)
      #expect(item.objectID.isTemporaryID)
    }
  }
}

/// Two background contexts of `container` and one saved item, which the second context reads before the first
/// changes it (`change`) and saves: the second's next save of its copy conflicts with the first's.
func makeStaleCopy(
  in container: NSPersistentContainer, title: String, category: String? = nil, change: (Item) -> Void
) throws -> (first: NSManagedObjectContext, second: NSManagedObjectContext, objectID: NSManagedObjectID, secondsCopy: Item) {
  let first = container.newBackgroundContext()
  let second = container.newBackgroundContext()
  let objectID = try first.performAndWait {
    let item = Item(context: first)
    item.title = title
    item.category = category
    try first.save()
    return item.objectID
  }
  let secondsCopy = try second.performAndWait {
    let item = try #require(try second.existingObject(with: objectID) as? Item)
    _ = item.title
    return item
  }
  try first.performAndWait {
    let item = try #require(try first.existingObject(with: objectID) as? Item)
    change(item)
    try first.save()
  }
  return (first, second, objectID, secondsCopy)
}
