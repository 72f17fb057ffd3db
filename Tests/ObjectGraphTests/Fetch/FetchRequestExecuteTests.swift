import EngineTestSupport
import Foundation
import ObjectGraph
import TestSupport
import Testing

@Suite("NSFetchRequest.execute(): the fetch against the context whose block is running")
struct FetchRequestExecuteTests {
  private func insert(_ title: String, in context: NSManagedObjectContext) {
    let note = Note(context: context)
    note.title = title
  }

  @Test("Inside a context's performAndWait it fetches what context.fetch(_:) fetches")
  func insidePerformAndWait() throws {
    let stack = try StoreStack(type: .inMemory)
    try stack.context.performAndWait {
      insert("a", in: stack.context)
      insert("b", in: stack.context)
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      let executed = try request.execute()
      let fetched = try stack.context.fetch(request)
      #expect(executed.map(\.title) == ["a", "b"])
      #expect(executed == fetched)
    }
  }

  @Test("Nested blocks: inside a child's block within its parent's, the child's (with its unsaved notes)")
  func innermostContext() throws {
    let stack = try StoreStack(type: .inMemory)
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = stack.context
    try stack.context.performAndWait {
      insert("parent's", in: stack.context)
      try child.performAndWait {
        insert("child's", in: child)
        let inChild = try NSFetchRequest<Note>(entityName: "Note").execute()
        #expect(inChild.allSatisfy { $0.managedObjectContext === child })
        #expect(Set(inChild.compactMap(\.title)) == ["parent's", "child's"])
      }
      // Back in the parent's block: the parent's.
      let inParent = try NSFetchRequest<Note>(entityName: "Note").execute()
      #expect(inParent.map(\.title) == ["parent's"] && inParent.first?.managedObjectContext === stack.context)
    }
  }

  @Test("In an asynchronous perform block too")
  func insidePerform() async throws {
    let stack = try StoreStack(type: .inMemory)
    let titles = try await stack.context.perform {
      self.insert("queued", in: stack.context)
      return try NSFetchRequest<Note>(entityName: "Note").execute().compactMap(\.title)
    }
    #expect(titles == ["queued"])
  }

  @Test("Outside any context's block it throws, saying where to call it")
  func outsideThrows() throws {
    _ = try StoreStack(type: .inMemory)
    #expect {
      _ = try NSFetchRequest<Note>(entityName: "Note").execute()
    } throws: { error in
      let error = error as NSError
      return error.code == ObjectGraphNoPersistentStoreError && error.localizedDescription.contains("context.performAndWait")
    }
  }
}
