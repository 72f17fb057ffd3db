import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Tombstones: a delete recorded in history keeps the values of the attributes marked
/// `preservesValueInHistoryOnDeletion`, so that a reader in another process can tell what was deleted.
@Suite("Persistent history: tombstones", .temporaryFolders)
struct PersistentHistoryTombstoneTests {
  private func stack(_ model: NSManagedObjectModel, at url: URL) throws -> StoreStack {
    try StoreStack(
      model: model, at: url,
      options: [
        NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
        NSPersistentHistoryTrackingKey: true,
      ])
  }

  private func changes(_ stack: StoreStack, _ fetch: NSFetchRequest<any NSFetchRequestResult>? = nil) throws -> [NSPersistentHistoryChange]
  {
    let request = NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?)
    request.resultType = .changesOnly
    request.fetchRequest = fetch
    return try stack.context.performAndWait {
      try (stack.context.execute(request) as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryChange] ?? []
    }
  }

  @Test("a deleted note leaves its preserved title, not its other values; inserts and updates leave none")
  func preservedTitle() throws {
    let folder = try TemporaryFolder()
    let model = try Models.notes()
    try #require(model.entitiesByName["Note"]?.attributesByName["title"]).preservesValueInHistoryOnDeletion = true
    let notes = try stack(model, at: folder.appending("Notes.sqlite"))
    try notes.context.performAndWait {
      let note = Note(context: notes.context)
      note.title = "milk"
      note.rating = 4
      try notes.context.save()
      note.rating = 5
      try notes.context.save()
      notes.context.delete(note)
      try notes.context.save()
    }
    let all = try changes(notes)
    #expect(all.map(\.changeType) == [.insert, .update, .delete])
    #expect(all[0].tombstone == nil && all[1].tombstone == nil)
    let tombstone = try #require(all[2].tombstone)
    #expect(tombstone["title"] as? String == "milk")
    #expect(tombstone["rating"] == nil)

    // A change fetch request can read it.
    let fetch = try #require(NSPersistentHistoryChange.fetchRequest)
    fetch.predicate = NSPredicate(format: "tombstone.title == %@", "milk")
    #expect(try changes(notes, fetch).map(\.changeType) == [.delete])
  }

  @Test("each attribute type comes back as its own type; an attribute without a value is left out")
  func types() throws {
    let folder = try TemporaryFolder()
    let attributes: [(String, NSAttributeDescription.AttributeType)] = [
      ("name", .string), ("count", .integer64), ("small", .integer16), ("ratio", .double), ("flag", .boolean),
      ("when", .date), ("bytes", .binaryData), ("uuid", .uuid), ("link", .uri), ("price", .decimal), ("empty", .string),
    ]
    let item = NSEntityDescription(
      name: "Item",
      properties: attributes.map { name, type in
        let attribute = NSAttributeDescription(name: name, type: type)
        attribute.preservesValueInHistoryOnDeletion = true
        return .attribute(attribute)
      })
    let model = try NSManagedObjectModel(entities: [item])
    let items = try stack(model, at: folder.appending("Items.sqlite"))
    let uuid = UUID()
    let when = Date(timeIntervalSinceReferenceDate: 1_000_000)
    try items.context.performAndWait {
      let object = NSManagedObject(entity: item, insertInto: items.context)
      object.setValue("box", forKey: "name")
      object.setValue(Int64(1) << 40, forKey: "count")
      object.setValue(Int16(7), forKey: "small")
      object.setValue(0.25, forKey: "ratio")
      object.setValue(true, forKey: "flag")
      object.setValue(when, forKey: "when")
      object.setValue(Data([1, 2, 3]), forKey: "bytes")
      object.setValue(uuid, forKey: "uuid")
      object.setValue(URL(string: "https://example.com/a"), forKey: "link")
      object.setValue(Decimal(string: "12.50"), forKey: "price")
      try items.context.save()
      items.context.delete(object)
      try items.context.save()
    }
    let tombstone = try #require(try changes(items).last?.tombstone)
    #expect(tombstone["name"] as? String == "box")
    #expect(tombstone["count"] as? Int64 == Int64(1) << 40)
    #expect(tombstone["small"] as? Int16 == 7)
    #expect(tombstone["ratio"] as? Double == 0.25)
    #expect(tombstone["flag"] as? Bool == true)
    #expect(tombstone["when"] as? Date == when)
    #expect(tombstone["bytes"] as? Data == Data([1, 2, 3]))
    #expect(tombstone["uuid"] as? UUID == uuid)
    #expect(tombstone["link"] as? URL == URL(string: "https://example.com/a"))
    #expect(tombstone["price"] as? Decimal == Decimal(string: "12.50"))
    #expect(tombstone["empty"] == nil)
    #expect(tombstone.count == 10)
  }
  @Test("a batch delete by predicate leaves tombstones, read from the rows before one DELETE removes them")
  func batchDeleteByPredicate() throws {
    let folder = try TemporaryFolder()
    let name = NSAttributeDescription(name: "name", type: .string)
    name.preservesValueInHistoryOnDeletion = true
    let item = NSEntityDescription(
      name: "Item", properties: [.attribute(name), .attribute(NSAttributeDescription(name: "count", type: .integer64))])
    let items = try stack(try NSManagedObjectModel(entities: [item]), at: folder.appending("Items.sqlite"))
    try items.context.performAndWait {
      for (label, count) in [("keep", 1), ("drop", 2), ("also dropped", 3)] {
        let object = NSManagedObject(entity: item, insertInto: items.context)
        object.setValue(label, forKey: "name")
        object.setValue(Int64(count), forKey: "count")
      }
      try items.context.save()
      let request = NSFetchRequest<any NSFetchRequestResult>(entityName: "Item")
      request.predicate = NSPredicate(format: "count >= 2")
      let delete = NSBatchDeleteRequest(fetchRequest: request)
      #expect(delete.fetchRequest.predicate == request.predicate)
      try items.context.execute(delete)
    }
    let deletes = try changes(items).filter { $0.changeType == .delete }
    #expect(deletes.compactMap { $0.tombstone?["name"] as? String }.sorted() == ["also dropped", "drop"])
    #expect(deletes.allSatisfy { $0.tombstone?["count"] == nil })
  }

  @Test("a batch delete by IDs leaves tombstones for the rows its cascade deletes too")
  func batchDeleteCascades() throws {
    let folder = try TemporaryFolder()
    let model = try Models.notes()
    try #require(model.entitiesByName["Note"]?.attributesByName["title"]).preservesValueInHistoryOnDeletion = true
    try #require(model.entitiesByName["Notebook"]?.attributesByName["name"]).preservesValueInHistoryOnDeletion = true
    let notes = try stack(model, at: folder.appending("Notes.sqlite"))
    try notes.context.performAndWait {
      let notebook = Notebook(context: notes.context)
      notebook.name = "groceries"
      for title in ["milk", "eggs"] {
        let note = Note(context: notes.context)
        note.title = title
        note.notebook = notebook
      }
      let other = Note(context: notes.context)
      other.title = "unfiled"
      try notes.context.save()
      try notes.context.execute(NSBatchDeleteRequest(objectIDs: [notebook.objectID]))
    }
    let deletes = try changes(notes).filter { $0.changeType == .delete }
    #expect(deletes.count == 3)
    let titles = deletes.compactMap { $0.tombstone?["title"] as? String }.sorted()
    #expect(titles == ["eggs", "milk"])
    #expect(deletes.compactMap { $0.tombstone?["name"] as? String } == ["groceries"])
  }

  @Test("without history tracking, a batch delete of rows with preserved attributes still deletes them")
  func batchDeleteWithoutHistory() throws {
    let folder = try TemporaryFolder()
    let model = try Models.notes()
    try #require(model.entitiesByName["Note"]?.attributesByName["title"]).preservesValueInHistoryOnDeletion = true
    let notes = try StoreStack(model: model, at: folder.appending("Notes.sqlite"))
    let left = try notes.context.performAndWait {
      let note = Note(context: notes.context)
      note.title = "milk"
      try notes.context.save()
      try notes.context.execute(NSBatchDeleteRequest(fetchRequest: NSFetchRequest(entityName: "Note")))
      return try notes.context.count(for: NSFetchRequest<Note>(entityName: "Note"))
    }
    #expect(left == 0)
  }
}
