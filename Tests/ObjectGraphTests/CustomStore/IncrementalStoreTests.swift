import Dispatch
import EngineTestSupport
import Foundation
import ObjectGraph
import Synchronization
import TestSupport
import Testing

/// An incremental store written as an app writes one: its rows in a property-list file, each request read
/// from it and each save written to it, one row at a time as the request asks. It counts every request the
/// engine makes of it; `failing` makes its fetches and saves throw.
final class PlistIncrementalStore: NSIncrementalStore, @unchecked Sendable {
  static let typeName = "PlistIncrementalStore"
  /// How often each request was made: "fetch", "count", "values", "relationship", "ids", "save".
  let requests = Mutex<[String: Int]>([:])
  /// Makes fetches and saves throw.
  let failing = Mutex(false)
  /// Makes newValuesForObject(with:with:) throw.
  let failingValues = Mutex(false)
  /// The next reference number for an inserted object.
  let nextKey = Mutex(0)
  /// Each object's registration count, as managedObjectContextDidRegisterObjects(with:) and
  /// …DidUnregisterObjects(with:) keep it ("register" and "unregister" count the calls).
  let references = Mutex<[NSManagedObjectID: Int]>([:])
  /// How a dictionary fetch is answered: "swift" ([[String: Any]]), "ns" ([NSDictionary]), "bad" (a string).
  let dictionaryAnswer = Mutex("swift")

  typealias Row = [String: Any]

  private func note(_ request: String) { requests.withLock { $0[request, default: 0] += 1 } }

  func count(of request: String) -> Int { requests.withLock { $0[request] ?? 0 } }

  /// How many contexts use the object of `id`, by the calls the store was given (negative: let go of more
  /// often than registered).
  func referenceCount(_ id: NSManagedObjectID) -> Int { references.withLock { $0[id] ?? 0 } }

  /// The IDs with a registration count other than 0.
  var referencedIDs: Set<NSManagedObjectID> { references.withLock { Set($0.filter { $0.value != 0 }.keys) } }

  override func managedObjectContextDidRegisterObjects(with objectIDs: [NSManagedObjectID]) {
    note("register")
    references.withLock { for id in objectIDs { $0[id, default: 0] += 1 } }
  }

  override func managedObjectContextDidUnregisterObjects(with objectIDs: [NSManagedObjectID]) {
    note("unregister")
    references.withLock { for id in objectIDs { $0[id, default: 0] -= 1 } }
  }

  override func loadMetadata() throws {
    guard let url else { return }
    let file = Self.read(url)
    if let stored = file?["metadata"] as? [String: Any] {
      metadata = stored
    } else {
      metadata = [NSStoreTypeKey: Self.typeName, NSStoreUUIDKey: Self.identifierForNewStore(at: url)]
    }
    let rows = file?["rows"] as? [String: Row] ?? [:]
    nextKey.withLock { $0 = rows.keys.compactMap { Int($0.dropFirst(1)) }.max() ?? 0 }
  }

  static func read(_ url: URL) -> [String: Any]? {
    guard let data = try? Data(contentsOf: url) else { return nil }
    return (try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)) as? [String: Any]
  }

  /// The rows by reference ("k1", "k2", …): each has "entity", "version", "values" and "toOne" (references).
  private func rows() -> [String: Row] {
    guard let url else { return [:] }
    return Self.read(url)?["rows"] as? [String: Row] ?? [:]
  }

  private func write(_ rows: [String: Row]) throws {
    guard let url else { return }
    let file: [String: Any] = ["metadata": metadata ?? [:], "rows": rows]
    let data = try PropertyListSerialization.data(fromPropertyList: file, format: .binary, options: 0)
    try data.write(to: url, options: .atomic)
  }

  private func reference(_ id: NSManagedObjectID) -> String? { referenceObject(for: id) as? String }

  override func execute(_ request: any NSPersistentStoreRequest, with context: NSManagedObjectContext?) throws -> Any {
    if failing.withLock({ $0 }) {
      throw NSError(domain: "PlistIncrementalStore", code: 7, userInfo: [NSLocalizedDescriptionKey: "The server is down (test)."])
    }
    if let save = request as? NSSaveChangesRequest { return try saveChanges(save) }
    guard let fetch = request as? NSFetchRequest<any NSFetchRequestResult>, let context,
      let entity = persistentStoreCoordinator?.managedObjectModel.entitiesByName[fetch.entityName]
    else { throw NSError(domain: "PlistIncrementalStore", code: 1) }
    note(fetch.resultType == .countResultType ? "count" : "fetch")
    var matches: [(key: String, values: [String: Any])] = []
    for (key, row) in rows() where row["entity"] as? String == fetch.entityName {
      let values = row["values"] as? [String: Any] ?? [:]
      if let predicate = fetch.predicate, !predicate.evaluate(with: values) { continue }
      matches.append((key, values))
    }
    matches.sort { lhs, rhs in
      for descriptor in fetch.sortDescriptors ?? [] {
        guard let key = descriptor.key else { continue }
        let left = "\(lhs.values[key] ?? "")"
        let right = "\(rhs.values[key] ?? "")"
        if left != right { return descriptor.ascending ? left < right : left > right }
      }
      return lhs.key < rhs.key
    }
    var window = Array(matches.dropFirst(fetch.fetchOffset))
    if fetch.fetchLimit > 0 { window = Array(window.prefix(fetch.fetchLimit)) }
    let ids = window.map { newObjectID(for: entity, referenceObject: $0.key) }
    switch fetch.resultType {
    case .countResultType: return [NSNumber(value: ids.count)]
    case .managedObjectIDResultType: return ids
    case .dictionaryResultType:
      let names = (fetch.propertiesToFetch ?? []).map {
        ($0 as? String) ?? ($0 as? NSPropertyDescription)?.name ?? ($0 as? NSExpressionDescription)?.name ?? ""
      }
      // An expression description is answered with its expression's text: what the store was handed.
      let echoed = (fetch.propertiesToFetch ?? []).compactMap { $0 as? NSExpressionDescription }.map {
        ($0.name, $0.expression.map { "\($0)" } ?? "")
      }
      let rows = window.map { match in
        Dictionary(uniqueKeysWithValues: names.compactMap { name in match.values[name].map { (name, $0) } } + echoed)
      }
      switch dictionaryAnswer.withLock({ $0 }) {
      case "ns": return rows.map { NSDictionary(dictionary: $0) }
      case "bad": return ["not a dictionary"]
      case "badValue": return rows.map { row in row.mapValues { _ in NSObject() } }
      default: return rows
      }
    default: return ids.map { context.object(with: $0) }
    }
  }

  private func saveChanges(_ save: NSSaveChangesRequest) throws -> Any {
    note("save")
    var rows = rows()
    for object in (save.insertedObjects ?? []).union(save.updatedObjects ?? []) {
      guard let key = reference(object.objectID) else { throw NSError(domain: "PlistIncrementalStore", code: 2) }
      var values: [String: Any] = [:]
      for name in object.entity.attributesByName.keys { values[name] = object.value(forKey: name) }
      var toOne: [String: String] = [:]
      for (name, relationship) in object.entity.relationshipsByName where !relationship.isToMany {
        if let destination = object.value(forKey: name) as? NSManagedObject { toOne[name] = reference(destination.objectID) }
      }
      let version = (rows[key]?["version"] as? Int ?? 0) + 1
      rows[key] = ["entity": object.entity.name ?? "", "version": version, "values": values, "toOne": toOne]
    }
    for object in save.deletedObjects ?? [] {
      if let key = reference(object.objectID) { rows[key] = nil }
    }
    try write(rows)
    return [Any]()
  }

  override func newValuesForObject(with objectID: NSManagedObjectID, with context: NSManagedObjectContext) throws
    -> NSIncrementalStoreNode
  {
    note("values")
    if failingValues.withLock({ $0 }) {
      throw NSError(domain: "PlistIncrementalStore", code: 8, userInfo: [NSLocalizedDescriptionKey: "The node cannot be read (test)."])
    }
    guard let key = reference(objectID), let row = rows()[key] else {
      throw NSError(domain: NSCocoaErrorDomain, code: NSManagedObjectReferentialIntegrityError)
    }
    var values = row["values"] as? [String: Any] ?? [:]
    for (name, destination) in row["toOne"] as? [String: String] ?? [:] {
      guard let entity = objectID.entity.relationshipsByName[name]?.destinationEntity else { continue }
      values[name] = newObjectID(for: entity, referenceObject: destination)
    }
    return NSIncrementalStoreNode(objectID: objectID, withValues: values, version: UInt64(row["version"] as? Int ?? 1))
  }

  override func newValue(
    forRelationship relationship: NSRelationshipDescription, forObjectWith objectID: NSManagedObjectID,
    with context: NSManagedObjectContext?
  ) throws -> Any {
    note("relationship")
    guard let key = reference(objectID), let destination = relationship.destinationEntity,
      let inverse = relationship.inverseRelationship?.name
    else { return [NSManagedObjectID]() }
    return rows().filter { ($0.value["toOne"] as? [String: String])?[inverse] == key }.keys.sorted()
      .map { newObjectID(for: destination, referenceObject: $0) }
  }

  override func obtainPermanentIDs(for array: [NSManagedObject]) throws -> [NSManagedObjectID] {
    note("ids")
    return array.map { object in
      let key = nextKey.withLock { next -> Int in
        next += 1
        return next
      }
      return newObjectID(for: object.entity, referenceObject: "k\(key)")
    }
  }
}

/// An incremental store that overrides nothing.
final class BareIncrementalStore: NSIncrementalStore, @unchecked Sendable {}

@Suite("Custom store classes: NSIncrementalStore", .temporaryFolders)
struct IncrementalStoreTests {
  init() {
    NSPersistentStoreCoordinator.registerStoreClass(PlistIncrementalStore.self, forStoreType: PlistIncrementalStore.typeName)
  }

  static func stack(_ model: NSManagedObjectModel, at url: URL) throws -> (PlistIncrementalStore, NSManagedObjectContext) {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let added = try coordinator.addPersistentStore(ofType: PlistIncrementalStore.typeName, configurationName: nil, at: url)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    return (try #require(added as? PlistIncrementalStore), context)
  }

  /// A store with folder "Inbox" holding notes "b", "a", "c" and folder "Archive" holding "d".
  static func filled(_ folder: TemporaryFolder, model: NSManagedObjectModel = AtomicStoreTests.model()) throws
    -> (URL, NSManagedObjectModel)
  {
    let url = folder.url.appendingPathComponent("Notes.plist")
    let (_, context) = try stack(model, at: url)
    try context.performAndWait {
      for (name, titles) in [("Inbox", ["b", "a", "c"]), ("Archive", ["d"])] {
        let owner = NSEntityDescription.insertNewObject(forEntityName: "Folder", into: context)
        owner.setValue(name, forKey: "name")
        for title in titles {
          let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
          note.setValue(title, forKey: "title")
          note.setValue(owner, forKey: "folder")
        }
      }
      try context.save()
    }
    return (url, model)
  }

  @Test("A fetch goes to execute(_:with:): predicate and sort applied by the store; IDs and counts too")
  func fetchWithPredicateAndSort() throws {
    let (url, model) = try Self.filled(TemporaryFolder())
    let (store, context) = try Self.stack(model, at: url)
    #expect(store.type == PlistIncrementalStore.typeName)
    try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
      request.predicate = NSPredicate(format: "title != %@", "d")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
      let notes = try context.fetch(request)
      #expect(notes.map { $0.value(forKey: "title") as? String } == ["c", "b", "a"])
      #expect(store.count(of: "fetch") == 1)

      let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Note")
      ids.resultType = .managedObjectIDResultType
      ids.predicate = NSPredicate(format: "title == %@", "d")
      let found = try context.fetch(ids)
      #expect(found.count == 1)
      #expect(store.referenceObject(for: try #require(found.first)) is String)

      let count = NSFetchRequest<NSManagedObject>(entityName: "Folder")
      #expect(try context.count(for: count) == 2)
      #expect(store.count(of: "count") == 1)

      let limited = NSFetchRequest<NSManagedObject>(entityName: "Note")
      limited.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      limited.fetchLimit = 2
      #expect(try context.fetch(limited).map { $0.value(forKey: "title") as? String } == ["a", "b"])
    }
  }

  @Test("An entity in the incremental store and a SQLite store at once: each store is asked, the whole is ordered, cut and counted")
  func entityInTwoStores() throws {
    let folder = try TemporaryFolder()
    let (url, model) = try Self.filled(folder)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let incremental = try #require(
      try coordinator.addPersistentStore(ofType: PlistIncrementalStore.typeName, configurationName: nil, at: url)
        as? PlistIncrementalStore)
    let sqlite = try coordinator.addPersistentStore(type: .sqlite, at: folder.url.appendingPathComponent("More.sqlite"))
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait {
      for title in ["aa", "e"] {
        let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
        note.setValue(title, forKey: "title")
        context.assign(note, to: sqlite)
      }
      try context.save()
      let fetchesBefore = incremental.count(of: "fetch")
      let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      let all = try context.fetch(request)
      #expect(all.map { $0.value(forKey: "title") as? String } == ["a", "aa", "b", "c", "d", "e"])
      #expect(incremental.count(of: "fetch") == fetchesBefore + 1, "the incremental store answered its part")
      #expect(all.map { $0.objectID.persistentStore === sqlite } == [false, true, false, false, false, true])

      // The limit and offset apply to the whole, after ordering: the store is handed none.
      request.predicate = NSPredicate(format: "title != %@", "c")
      request.fetchOffset = 1
      request.fetchLimit = 3
      #expect(try context.fetch(request).map { $0.value(forKey: "title") as? String } == ["aa", "b", "d"])
      #expect(try context.count(for: request) == 3)
      request.fetchLimit = 0
      #expect(try context.count(for: request) == 4)

      let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Note")
      ids.resultType = .managedObjectIDResultType
      ids.predicate = NSPredicate(format: "title BEGINSWITH %@", "a")
      #expect(Set(try context.fetch(ids).map { $0.persistentStore === sqlite }) == [false, true])
    }
  }

  @Test("Fetched objects are faults: newValuesForObject(with:with:) is asked once per object, when it is first read")
  func faultsFireLazily() throws {
    let (url, model) = try Self.filled(TemporaryFolder())
    let (store, context) = try Self.stack(model, at: url)
    try context.performAndWait {
      let notes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
      #expect(notes.count == 4)
      #expect(notes.allSatisfy { $0.isFault })
      #expect(store.count(of: "values") == 0)
      _ = notes[0].value(forKey: "title")
      #expect(store.count(of: "values") == 1)
      _ = notes[0].value(forKey: "title")
      #expect(store.count(of: "values") == 1)
      for note in notes { _ = note.value(forKey: "title") }
      #expect(store.count(of: "values") == 4)
    }
  }

  @Test("Relationships both ways: a to-one from the node, a to-many from newValue(forRelationship:…)")
  func relationshipsBothWays() throws {
    let (url, model) = try Self.filled(TemporaryFolder())
    let (store, context) = try Self.stack(model, at: url)
    try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
      request.predicate = NSPredicate(format: "title == %@", "a")
      let note = try #require(try context.fetch(request).first)
      let owner = try #require(note.value(forKey: "folder") as? NSManagedObject)
      #expect(owner.value(forKey: "name") as? String == "Inbox")
      #expect(store.count(of: "relationship") == 0)
      let members = try #require(owner.value(forKey: "notes") as? Set<NSManagedObject>)
      #expect(Set(members.compactMap { $0.value(forKey: "title") as? String }) == ["a", "b", "c"])
      #expect(members.contains(note))
      #expect(store.count(of: "relationship") == 1)
    }
  }

  @Test("Save inserts, updates and deletes through NSSaveChangesRequest, with permanent IDs first; a new coordinator sees them")
  func saveAndReopen() throws {
    let folder = try TemporaryFolder()
    let (url, model) = try Self.filled(folder)
    let (store, context) = try Self.stack(model, at: url)
    try context.performAndWait {
      let notes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
      for note in notes {
        switch note.value(forKey: "title") as? String {
        case "a": note.setValue("A", forKey: "title")
        case "d": context.delete(note)
        default: break
        }
      }
      let inbox = try #require(notes.first { $0.value(forKey: "title") as? String == "b" }?.value(forKey: "folder") as? NSManagedObject)
      let added = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
      added.setValue("e", forKey: "title")
      added.setValue(inbox, forKey: "folder")
      #expect(added.objectID.isTemporaryID)
      try context.save()
      #expect(!added.objectID.isTemporaryID)
      #expect(store.referenceObject(for: added.objectID) is String)
    }
    #expect(store.count(of: "save") == 1)
    #expect(store.count(of: "ids") == 1)
    let (_, reopened) = try Self.stack(model, at: url)
    let titles = try AtomicStoreTests.titles(reopened)
    #expect(titles == ["A": "Inbox", "b": "Inbox", "c": "Inbox", "e": "Inbox"])
  }

  @Test("A store that throws: the error reaches the fetch's and the save's caller, and the context keeps its changes")
  func throwingStore() throws {
    let (url, model) = try Self.filled(TemporaryFolder())
    let (store, context) = try Self.stack(model, at: url)
    store.failing.withLock { $0 = true }
    let fetchError = context.performAndWait { () -> (any Error)? in
      do {
        _ = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
        return nil
      } catch { return error }
    }
    #expect((fetchError as NSError?)?.code == 7)
    store.failing.withLock { $0 = false }
    try context.performAndWait {
      let note = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).first)
      note.setValue("changed", forKey: "title")
      store.failing.withLock { $0 = true }
      var saveError: (any Error)?
      do { try context.save() } catch { saveError = error }
      #expect((saveError as NSError?)?.code == 7)
      #expect(context.hasChanges)
      #expect(note.value(forKey: "title") as? String == "changed")
      store.failing.withLock { $0 = false }
      try context.save()
    }
    let (_, reopened) = try Self.stack(model, at: url)
    #expect(try AtomicStoreTests.titles(reopened).keys.contains("changed"))
  }

  @Test("Concurrent contexts on real queues insert and read through one store: nothing lost")
  func concurrentContexts() async throws {
    let (url, model) = try Self.filled(TemporaryFolder())
    let (store, first) = try Self.stack(model, at: url)
    let coordinator = try #require(store.persistentStoreCoordinator)
    await withThrowingTaskGroup(of: Void.self) { group in
      for worker in 0..<4 {
        group.addTask {
          let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
          context.persistentStoreCoordinator = coordinator
          try await context.perform {
            for index in 0..<5 {
              let note = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
              note.setValue("w\(worker)-\(index)", forKey: "title")
              try context.save()
              _ = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note"))
            }
          }
        }
      }
    }
    let total = try await first.perform { try first.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) }
    #expect(total == 4 + 20)
    let (_, reopened) = try Self.stack(model, at: url)
    #expect(try AtomicStoreTests.titles(reopened).count == 24)
  }

  @Test("A dictionary fetch goes to execute(_:with:) with its properties; [[String: Any]] and [NSDictionary] answers both read")
  func dictionaryFetch() throws {
    let (url, model) = try Self.filled(TemporaryFolder())
    let (store, context) = try Self.stack(model, at: url)
    try context.performAndWait {
      let request = NSFetchRequest<NSDictionary>(entityName: "Note")
      request.resultType = .dictionaryResultType
      request.propertiesToFetch = ["title"]
      request.predicate = NSPredicate(format: "title != %@", "d")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      let rows = try context.fetch(request)
      #expect(rows.map { $0["title"] as? String } == ["a", "b", "c"])
      #expect(store.count(of: "fetch") == 1)
      #expect(context.registeredObjects.isEmpty)

      store.dictionaryAnswer.withLock { $0 = "ns" }
      let swiftRows = NSFetchRequest<NSFetchRequestResult>(entityName: "Note")
      swiftRows.resultType = .dictionaryResultType
      swiftRows.propertiesToFetch = ["title"]
      swiftRows.predicate = NSPredicate(format: "title == %@", "d")
      let found = try context.fetch(swiftRows)
      #expect(found.count == 1)
      #expect((found.first as? NSDictionary)?["title"] as? String == "d")
    }
  }

  @Test("A dictionary fetch's expression descriptions reach execute(_:with:) as they were made, and its answer under their names is read")
  func dictionaryFetchExpressions() throws {
    let (url, model) = try Self.filled(TemporaryFolder())
    let (store, context) = try Self.stack(model, at: url)
    try context.performAndWait {
      let request = NSFetchRequest<NSDictionary>(entityName: "Note")
      let shout = NSExpressionDescription(
        name: "shout", expression: NSExpression(forFunction: "uppercase:", arguments: [NSExpression(forKeyPath: "title")]),
        expressionResultType: .stringAttributeType)
      let total = NSExpressionDescription(
        name: "total",
        expression: NSExpression(
          forFunction: "sum:",
          arguments: [
            NSExpression(forFunction: "multiply:by:", arguments: [NSExpression(forKeyPath: "title"), NSExpression(forConstantValue: 2)])
          ]))
      request.propertiesToFetch = ["title", shout, total]
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      let rows = try context.fetch(request)
      #expect(store.count(of: "fetch") == 1)
      #expect(rows.map { $0["title"] as? String } == ["a", "b", "c", "d"])
      #expect(rows.allSatisfy { $0["shout"] as? String == "uppercase:(title)" })
      #expect(rows.allSatisfy { $0["total"] as? String == "sum:(multiply:by:(title, 2))" })
    }
  }

  @Test("A dictionary fetch answered with something else fails with an error naming the method and what it returned")
  func dictionaryFetchBadAnswer() throws {
    let (url, model) = try Self.filled(TemporaryFolder())
    let (store, context) = try Self.stack(model, at: url)
    for answer in ["bad", "badValue"] {
      store.dictionaryAnswer.withLock { $0 = answer }
      let error = context.performAndWait { () -> (any Error)? in
        let request = NSFetchRequest<NSDictionary>(entityName: "Note")
        request.resultType = .dictionaryResultType
        request.propertiesToFetch = ["title"]
        do {
          _ = try context.fetch(request)
          return nil
        } catch { return error }
      }
      let message = (error as NSError?)?.localizedDescription ?? ""
      #expect(message.contains("execute(_:with:)"), "\(answer): \(message)")
      #expect(message.contains(answer == "bad" ? "not a dictionary" : "'title'"), "\(answer): \(message)")
    }
  }

  @Test("A node keeps its values and version; update(withValues:version:) replaces them")
  func node() throws {
    let (url, model) = try Self.filled(TemporaryFolder())
    let (store, _) = try Self.stack(model, at: url)
    let entity = try #require(model.entitiesByName["Note"])
    let id = store.newObjectID(for: entity, referenceObject: "k1")
    #expect(store.newObjectID(for: entity, referenceObject: "k1") == id)
    #expect(store.referenceObject(for: id) as? String == "k1")
    let title = try #require(entity.attributesByName["title"])
    let node = NSIncrementalStoreNode(objectID: id, withValues: ["title": "x"], version: 3)
    #expect(node.objectID == id)
    #expect(node.version == 3)
    #expect(node.value(for: title) as? String == "x")
    node.update(withValues: ["title": "y"], version: 4)
    #expect(node.version == 4)
    #expect(node.value(for: title) as? String == "y")
  }

  @Test("A subclass that does not override loadMetadata() is refused when added, with an error naming the method")
  func bareSubclassRefused() throws {
    NSPersistentStoreCoordinator.registerStoreClass(BareIncrementalStore.self, forStoreType: "BareIncrementalStore")
    let folder = try TemporaryFolder()
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: AtomicStoreTests.model())
    var failure: (any Error)?
    do {
      try coordinator.addPersistentStore(
        ofType: "BareIncrementalStore", configurationName: nil, at: folder.url.appendingPathComponent("bare"))
    } catch { failure = error }
    #expect((failure as NSError?)?.localizedDescription.contains("loadMetadata()") == true)
    #expect(coordinator.persistentStores.isEmpty)
  }

  @Test("A child context reads and saves through its parent to the incremental store")
  func childContext() throws {
    let (url, model) = try Self.filled(TemporaryFolder())
    let (store, root) = try Self.stack(model, at: url)
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = root
    try child.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
      request.predicate = NSPredicate(format: "title == %@", "c")
      let note = try #require(try child.fetch(request).first)
      #expect(note.value(forKey: "title") as? String == "c")
      note.setValue("C", forKey: "title")
      try child.save()
    }
    #expect(store.count(of: "save") == 0)
    try root.performAndWait { try root.save() }
    #expect(store.count(of: "save") == 1)
    let (_, reopened) = try Self.stack(model, at: url)
    #expect(try AtomicStoreTests.titles(reopened)["C"] == "Inbox")
  }
}
