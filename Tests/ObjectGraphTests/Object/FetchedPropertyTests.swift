import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Fetched properties (`NSFetchedPropertyDescription`): read with `value(forKey:)`, run lazily in the object's
/// context with `$FETCH_SOURCE` and `$FETCHED_PROPERTY` filled in, sorted as their request says, and kept until
/// the object is refreshed.
@Suite("Fetched properties", .temporaryFolders)
struct FetchedPropertyTests {
  /// Author (name, since) and Book (title, authorName, year, writer → Author). Author's fetched properties:
  /// - `books`: Book where `authorName == $FETCH_SOURCE.name`, newest first (year descending);
  /// - `written`: Book where `writer == $FETCH_SOURCE`, by title;
  /// - `tagged`: Book where `title == $FETCHED_PROPERTY.userInfo.title` (user info `title: Dune`);
  /// - `recent`: Book where `year >= $FETCH_SOURCE.since AND authorName == $FETCH_SOURCE.name`;
  /// - `broken`: a predicate that does not parse; `unknownVariable`: one with `$other`;
  /// - `nowhere`: a request for an entity the model does not have.
  /// Poet is a subentity of Author and inherits them.
  static func model() throws -> NSManagedObjectModel {
    let author = NSEntityDescription(
      name: "Author",
      properties: [
        .attribute(NSAttributeDescription(name: "name", type: .string)),
        .attribute(NSAttributeDescription(name: "since", type: .integer64, isOptional: false, defaultValue: Int64(0))),
        .relationship(NSRelationshipDescription(name: "works", destination: "Book", inverse: "writer", toMany: true)),
      ])
    let poet = NSEntityDescription(name: "Poet", properties: [.attribute(NSAttributeDescription(name: "meter", type: .string))])
    author.subentities = [poet]
    let book = NSEntityDescription(
      name: "Book",
      properties: [
        .attribute(NSAttributeDescription(name: "title", type: .string)),
        .attribute(NSAttributeDescription(name: "authorName", type: .string)),
        .attribute(NSAttributeDescription(name: "year", type: .integer64, isOptional: false, defaultValue: Int64(0))),
        .relationship(NSRelationshipDescription(name: "writer", destination: "Author", inverse: "works")),
      ])
    var books = NSFetchedPropertyDescription()
    books.name = "books"
    let byName = NSFetchRequest<any NSFetchRequestResult>(entityName: "Book")
    byName.predicate = NSPredicate(format: "authorName == $FETCH_SOURCE.name")
    byName.sortDescriptors = [NSSortDescriptor(key: "year", ascending: false)]
    books.fetchRequest = byName

    var written = NSFetchedPropertyDescription()
    written.name = "written"
    let byWriter = NSFetchRequest<NSManagedObject>(entityName: "Book")
    byWriter.predicate = NSPredicate(format: "writer == $FETCH_SOURCE")
    byWriter.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
    written.setFetchRequest(byWriter)

    var tagged = NSFetchedPropertyDescription(
      name: "tagged", destinationEntityName: "Book", predicateFormat: "title == $FETCHED_PROPERTY.userInfo.title")
    tagged.userInfo = ["title": "Dune"]
    let recent = NSFetchedPropertyDescription(
      name: "recent", destinationEntityName: "Book", predicateFormat: "year >= $FETCH_SOURCE.since AND authorName == $FETCH_SOURCE.name")
    let broken = NSFetchedPropertyDescription(name: "broken", destinationEntityName: "Book", predicateFormat: "title ==== 'x'")
    let unknownVariable = NSFetchedPropertyDescription(
      name: "unknownVariable", destinationEntityName: "Book", predicateFormat: "title == $other")
    let nowhere = NSFetchedPropertyDescription(name: "nowhere", destinationEntityName: "Magazine", predicateFormat: nil)
    author.fetchedProperties = [books, written, tagged, recent, broken, unknownVariable, nowhere]
    return try NSManagedObjectModel(entities: [author, poet, book])
  }

  @discardableResult
  static func book(_ title: String, by authorName: String, year: Int64, in context: NSManagedObjectContext) -> NSManagedObject {
    let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: context)
    book.setValue(title, forKey: "title")
    book.setValue(authorName, forKey: "authorName")
    book.setValue(year, forKey: "year")
    return book
  }

  static func titles(_ value: Any?) -> [String]? {
    (value as? [Any])?.map { (($0 as? NSManagedObject)?.value(forKey: "title") as? String) ?? "?" }
  }

  @Test("the description: fetchRequest kept as set (entity, predicate, sorts), a copy each time; not a property or relationship")
  func description() throws {
    let model = try Self.model()
    let author = try #require(model.entitiesByName["Author"])
    let books = try #require(author.fetchedPropertiesByName["books"])
    let request = try #require(books.fetchRequest)
    #expect(request.entityName == "Book")
    #expect(request.sortDescriptors?.first?.key == "year")
    #expect(request.sortDescriptors?.first?.ascending == false)
    #expect(books.destinationEntityName == "Book")
    #expect(books.predicateFormat == "authorName == $FETCH_SOURCE.name")
    // A copy: changing it leaves the description as it was.
    request.fetchLimit = 1
    #expect(books.fetchRequest?.fetchLimit == 0)
    // Inherited by the subentity; not a property, relationship or stored column.
    #expect(model.entitiesByName["Poet"]?.fetchedPropertiesByName.keys.sorted() == author.fetchedPropertiesByName.keys.sorted())
    #expect(author.propertiesByName["books"] == nil && author.relationshipsByName["books"] == nil)
    var none = NSFetchedPropertyDescription()
    #expect(none.fetchRequest == nil && none.destinationEntityName == "" && none.name == "")
    none.fetchRequest = NSFetchRequest<any NSFetchRequestResult>(entityName: "Book")
    #expect(none.destinationEntityName == "Book")
    none.fetchRequest = nil
    #expect(none.fetchRequest == nil)
  }

  @Test("value(forKey:) runs the request with $FETCH_SOURCE (and its key paths) and $FETCHED_PROPERTY, sorted as it says")
  func evaluation() throws {
    let stack = try StoreStack(model: try Self.model())
    let context = stack.context
    try context.performAndWait {
      let ann = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
      ann.setValue("Ann", forKey: "name")
      ann.setValue(Int64(2005), forKey: "since")
      let bob = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
      bob.setValue("Bob", forKey: "name")
      Self.book("Early", by: "Ann", year: 2001, in: context)
      Self.book("Late", by: "Ann", year: 2010, in: context).setValue(ann, forKey: "writer")
      Self.book("Middle", by: "Ann", year: 2006, in: context).setValue(ann, forKey: "writer")
      Self.book("Dune", by: "Bob", year: 1965, in: context)
      try context.save()

      // $FETCH_SOURCE.name, newest first.
      #expect(Self.titles(ann.value(forKey: "books")) == ["Late", "Middle", "Early"])
      #expect(Self.titles(bob.value(forKey: "books")) == ["Dune"])
      // $FETCH_SOURCE itself, compared with a relationship; by title.
      #expect(Self.titles(ann.value(forKey: "written")) == ["Late", "Middle"])
      #expect(Self.titles(bob.value(forKey: "written")) == [])
      // Two key paths of the source.
      #expect(Set(Self.titles(ann.value(forKey: "recent")) ?? []) == ["Late", "Middle"])
      // $FETCHED_PROPERTY.userInfo.title.
      #expect(Self.titles(ann.value(forKey: "tagged")) == ["Dune"])
      // An array of the objects, which casts to their class's array.
      #expect((ann.value(forKey: "books") as? [NSManagedObject])?.count == 3)
      // Not a change: the object has none, and a save writes nothing for it.
      #expect(!ann.hasChanges && ann.changedValues().isEmpty)
    }
  }

  @Test("an unsaved object's fetched property sees the context's pending changes; a subentity's object runs the inherited one")
  func pendingAndSubentity() throws {
    let stack = try StoreStack(model: try Self.model())
    let context = stack.context
    context.performAndWait {
      let poet = NSEntityDescription.insertNewObject(forEntityName: "Poet", into: context)
      poet.setValue("Sappho", forKey: "name")
      Self.book("Fragments", by: "Sappho", year: 600, in: context).setValue(poet, forKey: "writer")
      #expect(Self.titles(poet.value(forKey: "books")) == ["Fragments"])
      // $FETCH_SOURCE is the unsaved object itself (its temporary ID), matched among the pending changes.
      #expect(Self.titles(poet.value(forKey: "written")) == ["Fragments"])
    }
  }

  @Test("the result is cached: later changes are not seen until refresh(_:mergeChanges:) or refreshAllObjects()")
  func cachedUntilRefresh() throws {
    let stack = try StoreStack(model: try Self.model())
    let context = stack.context
    try context.performAndWait {
      let ann = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
      ann.setValue("Ann", forKey: "name")
      Self.book("One", by: "Ann", year: 1, in: context)
      try context.save()
      #expect(Self.titles(ann.value(forKey: "books")) == ["One"])

      Self.book("Two", by: "Ann", year: 2, in: context)
      try context.save()
      #expect(Self.titles(ann.value(forKey: "books")) == ["One"], "cached: not updated automatically")

      context.refresh(ann, mergeChanges: true)
      #expect(Self.titles(ann.value(forKey: "books")) == ["Two", "One"])

      Self.book("Three", by: "Ann", year: 3, in: context)
      #expect(Self.titles(ann.value(forKey: "books"))?.count == 2)
      context.refresh(ann, mergeChanges: false)
      #expect(Self.titles(ann.value(forKey: "books")) == ["Three", "Two", "One"])

      Self.book("Four", by: "Ann", year: 4, in: context)
      #expect(Self.titles(ann.value(forKey: "books"))?.count == 3)
      context.refreshAllObjects()
      #expect(Self.titles(ann.value(forKey: "books"))?.count == 4)
    }
  }

  @Test("each context evaluates in its own: a save in another context is seen after refresh, on real queues")
  func acrossContexts() async throws {
    let stack = try StoreStack(model: try Self.model())
    let reader = stack.context
    let writer = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    writer.persistentStoreCoordinator = stack.coordinator
    let annID = try await reader.perform {
      let ann = NSEntityDescription.insertNewObject(forEntityName: "Author", into: reader)
      ann.setValue("Ann", forKey: "name")
      Self.book("First", by: "Ann", year: 1, in: reader)
      try reader.save()
      #expect(Self.titles(ann.value(forKey: "books")) == ["First"])
      return ann.objectID
    }
    // The writer's own object runs the request in the writer's context, on its queue.
    try await writer.perform {
      let ann = writer.object(with: annID)
      Self.book("Second", by: "Ann", year: 2, in: writer)
      #expect(Self.titles(ann.value(forKey: "books")) == ["Second", "First"], "pending changes of the writer")
      try writer.save()
    }
    await reader.perform {
      let ann = reader.object(with: annID)
      #expect(Self.titles(ann.value(forKey: "books")) == ["First"], "still the cached result")
      reader.refresh(ann, mergeChanges: true)
      #expect(Self.titles(ann.value(forKey: "books")) == ["Second", "First"])
    }
    // Both contexts read it at once, each on its queue.
    async let left = reader.perform { Self.titles(reader.object(with: annID).value(forKey: "books")) }
    async let right = writer.perform { Self.titles(writer.object(with: annID).value(forKey: "books")) }
    let (l, r) = await (left, right)
    #expect(l == ["Second", "First"] && r == ["Second", "First"])
  }

  @Test("a request that fails gives nil and logs why, is not cached, and does not stop the program")
  func failures() throws {
    let stack = try StoreStack(model: try Self.model())
    let context = stack.context
    context.performAndWait {
      let ann = NSEntityDescription.insertNewObject(forEntityName: "Author", into: context)
      ann.setValue("Ann", forKey: "name")
      for (key, words) in [
        ("broken", ["broken", "Author", "predicate"]), ("unknownVariable", ["$other", "Author.unknownVariable"]),
        ("nowhere", ["Magazine", "Author.nowhere"]),
      ] {
        var value: Any?? = .none
        let logged = ErrorLog.capturing { value = .some(ann.value(forKey: key)) }
        #expect(value.map { $0 == nil } == true, "\(key) gives nil")
        #expect(logged.count == 1, "\(key): \(logged)")
        for word in words { #expect(logged.first?.contains(word) == true, "\(key): \(logged)") }
        // Not cached: the next read runs (and fails) again.
        #expect(ErrorLog.capturing { _ = ann.value(forKey: key) }.count == 1)
      }
      // The object is still usable, and a fetched property that works still does.
      #expect(Self.titles(ann.value(forKey: "books")) == [])
    }
    // An object in no context has none to fetch in.
    let model = try Self.model()
    let loose = NSManagedObject(entity: try #require(model.entitiesByName["Author"]), insertInto: nil)
    let logged = ErrorLog.capturing { #expect(loose.value(forKey: "books") == nil) }
    #expect(logged.first?.contains("context") == true, "\(logged)")
  }

  @Test("a merged model keeps fetched properties' whole requests and properties' validation predicates")
  func merged() throws {
    let model = try Self.model()
    let rule = NSAttributeDescription(name: "code", type: .string)
    rule.setValidationPredicates([NSPredicate(format: "SELF BEGINSWITH 'C'")], withValidationWarnings: ["A code starts with C."])
    let other = try NSManagedObjectModel(entities: [NSEntityDescription(name: "Coded", properties: [.attribute(rule)])])
    let merged = try #require(NSManagedObjectModel(byMerging: [model, other]))
    let books = try #require(merged.entitiesByName["Author"]?.fetchedPropertiesByName["books"])
    #expect(books.fetchRequest?.sortDescriptors?.first?.key == "year")
    #expect(merged.entitiesByName["Coded"]?.attributesByName["code"]?.validationPredicates.count == 1)
  }

  @Test("Xcode XML: <fetchedProperty> with its request and user info reads into fetchRequest and writes back")
  func xcodeModel() throws {
    let xml = """
      <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
      <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        <entity name="Author" representedClassName="Author" syncable="YES">
          <attribute name="name" optional="YES" attributeType="String"/>
          <fetchedProperty name="books" optional="YES">
            <fetchRequest name="fetchedPropertyFetchRequest" entity="Book" predicateString="authorName == $FETCH_SOURCE.name AND title != $FETCHED_PROPERTY.userInfo.skip"/>
            <userInfo>
              <entry key="skip" value="Draft"/>
            </userInfo>
          </fetchedProperty>
        </entity>
        <entity name="Book" representedClassName="Book" syncable="YES">
          <attribute name="title" optional="YES" attributeType="String"/>
          <attribute name="authorName" optional="YES" attributeType="String"/>
        </entity>
      </model>
      """
    let model = try NSManagedObjectModel.fromXcodeContents(Data(xml.utf8), origin: "the test")
    let books = try #require(model.entitiesByName["Author"]?.fetchedPropertiesByName["books"])
    #expect(books.userInfo == ["skip": "Draft"])
    #expect(books.fetchRequest?.entityName == "Book")
    let copy = try NSManagedObjectModel.fromXcodeContents(XcodeModelWriter.contents(of: model), origin: "the copy")
    let again = try #require(copy.entitiesByName["Author"]?.fetchedPropertiesByName["books"])
    #expect(again.userInfo == books.userInfo && again.predicateFormat == books.predicateFormat)
    #expect(again.destinationEntityName == "Book")

    let stack = try StoreStack(model: model)
    try stack.context.performAndWait {
      let ann = NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context)
      ann.setValue("Ann", forKey: "name")
      for title in ["Draft", "Final"] {
        let book = NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context)
        book.setValue(title, forKey: "title")
        book.setValue("Ann", forKey: "authorName")
      }
      try stack.context.save()
      #expect(Self.titles(ann.value(forKey: "books")) == ["Final"])
    }
  }
}
