import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

@Suite("Fetching", .temporaryFolders)
struct FetchTests {
  /// Ten notes in two notebooks with tags, saved; returns the stack.
  private func populated(_ type: NSPersistentStore.StoreType) throws -> StoreStack {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let work = Notebook(context: stack.context)
      work.name = "Work"
      let home = Notebook(context: stack.context)
      home.name = "Home"
      let swift = Tag(context: stack.context)
      swift.name = "Swift"
      let data = Tag(context: stack.context)
      data.name = "data"
      let titles = ["Alpha", "beta", "Gamma", "delta", "Épée", "zeta", "Eta", "theta", "Iota", "kappa"]
      for (index, title) in titles.enumerated() {
        let note = Note(context: stack.context)
        note.title = title
        note.rating = Int64(index)
        note.body = index.isMultiple(of: 3) ? nil : "body \(index)"
        note.createdAt = Date(timeIntervalSinceReferenceDate: Double(index) * 1000)
        note.notebook = index < 6 ? work : (index < 9 ? home : nil)
        if index.isMultiple(of: 2) { note.tags.insert(swift) }
        if index.isMultiple(of: 5) { note.tags.insert(data) }
      }
      try stack.context.save()
    }
    return stack
  }

  /// Runs the predicate in SQL (fresh context, no pending changes) and in memory, and checks both agree.
  private func titles(_ stack: StoreStack, _ format: String, _ arguments: any Sendable...) throws -> [String] {
    let (_, context) = try stack.reader()
    return try context.performAndWait {
      let predicate = NSPredicate(format: format, argumentArray: arguments)
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = predicate
      request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      let sql = try context.fetch(request).compactMap(\.title)
      let all = NSFetchRequest<Note>(entityName: "Note")
      all.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      let memory = try context.fetch(all).filter { predicate.evaluate(with: $0) }.compactMap(\.title)
      #expect(sql == memory, "SQL and in-memory evaluation disagree for \(format)")
      return sql
    }
  }

  /// The titles a fetch with the predicate returns, and the titles of the notes it matches in memory.
  private func fetchedAndEvaluated(_ stack: StoreStack, _ format: String) throws -> (fetched: [String], evaluated: [String]) {
    let (_, context) = try stack.reader()
    return try context.performAndWait {
      let predicate = NSPredicate(format: format)
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = predicate
      request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      let all = NSFetchRequest<Note>(entityName: "Note")
      all.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      return (
        try context.fetch(request).compactMap(\.title),
        try context.fetch(all).filter { predicate.evaluate(with: $0) }.compactMap(\.title)
      )
    }
  }

  @Test("Comparison operators, one by one", arguments: bothStoreTypes)
  func comparisons(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try titles(stack, "rating == 3") == ["delta"])
    #expect(try titles(stack, "rating = 3") == ["delta"])
    #expect(try titles(stack, "rating != 3").count == 9)
    #expect(try titles(stack, "rating < 2") == ["Alpha", "beta"])
    #expect(try titles(stack, "rating <= 1") == ["Alpha", "beta"])
    #expect(try titles(stack, "rating > 8") == ["kappa"])
    #expect(try titles(stack, "rating >= 8") == ["Iota", "kappa"])
    #expect(try titles(stack, "rating BETWEEN {2, 4}") == ["Gamma", "delta", "Épée"])
    #expect(try titles(stack, "rating IN %@", [1, 7]) == ["beta", "theta"])
    #expect(try titles(stack, "title IN {'zeta', 'Eta'}") == ["zeta", "Eta"])
    #expect(try titles(stack, "createdAt > %@", Date(timeIntervalSinceReferenceDate: 7500)) == ["Iota", "kappa"])
  }

  @Test("String operators and their [c] and [d] options", arguments: bothStoreTypes)
  func strings(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try titles(stack, "title CONTAINS 'eta'") == ["beta", "zeta", "theta"])
    #expect(try titles(stack, "title CONTAINS[c] 'ETA'") == ["beta", "zeta", "Eta", "theta"])
    #expect(try titles(stack, "title BEGINSWITH 'E'") == ["Épée".hasPrefix("E") ? "Épée" : "", "Eta"].filter { !$0.isEmpty })
    #expect(try titles(stack, "title BEGINSWITH[cd] 'e'") == ["Épée", "Eta"])
    #expect(try titles(stack, "title ENDSWITH 'ta'") == ["beta", "delta", "zeta", "Eta", "theta", "Iota"])
    #expect(try titles(stack, "title LIKE '?eta'") == ["beta", "zeta"])
    #expect(try titles(stack, "title LIKE[c] '*A'") == ["Alpha", "beta", "Gamma", "delta", "zeta", "Eta", "theta", "Iota", "kappa"])
    #expect(try titles(stack, "title MATCHES '[a-z]+ta'") == ["beta", "delta", "zeta", "theta"])
    #expect(try titles(stack, "title MATCHES[c] 'e.a'") == ["Eta"])
    #expect(try titles(stack, "title ==[c] 'ALPHA'") == ["Alpha"])
    #expect(try titles(stack, "title ==[cd] 'epee'") == ["Épée"])
  }

  @Test("!= against a value, as Core Data: a fetch leaves out saved rows whose value is nil, an unsaved object is matched in memory")
  func notEqualAndNil() throws {
    let stack = try populated(.sqlite)
    try stack.context.performAndWait {
      let unsaved = Note(context: stack.context)
      unsaved.title = "unsaved"
      unsaved.rating = 20
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "body != 'body 1'")
      request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      #expect(try stack.context.fetch(request).compactMap(\.title) == ["Gamma", "Épée", "zeta", "theta", "Iota", "unsaved"])
      try stack.context.save()
      #expect(try stack.context.fetch(request).compactMap(\.title) == ["Gamma", "Épée", "zeta", "theta", "Iota"])
      // Saying what is meant gives one answer everywhere.
      request.predicate = NSPredicate(format: "body != 'body 1' OR body == nil")
      #expect(try stack.context.fetch(request).count == 10)
    }
  }

  @Test("nil, NOT, AND, OR, parentheses and precedence", arguments: bothStoreTypes)
  func logic(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try titles(stack, "body == nil") == ["Alpha", "delta", "Eta", "kappa"])
    #expect(try titles(stack, "body != NULL").count == 6)
    // Core Data's gotcha, kept: a fetch (SQL's <>) leaves out the nil bodies, evaluating in memory keeps them.
    let (sql, memory) = try fetchedAndEvaluated(stack, "body != 'body 1'")
    #expect(sql == ["Gamma", "Épée", "zeta", "theta", "Iota"])
    #expect(memory == ["Alpha", "Gamma", "delta", "Épée", "zeta", "Eta", "theta", "Iota", "kappa"])
    // AND binds tighter than OR.
    #expect(try titles(stack, "rating == 0 OR rating == 1 AND title == 'x'") == ["Alpha"])
    #expect(try titles(stack, "(rating == 0 OR rating == 1) AND title == 'beta'") == ["beta"])
    // NOT binds tighter than AND.
    #expect(try titles(stack, "NOT rating < 8 AND rating < 9") == ["Iota"])
    #expect(try titles(stack, "NOT (rating < 8 AND rating > 1)") == ["Alpha", "beta", "Iota", "kappa"])
    #expect(try titles(stack, "rating < 1 || rating > 8 && !(title == 'x')") == ["Alpha", "kappa"])
    #expect(try titles(stack, "TRUEPREDICATE").count == 10)
    #expect(try titles(stack, "FALSEPREDICATE").isEmpty)
  }

  @Test("Key paths, ANY/ALL/NONE, @count, SELF, object IDs and %K", arguments: bothStoreTypes)
  func relationships(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try titles(stack, "notebook.name == 'Home'") == ["Eta", "theta", "Iota"])
    #expect(try titles(stack, "notebook == nil") == ["kappa"])
    #expect(try titles(stack, "ANY tags.name == 'data'") == ["Alpha", "zeta"])
    #expect(try titles(stack, "ANY tags.name ==[c] 'SWIFT' AND rating > 6") == ["Iota"])
    #expect(try titles(stack, "tags.@count == 2") == ["Alpha"])
    #expect(try titles(stack, "tags.@count == 0") == ["beta", "delta", "theta", "kappa"])
    #expect(try titles(stack, "NONE tags.name == 'Swift'") == ["beta", "delta", "zeta", "theta", "kappa"])
    #expect(try titles(stack, "ALL tags.name == 'Swift'").count == 8)  // vacuously true for untagged notes
    #expect(try titles(stack, "%K == %@", "title", "Iota") == ["Iota"])
    let (homeID, iotaID) = try stack.context.performAndWait {
      let notes = try stack.context.fetch(NSFetchRequest<Note>(entityName: "Note"))
      let iota = try #require(notes.first { $0.title == "Iota" })
      return (try #require(iota.notebook).objectID, iota.objectID)
    }
    #expect(try titles(stack, "notebook == %@", homeID) == ["Eta", "theta", "Iota"])
    #expect(try titles(stack, "SELF == %@", iotaID) == ["Iota"])
    #expect(try titles(stack, "SELF IN %@", [iotaID]) == ["Iota"])
    #expect(try titles(stack, "notebook.notes.@count == 3") == ["Eta", "theta", "Iota"])
  }

  @Test("Sorting by key paths, with nil first, descending, and limits and offsets", arguments: bothStoreTypes)
  func sortingAndLimits(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    try stack.context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "notebook.name", ascending: false), NSSortDescriptor(key: "title", ascending: true)]
      let sorted = try stack.context.fetch(request).compactMap(\.title)
      #expect(sorted == ["Alpha", "Gamma", "beta", "delta", "zeta", "Épée", "Eta", "Iota", "theta", "kappa"])
      request.fetchLimit = 3
      request.fetchOffset = 2
      #expect(try stack.context.fetch(request).compactMap(\.title) == ["beta", "delta", "zeta"])
      #expect(try stack.context.count(for: request) == 3)
      request.fetchLimit = 0
      request.fetchOffset = 0
      request.predicate = NSPredicate(format: "rating > 4")
      #expect(try stack.context.count(for: request) == 5)
    }
  }

  @Test("Pending changes: inserted objects match, deleted ones vanish, changed ones are re-checked", arguments: bothStoreTypes)
  func pendingChanges(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    try stack.context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "rating >= 8")
      request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      let all = try stack.context.fetch(NSFetchRequest<Note>(entityName: "Note"))
      let alpha = try #require(all.first { $0.title == "Alpha" })
      let iota = try #require(all.first { $0.title == "Iota" })
      let kappa = try #require(all.first { $0.title == "kappa" })
      alpha.rating = 100  // now matches
      iota.rating = 1  // no longer matches
      stack.context.delete(kappa)
      let fresh = Note(context: stack.context)
      fresh.title = "new"
      fresh.rating = 50
      #expect(try stack.context.fetch(request).compactMap(\.title) == ["new", "Alpha"])
      #expect(try stack.context.count(for: request) == 2)
      request.includesPendingChanges = false
      #expect(try stack.context.fetch(request).compactMap(\.title).sorted() == ["Iota", "kappa"])
    }
  }

  @Test("One object per ID per context", arguments: bothStoreTypes)
  func uniquing(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    try stack.context.performAndWait {
      stack.context.reset()
      let first = try stack.context.fetch(NSFetchRequest<Note>(entityName: "Note"))
      let second = try stack.context.fetch(NSFetchRequest<Note>(entityName: "Note"))
      #expect(zip(first, second).allSatisfy { $0 === $1 })
      #expect(stack.context.object(with: first[0].objectID) === first[0])
      let notebook = try #require(first[0].notebook)
      #expect(first[1].notebook === notebook)
      // An object with unsaved changes keeps them across fetches.
      first[0].title = "edited"
      #expect(try stack.context.fetch(NSFetchRequest<Note>(entityName: "Note"))[0].title == "edited")
    }
  }

  @Test("Batched fetches read values one batch at a time", arguments: bothStoreTypes)
  func batches(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let (_, context) = try stack.reader()
    try context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.fetchBatchSize = 4
      request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      let notes = try context.fetch(request)
      #expect(notes.count == 10)
      #expect(notes.allSatisfy { $0.isFault })
      #expect(notes[5].title == "zeta")
      #expect(notes[4].state.needsLoad == false)
      #expect(notes[7].state.needsLoad == false)
      #expect(notes[3].state.needsLoad == true)
      #expect(notes[8].state.needsLoad == true)
      #expect(notes.map(\.title) == ["Alpha", "beta", "Gamma", "delta", "Épée", "zeta", "Eta", "theta", "Iota", "kappa"])
    }
  }

  @Test("Prefetching reads related objects with the fetch", arguments: bothStoreTypes)
  func prefetching(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let (_, context) = try stack.reader()
    try context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.relationshipKeyPathsForPrefetching = ["notebook", "tags"]
      let notes = try context.fetch(request)
      // Two notebooks and two tags were read with the fetch and wait in the row cache.
      #expect(context.rowCacheCount == 4)
      let names = notes.map { $0.notebook?.name ?? "-" }
      let tagCounts = notes.map { $0.tags.compactMap(\.name).count }
      #expect(names.filter { $0 == "Work" }.count == 6)
      let tagTotal: Int = tagCounts.reduce(0) { (sum: Int, count: Int) -> Int in sum + count }
      #expect(tagTotal == 7)
      #expect(context.rowCacheCount == 0, "every prefetched row was used")
    }
  }

  @Test("With a batch size, prefetching happens batch by batch, as each batch is read", arguments: bothStoreTypes)
  func prefetchingPerBatch(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let (_, context) = try stack.reader()
    try context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.fetchBatchSize = 4
      request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
      request.relationshipKeyPathsForPrefetching = ["notebook"]
      let notes = try context.fetch(request)
      // Nothing is read yet: every note is a fault of its batch.
      #expect(context.rowCacheCount == 0)
      _ = notes[0].title
      // The first batch was read, and the notebooks of its four notes with it.
      #expect(notes[3].state.needsLoad == false)
      #expect(notes[4].state.needsLoad == true)
      let notebooks = Set(notes[0..<4].compactMap { $0.values[$0.layout.index(of: "notebook") ?? 0].objectID })
      #expect(!notebooks.isEmpty)
      #expect(context.rowCacheCount == notebooks.count)
      #expect(notes[0..<4].allSatisfy { $0.notebook?.name != nil })
      #expect(context.rowCacheCount == 0, "every prefetched row was used")

      // A key that is not a relationship is refused at the fetch, even though nothing is read then.
      request.relationshipKeyPathsForPrefetching = ["colour"]
      _ = expectCode(.unknownKey) { _ = try context.fetch(request) }
    }
  }

  @Test("Bad predicates and unknown keys say what and where", arguments: bothStoreTypes)
  func badInput(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let syntax = expectCode(.predicateSyntax) { _ = try FetchPredicate(NSPredicate(format: "title == ")) }
    #expect(syntax?.message.contains("position") == true)
    stack.context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "colour == 'red'")
      let unknown = expectCode(.unknownKey) { _ = try stack.context.fetch(request) }
      #expect(unknown?.message.contains("Note") == true)
      #expect(unknown?.message.contains("colour") == true)
      request.predicate = NSPredicate(format: "notebook.colour == 'red'")
      let deep = expectCode(.unknownKey) { _ = try stack.context.fetch(request) }
      #expect(deep?.message.contains("Notebook") == true)
      let missing = expectCode(.unknownKey) { _ = try stack.context.fetch(NSFetchRequest<Note>(entityName: "Nope")) }
      #expect(missing?.message.contains("Nope") == true)
      request.predicate = nil
      request.sortDescriptors = [NSSortDescriptor(key: "shade", ascending: true)]
      _ = expectCode(.unknownKey) { _ = try stack.context.fetch(request) }
    }
  }

  @Test("A constant that cannot be compared with its column is refused, so SQL and memory cannot disagree", arguments: bothStoreTypes)
  func mixedTypes(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    stack.context.performAndWait {
      for format in ["rating > '2'", "title == 3", "SELF IN {1}", "notebook == 'Work'", "createdAt > 5"] {
        let request = NSFetchRequest<Note>(entityName: "Note")
        request.predicate = NSPredicate(format: format)
        let error = expectCode(.invalidValue) { _ = try stack.context.fetch(request) }
        #expect(error?.message.contains("cannot be compared") == true, "\(format)")
      }
    }
  }

  @Test("existingObject throws for a deleted object; object(with:) returns a fault", arguments: bothStoreTypes)
  func existingObject(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let id = try stack.context.performAndWait {
      let note = try #require(try stack.context.fetch(NSFetchRequest<Note>(entityName: "Note")).first)
      let id = note.objectID
      stack.context.delete(note)
      try stack.context.save()
      return id
    }
    let (_, context) = try stack.reader()
    context.performAndWait {
      let error = expectCode(.objectNotFound) { _ = try context.existingObject(with: id) }
      #expect(error?.message.contains("existingObject") == true)
      let fault = context.object(with: id)
      #expect(fault.isFault)
    }
  }
}
