import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Fetches that return IDs, dictionaries or a count instead of objects, and the request options that go
/// with them (Core Data's `resultType`, `propertiesToFetch`, `propertiesToGroupBy`, `havingPredicate`,
/// `returnsDistinctResults`, `includesPropertyValues`).
@Suite("Fetch result types", .temporaryFolders)
struct FetchResultTypeTests {
  /// Work holds notes rated 0–5, Home 6–8, and the note rated 9 has no notebook.
  private func populated(_ type: NSPersistentStore.StoreType) throws -> StoreStack {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let work = Notebook(context: stack.context)
      work.name = "Work"
      let home = Notebook(context: stack.context)
      home.name = "Home"
      for index in 0..<10 {
        let note = Note(context: stack.context)
        note.title = "note \(index)"
        note.rating = Int64(index)
        note.body = index.isMultiple(of: 2) ? "even" : nil
        note.notebook = index < 6 ? work : (index < 9 ? home : nil)
      }
      try stack.context.save()
    }
    return stack
  }

  private func expression(_ name: String, _ function: String, _ keyPath: String, _ type: NSAttributeType = .undefinedAttributeType)
    -> NSExpressionDescription
  {
    NSExpressionDescription(
      name: name, expression: NSExpression(forFunction: function, arguments: [NSExpression(forKeyPath: keyPath)]),
      expressionResultType: type)
  }

  @Test(
    "NSFetchRequest<NSFetchRequestResult>, written as Core Data code writes it: objects by default, then IDs, dictionaries and a count by resultType; a batch delete takes it",
    arguments: bothStoreTypes)
  func erasedRequest(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let context = stack.freshContext()
    try context.performAndWait {
      let request: NSFetchRequest<NSFetchRequestResult> = Note.fetchRequest()
      #expect(request.resultType == .managedObjectResultType)
      request.predicate = NSPredicate(format: "rating >= %d", 7)
      request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      let notes = try context.fetch(request) as? [Note]
      #expect(notes?.map(\.rating) == [7, 8, 9])

      request.resultType = .managedObjectIDResultType
      let ids = try context.fetch(request) as? [NSManagedObjectID]
      #expect(ids == notes?.map(\.objectID))

      request.resultType = .dictionaryResultType
      request.propertiesToFetch = ["title", "rating"]
      let rows = try context.fetch(request)
      let dictionaries = rows as? [[String: Any]]
      #expect(dictionaries?.compactMap { $0["title"] as? String } == ["note 7", "note 8", "note 9"])
      #expect(dictionaries?.compactMap { $0["rating"] as? Int } == [7, 8, 9])
      #expect((rows as? [NSDictionary])?.count == 3)

      request.resultType = .countResultType
      #expect((try context.fetch(request).first as? NSNumber)?.intValue == 3)
      #expect(try context.count(for: request) == 3)

      let delete = NSBatchDeleteRequest(fetchRequest: NSFetchRequest<NSFetchRequestResult>(entityName: "Note"))
      delete.resultType = .resultTypeCount
      let result = try context.execute(delete) as? NSBatchDeleteResult
      #expect(result?.result as? Int == 10)
      #expect(try context.count(for: NSFetchRequest<NSFetchRequestResult>(entityName: "Note")) == 0)
    }
  }

  @Test("IDs: in the request's order, without making objects, and with pending inserts and deletes counted", arguments: bothStoreTypes)
  func objectIDs(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let context = stack.freshContext()
    try context.performAndWait {
      let request = NSFetchRequest<NSManagedObjectID>(entityName: "Note")
      #expect(request.resultType == .managedObjectIDResultType)
      request.predicate = NSPredicate(format: "rating >= 5")
      request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: false)]
      let ids = try context.fetch(request)
      #expect(context.registeredObjects.isEmpty)
      let objects = NSFetchRequest<Note>(entityName: "Note")
      objects.predicate = request.predicate
      objects.sortDescriptors = request.sortDescriptors
      let notes = try context.fetch(objects)
      #expect(ids == notes.map(\.objectID))
      #expect(ids.count == 5 && ids.allSatisfy { !$0.isTemporaryID })

      let fresh = Note(context: context)
      fresh.title = "fresh"
      fresh.rating = 100
      context.delete(notes[1])
      let pending = try context.fetch(request)
      #expect(pending.first == fresh.objectID && fresh.objectID.isTemporaryID)
      #expect(!pending.contains(notes[1].objectID))
      #expect(pending.count == 5)
      request.includesPendingChanges = false
      #expect(try context.fetch(request) == ids)
    }
  }

  @Test("A count result is one NSNumber, as count(for:) counts", arguments: bothStoreTypes)
  func countResult(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    try stack.context.performAndWait { () throws in
      let request = NSFetchRequest<NSNumber>(entityName: "Note")
      request.predicate = NSPredicate(format: "notebook.name == 'Home'")
      #expect(try stack.context.fetch(request) == [NSNumber(value: 3)])
      #expect(try stack.context.count(for: request) == 3)
    }
  }

  @Test("A name fetched twice holds its last column's value, in [String: Any] and in NSDictionary alike", arguments: bothStoreTypes)
  func nameFetchedTwice(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let context = stack.freshContext()
    try context.performAndWait {
      // "body" is nil on odd ratings; the second column named "body" (the rating) is never nil.
      let rating = NSExpressionDescription(
        name: "body", expression: NSExpression(forKeyPath: "rating"), expressionResultType: .integer64AttributeType)
      let plain = NSFetchRequest<[String: Any]>(entityName: "Note")
      plain.propertiesToFetch = ["title", "body", rating]
      plain.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      let rows = try context.fetch(plain)
      #expect(rows.count == 10)
      #expect(rows.first?["body"] as? Int64 == 0)
      #expect(rows.last?["body"] as? Int64 == 9)
      #expect(rows.last?.keys.sorted() == ["body", "title"])
      let bridged = NSFetchRequest<NSDictionary>(entityName: "Note")
      bridged.propertiesToFetch = ["title", "body", rating]
      bridged.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      let dictionaries = try context.fetch(bridged)
      #expect(dictionaries.first?["body"] as? Int64 == 0)
      #expect(dictionaries.last?["body"] as? Int64 == 9)
      #expect(dictionaries.last?.count == 2)
    }
  }

  @Test("Dictionaries hold the properties asked for, in their own types, with nil values left out", arguments: bothStoreTypes)
  func dictionaries(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let context = stack.freshContext()
    try context.performAndWait {
      let request = NSFetchRequest<NSDictionary>(entityName: "Note")
      request.propertiesToFetch = ["title", "rating", "notebook", "notebook.name", "body"]
      request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      let rows = try context.fetch(request)
      #expect(rows.count == 10)
      let first = try #require(rows.first)
      #expect(first["title"] as? String == "note 0")
      #expect(first["rating"] as? Int64 == 0)
      #expect(first["notebook.name"] as? String == "Work")
      #expect(first["body"] as? String == "even")
      #expect(context.registeredObjects.isEmpty)
      let work = try #require(first["notebook"] as? NSManagedObjectID)
      #expect(try context.existingObject(with: work).value(forKey: "name") as? String == "Work")
      let last = try #require(rows.last)
      #expect(last["notebook"] == nil && last["notebook.name"] == nil && last["body"] == nil)
      #expect(last.count == 2)

      // [String: Any] gives the same; nil propertiesToFetch means every attribute and to-one.
      let plain = NSFetchRequest<[String: Any]>(entityName: "Note")
      plain.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      plain.fetchLimit = 1
      let all = try #require(try context.fetch(plain).first)
      #expect(Set(all.keys) == ["title", "rating", "body", "notebook"])
      // Attribute descriptions name columns too.
      let described = NSFetchRequest<[String: Any]>(entityName: "Note")
      described.propertiesToFetch = [try #require(stack.entity("Note").attributesByName["rating"])]
      described.predicate = NSPredicate(format: "rating == 7")
      #expect(try context.fetch(described).map { $0["rating"] as? Int64 } == [7])
    }
  }

  @Test("Grouping with count:, sum:, average:, min: and max:, filtered by a having predicate", arguments: bothStoreTypes)
  func grouping(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    try stack.context.performAndWait {
      let request = NSFetchRequest<NSDictionary>(entityName: "Note")
      request.propertiesToFetch = [
        "notebook.name", expression("count", "count:", "title"), expression("total", "sum:", "rating"),
        expression("mean", "average:", "rating"), expression("lowest", "min:", "rating"),
        expression("highest", "max:", "rating"), expression("firstTitle", "min:", "title"),
      ]
      request.propertiesToGroupBy = ["notebook.name"]
      request.sortDescriptors = [NSSortDescriptor(key: "notebook.name", ascending: true)]
      let groups = try stack.context.fetch(request)
      #expect(groups.count == 3)
      #expect(groups[0]["notebook.name"] == nil && groups[0]["count"] as? Int64 == 1 && groups[0]["total"] as? Int64 == 9)
      #expect(groups[1]["notebook.name"] as? String == "Home" && groups[1]["mean"] as? Double == 7)
      #expect(groups[2]["count"] as? Int64 == 6 && groups[2]["total"] as? Int64 == 15 && groups[2]["mean"] as? Double == 2.5)
      #expect(groups[2]["lowest"] as? Int64 == 0 && groups[2]["highest"] as? Int64 == 5)
      #expect(groups[2]["firstTitle"] as? String == "note 0")

      request.havingPredicate = NSPredicate(format: "$count > 2 AND notebook.name != %@", "Home")
      #expect(try stack.context.fetch(request).compactMap { $0["notebook.name"] as? String } == ["Work"])
      request.havingPredicate = NSPredicate(format: "$total < 10")
      #expect(try stack.context.fetch(request).map { $0["count"] as? Int64 } == [1])

      // An aggregate over the whole entity: no grouping, one row.
      let whole = NSFetchRequest<NSDictionary>(entityName: "Note")
      whole.propertiesToFetch = [expression("total", "sum:", "rating", .doubleAttributeType)]
      whole.predicate = NSPredicate(format: "notebook != nil")
      #expect(try stack.context.fetch(whole).map { $0["total"] as? Double } == [36])
    }
  }

  @Test("returnsDistinctResults drops duplicate dictionaries", arguments: bothStoreTypes)
  func distinct(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    try stack.context.performAndWait { () throws in
      let request = NSFetchRequest<[String: Any]>(entityName: "Note")
      request.propertiesToFetch = ["notebook.name"]
      request.sortDescriptors = [NSSortDescriptor(key: "notebook.name", ascending: true)]
      #expect(try stack.context.fetch(request).count == 10)
      request.returnsDistinctResults = true
      #expect(try stack.context.fetch(request).map { $0["notebook.name"] as? String } == [nil, "Home", "Work"])
    }
  }

  @Test("Dictionaries read the store as it is: a context's unsaved changes, or its parent's, are not in them", arguments: bothStoreTypes)
  func dictionariesIgnorePendingChanges(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    try stack.context.performAndWait { () throws in
      let extra = Note(context: stack.context)
      extra.title = "unsaved"
      let request = NSFetchRequest<[String: Any]>(entityName: "Note")
      request.propertiesToFetch = ["title"]
      #expect(try stack.context.fetch(request).count == 10)
      let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Note")
      #expect(try stack.context.fetch(ids).count == 11)
    }
    // A child context: its IDs include the parent's unsaved insert, its dictionaries do not.
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = stack.context
    try child.performAndWait { () throws in
      #expect(try child.fetch(NSFetchRequest<NSManagedObjectID>(entityName: "Note")).count == 11)
      let request = NSFetchRequest<[String: Any]>(entityName: "Note")
      request.propertiesToFetch = ["title"]
      request.predicate = NSPredicate(format: "rating > 7")
      #expect(try child.fetch(request).count == 2)
    }
  }

  @Test("includesPropertyValues = false gives faults holding nothing, which read their row when touched", arguments: bothStoreTypes)
  func withoutPropertyValues(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let context = stack.freshContext()
    try context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.includesPropertyValues = false
      request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      let notes = try context.fetch(request)
      #expect(notes.count == 10)
      #expect(notes.allSatisfy { $0.isFault && $0.state.needsLoad })
      #expect(notes[3].title == "note 3")
      #expect(!notes[3].state.needsLoad && notes[4].state.needsLoad)
    }
  }

  @Test("Misuse is refused, saying what to do", arguments: bothStoreTypes)
  func misuse(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    try stack.context.performAndWait {
      let context = stack.context
      let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Note")
      ids.resultType = .managedObjectResultType
      let mismatch = expectCode(.invalidValue) { _ = try context.fetch(ids) }
      #expect(mismatch?.message.contains("NSFetchRequest<NSManagedObjectID>") == true)
      let objects = NSFetchRequest<Note>(entityName: "Note")
      objects.resultType = .dictionaryResultType
      _ = expectCode(.invalidValue) { _ = try context.fetch(objects) }

      func refused(
        _ code: ObjectGraphError.Code, _ mentioned: String, entity: String = "Notebook",
        _ configure: (NSFetchRequest<NSDictionary>) throws -> Void
      ) throws {
        let request = NSFetchRequest<NSDictionary>(entityName: entity)
        try configure(request)
        let error = expectCode(code) { _ = try context.fetch(request) }
        #expect(error?.message.contains(mentioned) == true, "\(error?.message ?? "")")
      }
      try refused(.invalidValue, "to-many") { $0.propertiesToFetch = ["notes"] }
      try refused(.unknownKey, "'colour'") { $0.propertiesToFetch = ["colour"] }
      try refused(.invalidValue, "neither grouped nor an aggregate", entity: "Note") {
        $0.propertiesToFetch = ["title", expression("count", "count:", "title")]
        $0.propertiesToGroupBy = ["notebook.name"]
      }
      try refused(.invalidValue, "is an aggregate expression") {
        $0.propertiesToFetch = [expression("count", "count:", "name")]
        $0.propertiesToGroupBy = [expression("count", "count:", "name")]
      }
      try refused(.invalidValue, "cannot be fetched into a dictionary") {
        $0.propertiesToFetch = [expression("count", "count:", "name")]
        $0.propertiesToGroupBy = ["notes"]
      }
      try refused(.invalidValue, "set propertiesToGroupBy") {
        $0.propertiesToFetch = ["name"]
        $0.havingPredicate = NSPredicate(format: "name == 'x'")
      }
      try refused(.unsupportedFeature, "mode:") { $0.propertiesToFetch = [expression("m", "mode:", "name")] }
      try refused(.invalidValue, "works on numbers") { $0.propertiesToFetch = [expression("m", "median:", "name")] }
      try refused(.invalidValue, "works on numbers") { $0.propertiesToFetch = [expression("s", "sum:", "name")] }
      try refused(.invalidValue, "has no name") { $0.propertiesToFetch = [expression("", "count:", "name")] }
    }
  }
}
