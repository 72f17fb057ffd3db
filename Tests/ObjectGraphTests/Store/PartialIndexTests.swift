import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// `NSFetchIndexDescription.partialIndexPredicate`: a fetch index over the rows a predicate accepts, written as
/// the index's `WHERE` clause.
@Suite("Partial fetch indexes", .temporaryFolders)
struct PartialIndexTests {
  typealias Indexes = FetchIndexStoreTests

  static func byTitle(where format: String?, _ arguments: Any...) -> NSFetchIndexDescription {
    let index = NSFetchIndexDescription(name: "byTitle", elements: [.init(propertyName: "title")])
    index.partialIndexPredicate = format.map { NSPredicate(format: $0, argumentArray: arguments) }
    return index
  }

  @Test("the predicate is the index's WHERE clause, with its values written in; changing it replaces the index")
  func whereClause() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let date = Date(timeIntervalSinceReferenceDate: 1000)
    try Indexes.open(try Indexes.model(indexes: [Self.byTitle(where: "title != nil AND createdAt > %@", date as NSDate)]), url)
    #expect(
      try Indexes.indexes(url) == [
        "CREATE INDEX Z_Note_byTitle ON ZNOTE (ZTITLE COLLATE BINARY ASC) WHERE ((ZTITLE IS NOT NULL) AND (ZCREATEDAT > 1000.0))"
      ])
    // SQLite uses it for a query whose condition implies the index's.
    let plan = try rawRows(url, "EXPLAIN QUERY PLAN SELECT Z_PK FROM ZNOTE WHERE ZTITLE = 'x' AND ZCREATEDAT > 1000.0")
      .map { $0["detail"] as String }
    #expect(plan.contains { $0.contains("Z_Note_byTitle") }, "\(plan)")

    try Indexes.open(try Indexes.model(indexes: [Self.byTitle(where: "title != %@", "It's")]), url)
    #expect(try Indexes.indexes(url) == ["CREATE INDEX Z_Note_byTitle ON ZNOTE (ZTITLE COLLATE BINARY ASC) WHERE (ZTITLE <> 'It''s')"])
    try Indexes.open(try Indexes.model(indexes: [Self.byTitle(where: nil)]), url)
    #expect(try Indexes.indexes(url) == ["CREATE INDEX Z_Note_byTitle ON ZNOTE (ZTITLE COLLATE BINARY ASC)"])
  }

  @Test("fetches find every row, in the index or not")
  func fetchesUnchanged() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let model = try Indexes.model(indexes: [Self.byTitle(where: "title != nil")])
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    try coordinator.addPersistentStore(type: .sqlite, at: url)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    let counts = try context.performAndWait {
      for title in ["a", nil, "b"] {
        NSManagedObject(entity: try #require(model.entitiesByName["Note"]), insertInto: context).setValue(title, forKey: "title")
      }
      try context.save()
      return try ["title == 'a'", "title == nil", "TRUEPREDICATE"].map { format in
        let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
        request.predicate = NSPredicate(format: format)
        return try context.count(for: request)
      }
    }
    #expect(counts == [1, 1, 3])
  }

  @Test(
    "a predicate an index cannot hold fails the open naming the index, and the store is left as it was",
    arguments: [
      ("title ==[c] 'a'", "goes beyond"), ("title BEGINSWITH[cd] 'a'", "goes beyond"),
      ("title == $name", "cannot be compiled"), ("title MATCHES 'a.*'", "goes beyond"),
    ])
  func refused(format: String, words: String) throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    try Indexes.open(try Indexes.model(indexes: []), url)
    let before = try Data(contentsOf: url)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Indexes.model(indexes: [Self.byTitle(where: format)]))
    do {
      try coordinator.addPersistentStore(type: .sqlite, at: url)
      Issue.record("\(format) was accepted")
    } catch let error as ObjectGraphError {
      #expect(error.code == NSPersistentStoreOpenError, "\(error)")
      #expect(error.message.contains("fetch index 'byTitle' of entity 'Note'") && error.message.contains(words), "\(error.message)")
    }
    #expect(coordinator.persistentStores.isEmpty)
    #expect(try Indexes.indexes(url).isEmpty)
    #expect(try Data(contentsOf: url) == before)
    // A new store is not made either.
    let fresh = try TemporaryFolder().appending("New.sqlite")
    #expect(throws: ObjectGraphError.self) { try coordinator.addPersistentStore(type: .sqlite, at: fresh) }
  }

  @Test("the predicate is part of the index's value and description")
  func value() {
    let all = Self.byTitle(where: nil)
    let some = Self.byTitle(where: "title != nil")
    #expect(all != some && some == Self.byTitle(where: "title != nil"))
    #expect(some.description == "byTitle(title asc) where title != nil")
    #expect(some.partialIndexPredicate?.formatText == "title != nil")
  }
}
