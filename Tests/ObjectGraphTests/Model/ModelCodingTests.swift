import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Archives `object` with a secure keyed archiver and reads it back as `type`.
func archivedCopy<T: NSObject & NSSecureCoding>(_ object: T, as type: T.Type = T.self) throws -> T {
  let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
  return try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: type, from: data))
}

/// `object` archived as XML, with `replacements` made in its text.
func tamperedArchive(of object: NSObject, replacing replacements: [(String, String)]) throws -> Data {
  let archiver = NSKeyedArchiver(requiringSecureCoding: true)
  archiver.outputFormat = .xml
  archiver.encode(object, forKey: NSKeyedArchiveRootObjectKey)
  archiver.finishEncoding()
  var text = try #require(String(data: archiver.encodedData, encoding: .utf8))
  for (original, replacement) in replacements {
    #expect(text.contains(original), "the archive has no \(original)")
    text = text.replacingOccurrences(of: original, with: replacement)
  }
  return Data(text.utf8)
}

/// A model that uses every setting an archive must keep.
enum ArchivingSample {
  static func model() throws -> NSManagedObjectModel {
    let item = NSEntityDescription()
    item.name = "KeptItem"
    item.isAbstract = true
    item.userInfo = ["kind": "base"]
    item.versionHashModifier = "v2"
    let created = NSAttributeDescription(
      name: "created", type: .date, isOptional: true, defaultValue: Date(timeIntervalSinceReferenceDate: 12))
    item.properties = [created]

    let note = NSEntityDescription()
    note.name = "KeptNote"
    note.managedObjectClassName = "ArchivedNote"
    note.renamingIdentifier = "Memo"
    let title = NSAttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: "Untitled")
    title.renamingIdentifier = "heading"
    title.userInfo = ["max": "80"]
    title.setValidationPredicates([NSPredicate(format: "length >= 1")], withValidationWarnings: ["Too short"])
    let words = NSAttributeDescription(name: "words", type: .integer32, defaultValue: Int32(7))
    let price = NSAttributeDescription(name: "price", type: .decimal, defaultValue: Decimal(string: "12.50"))
    let ratio = NSAttributeDescription(name: "ratio", type: .double, defaultValue: 0.25)
    let weight = NSAttributeDescription(name: "weight", type: .float, defaultValue: Float(1.5))
    let flag = NSAttributeDescription(name: "flag", type: .boolean, defaultValue: true)
    let identifier = NSAttributeDescription(name: "identifier", type: .uuid)
    let link = NSAttributeDescription(name: "link", type: .uri, defaultValue: URL(string: "https://example.com/a"))
    let blob = NSAttributeDescription(name: "blob", type: .binaryData)
    blob.allowsExternalBinaryDataStorage = true
    let scratch = NSAttributeDescription(name: "scratch", type: .string)
    scratch.isTransient = true
    let count = NSAttributeDescription(name: "count", type: .integer64, defaultValue: Int64(3))
    count.preservesValueInHistoryOnDeletion = true
    let titleLength = NSDerivedAttributeDescription(name: "titleLength", type: .string)
    titleLength.derivationExpression = NSExpression(forFunction: "lowercase:", arguments: [NSExpression(forKeyPath: "title")])
    let place = NSCompositeAttributeDescription(
      name: "place",
      elements: [NSAttributeDescription(name: "city", type: .string), NSAttributeDescription(name: "zip", type: .integer32)])
    let notebook = NSRelationshipDescription(
      name: "notebook", destination: "KeptNotebook", inverse: "notes", deleteRule: .nullifyDeleteRule, isOptional: true)
    note.properties = [
      title, words, price, ratio, weight, flag, identifier, link, blob, scratch, count, titleLength, place, notebook,
    ]
    note.uniquenessConstraints = [["identifier"]]
    let byTitle = NSFetchIndexDescription(
      name: "byTitle",
      elements: [
        NSFetchIndexElementDescription(propertyName: "title", isAscending: false),
        NSFetchIndexElementDescription(propertyName: "words"),
      ])
    byTitle.partialIndexPredicate = NSPredicate(format: "words > 0")
    note.indexes = [byTitle]
    item.subentities = [note]

    let notebook2 = NSEntityDescription()
    notebook2.name = "KeptNotebook"
    let name = NSAttributeDescription(name: "name", type: .string)
    let notes = NSRelationshipDescription(
      name: "notes", destination: "KeptNote", inverse: "notebook", toMany: true, deleteRule: .cascadeDeleteRule)
    notes.isOrdered = true
    notes.minCount = 1
    notes.maxCount = 40
    notes.versionHashModifier = "ordered"
    notebook2.properties = [name, notes]
    notebook2.fetchedProperties = [
      NSFetchedPropertyDescription(name: "longNotes", destinationEntityName: "KeptNote", predicateFormat: "words > 100")
    ]

    let model = try NSManagedObjectModel(entities: [item, note, notebook2])
    model.setEntities([note, notebook2], forConfigurationName: "Local")
    model.versionIdentifiers = ["1.2"]
    let template = NSFetchRequest<NSManagedObject>(entityName: "KeptNote")
    template.predicate = NSPredicate(format: "title == $TITLE")
    template.fetchLimit = 5
    template.returnsObjectsAsFaults = false
    model.setFetchRequestTemplate(template, forName: "byTitle")
    return model
  }
}

@Suite("Archiving a model (NSSecureCoding)", .temporaryFolders)
struct ModelCodingTests {
  @Test("A model built in code comes back equal, with the same version hashes and every setting")
  func builtModel() throws {
    let model = try ArchivingSample.model()
    let copy = try archivedCopy(model)
    #expect(copy == model)
    #expect(copy.entityVersionHashesByName == model.entityVersionHashesByName)
    #expect(copy.entities.map(\.name) == model.entities.map(\.name))
    #expect(copy.configurations == ["Local"])
    #expect(copy.entities(forConfigurationName: "Local")?.map(\.name) == ["KeptNote", "KeptNotebook"])
    #expect(copy.versionIdentifiers == ["1.2"])

    let item = try #require(copy.entitiesByName["KeptItem"])
    #expect(item.isAbstract && item.userInfo == ["kind": "base"] && item.versionHashModifier == "v2")
    let note = try #require(copy.entitiesByName["KeptNote"])
    #expect(note.superentity === item && item.subentities.map(\.name) == ["KeptNote"])
    #expect(note.managedObjectClassName == "ArchivedNote" && note.renamingIdentifier == "Memo")
    #expect(note.uniquenessConstraints == [["identifier"]])
    #expect(note.indexes == model.entitiesByName["KeptNote"]?.indexes)
    #expect(note.indexes.first?.partialIndexPredicate?.formatText == "words > 0")
    let attributes = note.attributesByName
    let title = try #require(attributes["title"])
    #expect(!title.isOptional && title.defaultValue as? String == "Untitled")
    #expect(title.renamingIdentifier == "heading" && title.userInfo == ["max": "80"])
    #expect(title.validationWarnings as? [String] == ["Too short"])
    #expect(title.validationPredicates.count == 1)
    #expect(attributes["created"]?.defaultValue as? Date == Date(timeIntervalSinceReferenceDate: 12))
    #expect(attributes["words"]?.defaultValue as? Int32 == 7)
    #expect(attributes["price"]?.defaultValue as? Decimal == Decimal(string: "12.50"))
    #expect(attributes["ratio"]?.defaultValue as? Double == 0.25)
    #expect(attributes["weight"]?.defaultValue as? Float == 1.5)
    #expect(attributes["flag"]?.defaultValue as? Bool == true)
    #expect(attributes["link"]?.defaultValue as? URL == URL(string: "https://example.com/a"))
    #expect(attributes["blob"]?.allowsExternalBinaryDataStorage == true)
    #expect(attributes["scratch"]?.isTransient == true)
    #expect(attributes["count"]?.preservesValueInHistoryOnDeletion == true)
    let derived = try #require(attributes["titleLength"] as? NSDerivedAttributeDescription)
    #expect(derived.derivationExpression != nil)
    let place = try #require(attributes["place"] as? NSCompositeAttributeDescription)
    #expect(place.elements.map(\.name) == ["city", "zip"])

    let notebook = try #require(copy.entitiesByName["KeptNotebook"])
    let notes = try #require(notebook.relationshipsByName["notes"])
    #expect(notes.destinationEntity === note && notes.inverseRelationship === note.relationshipsByName["notebook"])
    #expect(notes.isToMany && notes.isOrdered && notes.minCount == 1 && notes.maxCount == 40)
    #expect(notes.deleteRule == .cascadeDeleteRule && notes.versionHashModifier == "ordered")
    #expect(notebook.fetchedProperties.map(\.name) == ["longNotes"])
    #expect(notebook.fetchedProperties.first?.predicateFormat == "words > 100")

    let template = try #require(copy.fetchRequestTemplate(forName: "byTitle"))
    #expect(template.entityName == "KeptNote" && template.fetchLimit == 5 && !template.returnsObjectsAsFaults)
  }

  @Test("Every fixture model comes back equal, entity by entity", .needsFixtures)
  func fixtureModels() throws {
    for url in try Fixtures.models() {
      let model = try NSManagedObjectModel(loadingContentsOf: url)
      let copy = try archivedCopy(model)
      #expect(copy == model, "\(url.lastPathComponent)")
      #expect(copy.entityVersionHashesByName == model.entityVersionHashesByName, "\(url.lastPathComponent)")
      #expect(copy.configurations == model.configurations, "\(url.lastPathComponent)")
      #expect(copy.fetchRequestTemplates.map(\.name) == model.fetchRequestTemplates.map(\.name), "\(url.lastPathComponent)")
      for entity in model.entities {
        let copied = try #require(copy.entitiesByName[entity.name ?? ""])
        #expect(copied.versionHash == entity.versionHash, "\(url.lastPathComponent) \(entity.name ?? "")")
        #expect(copied.propertiesByName.keys.sorted() == entity.propertiesByName.keys.sorted())
        #expect(copied.uniquenessConstraints == entity.uniquenessConstraints)
      }
    }
  }

  @Test("A store saved with a model opens with its unarchived copy, without a migration")
  func storeOpensWithCopy() throws {
    let model = try ArchivingSample.model()
    let folder = try TemporaryFolder()
    let stack = try StoreStack(model: model, folder: folder)
    try stack.context.performAndWait {
      let notebook = NSEntityDescription.insertNewObject(forEntityName: "KeptNotebook", into: stack.context)
      let note = NSEntityDescription.insertNewObject(forEntityName: "KeptNote", into: stack.context)
      note.setValue("Groceries", forKey: "title")
      note.setValue(UUID(), forKey: "identifier")
      note.setValue(notebook, forKey: "notebook")
      try stack.context.save()
    }
    try stack.close()
    let copy = try archivedCopy(model)
    let reopened = try StoreStack(model: copy, at: stack.storeURL, options: nil)
    #expect(try reopened.storedCount("KeptNote") == 1)
    #expect(try reopened.storedCount("KeptNotebook") == 1)
  }

  @Test("A model archive whose entities do not make a model gives nil and the unarchiver's error, not a model")
  func unresolvableModel() throws {
    let note = NSEntityDescription()
    note.name = "KeptNote"
    let stray = NSRelationshipDescription(name: "stray", destination: "Nowhere", inverse: nil)
    note.properties = [stray]
    let model = NSManagedObjectModel()
    model.entities = [note]  // Nowhere is not in the model: the model keeps why, and cannot be used
    let data = try NSKeyedArchiver.archivedData(withRootObject: model, requiringSecureCoding: true)
    let error = try #require(throws: NSError.self) {
      _ = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSManagedObjectModel.self, from: data)
    }
    #expect(error.code == CocoaError.Code.coderReadCorrupt.rawValue)
  }
}

@Suite("Archiving an entity or a property alone")
struct DescriptionCodingTests {
  @Test("An entity alone comes back with its own properties, outside any model, its relationships by name")
  func entityAlone() throws {
    let model = try ArchivingSample.model()
    let note = try #require(model.entitiesByName["KeptNote"])
    let copy = try archivedCopy(note)
    #expect(copy.name == "KeptNote" && copy.managedObjectModel == nil)
    #expect(copy.superentity == nil)
    #expect(copy.ownProperties.map(\.name) == note.ownProperties.map(\.name))
    let notebook = try #require(copy.relationshipsByName["notebook"])
    #expect(notebook.destinationEntityName == "KeptNotebook" && notebook.inverseRelationshipName == "notes")
    #expect(copy.indexes.map(\.name) == ["byTitle"])
    // Given to a model with the entities it names, it resolves as a new entity does.
    let item = try archivedCopy(try #require(model.entitiesByName["KeptItem"]))
    let notebookEntity = try archivedCopy(try #require(model.entitiesByName["KeptNotebook"]))
    item.subentities = [copy]
    let rebuilt = try NSManagedObjectModel(entities: [item, copy, notebookEntity])
    #expect(rebuilt.entityVersionHashesByName == model.entityVersionHashesByName)
  }

  @Test("An attribute alone comes back with every setting")
  func attributeAlone() throws {
    let title = NSAttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: "x")
    title.versionHashModifier = "m"
    title.setValidationPredicates([NSPredicate(format: "length < 10")], withValidationWarnings: ["Too long"])
    let copy = try archivedCopy(title)
    #expect(copy.name == "title" && copy.attributeType == .stringAttributeType && !copy.isOptional)
    #expect(copy.defaultValue as? String == "x" && copy.versionHashModifier == "m")
    #expect(copy.versionHash == title.versionHash)
    #expect(copy.validationWarnings as? [String] == ["Too long"])
    // Decoded as the base class, it is still the attribute it was.
    let data = try NSKeyedArchiver.archivedData(withRootObject: title, requiringSecureCoding: true)
    let property = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPropertyDescription.self, from: data)
    #expect((property as? NSAttributeDescription)?.name == "title")
  }

  @Test("A relationship alone keeps its destination and inverse by name, and its counts and rule")
  func relationshipAlone() throws {
    let notes = NSRelationshipDescription(
      name: "notes", destination: "KeptNote", inverse: "notebook", toMany: true, deleteRule: .denyDeleteRule)
    notes.maxCount = 9
    let copy = try archivedCopy(notes)
    #expect(copy.destinationEntityName == "KeptNote" && copy.inverseRelationshipName == "notebook")
    #expect(copy.destinationEntity == nil)
    #expect(copy.isToMany && copy.maxCount == 9 && copy.deleteRule == .denyDeleteRule)
    #expect(copy.versionHash == notes.versionHash)
  }

  @Test("A fetch index alone comes back with its elements (order and kind) and partial predicate, belonging to nobody")
  func fetchIndexAlone() throws {
    let model = try ArchivingSample.model()
    let index = try #require(model.entitiesByName["KeptNote"]?.indexes.first)
    let copy = try archivedCopy(index)
    #expect(copy == index && copy.entity == nil)
    #expect(copy.elements.map(\.description) == ["title desc", "words asc"])
    #expect(copy.elements.allSatisfy { $0.indexDescription === copy })
    #expect(copy.partialIndexPredicate?.formatText == "words > 0")
    let spatial = NSFetchIndexElementDescription(propertyName: "latitude", isAscending: false, collationType: .rTree)
    let element = try archivedCopy(spatial)
    #expect(element == spatial && element.indexDescription == nil && element.property == nil)
    // Given to an entity, an unarchived index finds its properties there.
    let memo = NSEntityDescription(
      name: "Memo",
      properties: [
        .attribute(NSAttributeDescription(name: "title", type: .string)),
        .attribute(NSAttributeDescription(name: "words", type: .integer64)),
      ])
    memo.indexes = [copy]
    #expect(memo.indexes[0].elements.map { $0.property?.name } == ["title", "words"])

    let bad = try tamperedArchive(
      of: spatial,
      replacing: [
        ("<key>NSFetchIndexElementType</key>\n\t\t\t<integer>1</integer>", "<key>NSFetchIndexElementType</key>\n\t\t\t<integer>7</integer>")
      ])
    let error = try #require(throws: NSError.self) {
      _ = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSFetchIndexElementDescription.self, from: bad)
    }
    #expect(error.code == CocoaError.Code.coderReadCorrupt.rawValue)
  }

  @Test("A malformed archive gives nil and a coderReadCorrupt error, never a crash")
  func malformed() throws {
    let title = NSAttributeDescription(name: "title", type: .string)
    let badType = try tamperedArchive(of: title, replacing: [("<integer>700</integer>", "<integer>12345</integer>")])
    let typeError = try #require(throws: NSError.self) {
      _ = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSAttributeDescription.self, from: badType)
    }
    // Linux's Foundation reports its own error for a class whose init(coder:) gave nil, naming the class.
    #expect(typeError.code == CocoaError.Code.coderReadCorrupt.rawValue)
    #expect("\(typeError.userInfo)".contains("NSAttributeDescription"))

    let entity = NSEntityDescription()
    entity.name = "KeptNote"
    let nameless = try tamperedArchive(of: entity, replacing: [("<key>NSEntityName</key>", "<key>SomethingElse</key>")])
    let nameError = try #require(throws: NSError.self) {
      _ = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSEntityDescription.self, from: nameless)
    }
    #expect(nameError.code == CocoaError.Code.coderReadCorrupt.rawValue)

    #expect(throws: (any Error).self) {
      _ = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSManagedObjectModel.self, from: Data("not an archive".utf8))
    }
  }
}

@Suite("Archiving a context's settings")
struct ContextCodingTests {
  @Test("A context comes back with its concurrency type and settings, and no coordinator, parent or objects")
  func settings() throws {
    let stack = try StoreStack(model: try ArchivingSample.model(), type: .inMemory)
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = stack.coordinator
    context.name = "importer"
    context.transactionAuthor = "sync"
    context.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
    context.stalenessInterval = 30
    context.automaticallyMergesChangesFromParent = true
    context.shouldDeleteInaccessibleFaults = false
    context.retainsRegisteredObjects = true
    context.undoManager = UndoManager()
    let data = try NSKeyedArchiver.archivedData(withRootObject: context, requiringSecureCoding: false)
    let copy = try #require(try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data) as? NSManagedObjectContext)
    #expect(copy !== context)
    #expect(copy.concurrencyType == .privateQueueConcurrencyType)
    #expect(copy.name == "importer" && copy.transactionAuthor == "sync")
    #expect((copy.mergePolicy as? NSMergePolicy)?.mergeType == .mergeByPropertyObjectTrumpMergePolicyType)
    #expect(copy.stalenessInterval == 30)
    #expect(copy.automaticallyMergesChangesFromParent && !copy.shouldDeleteInaccessibleFaults)
    #expect(copy.retainsRegisteredObjects && copy.propagatesDeletesAtEndOfEvent)
    #expect(copy.undoManager != nil && copy.undoManager !== context.undoManager)
    #expect(copy.persistentStoreCoordinator == nil && copy.parent == nil)
    copy.performAndWait { #expect(copy.registeredObjects.isEmpty) }
  }

  @Test("An archive with no concurrency type gives nil and an error, not a context")
  func malformed() throws {
    let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
    let archiver = NSKeyedArchiver(requiringSecureCoding: false)
    archiver.outputFormat = .xml
    archiver.encode(context, forKey: NSKeyedArchiveRootObjectKey)
    archiver.finishEncoding()
    let text = try #require(String(data: archiver.encodedData, encoding: .utf8))
    #expect(text.contains("<key>NSConcurrencyType</key>"))
    let broken = Data(text.replacingOccurrences(of: "<key>NSConcurrencyType</key>", with: "<key>Other</key>").utf8)
    #expect(throws: (any Error).self) { _ = try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(broken) }
  }
}

@Suite("Archiving a fetch request")
struct FetchRequestCodingTests {
  @Test("A request comes back with its entity, predicates (parsed again), sort, limits, result type, flags and names")
  func roundTrip() throws {
    let request = NSFetchRequest<NSDictionary>(entityName: "KeptNote")
    request.predicate = NSPredicate(format: "words > %d AND title BEGINSWITH[c] %@", 10, "a")
    request.sortDescriptors = [
      NSSortDescriptor(key: "title", ascending: false, selector: Selector("localizedStandardCompare:")),
      NSSortDescriptor(key: "words", ascending: true),
    ]
    request.fetchLimit = 20
    request.fetchOffset = 5
    request.fetchBatchSize = 50
    request.resultType = .dictionaryResultType
    request.includesSubentities = false
    request.returnsDistinctResults = true
    request.shouldRefreshRefetchedObjects = true
    request.propertiesToFetch = ["title", "notebook.name"]
    request.propertiesToGroupBy = ["title"]
    request.havingPredicate = NSPredicate(format: "title != nil")
    request.relationshipKeyPathsForPrefetching = ["notebook"]
    let data = try NSKeyedArchiver.archivedData(withRootObject: request, requiringSecureCoding: true)
    let copy = try #require(
      try NSKeyedUnarchiver.unarchivedObject(ofClass: NSFetchRequest<any NSFetchRequestResult>.self, from: data))
    #expect(copy.entityName == "KeptNote")
    #expect(copy.predicate?.formatText == request.predicate?.formatText)
    #expect(copy.havingPredicate?.formatText == "title != nil")
    #expect(copy.sortDescriptors?.map(\.key) == ["title", "words"])
    #expect(copy.sortDescriptors?.map(\.ascending) == [false, true])
    #expect(copy.sortDescriptors?.first?.selector?.name == "localizedStandardCompare:")
    #expect(copy.fetchLimit == 20 && copy.fetchOffset == 5 && copy.fetchBatchSize == 50)
    #expect(copy.resultType == .dictionaryResultType)
    #expect(!copy.includesSubentities && copy.returnsDistinctResults && copy.shouldRefreshRefetchedObjects)
    #expect(copy.includesPendingChanges && copy.returnsObjectsAsFaults && copy.includesPropertyValues)
    #expect(copy.propertiesToFetch?.map(\.fetchColumn.name) == ["title", "notebook.name"])
    #expect(copy.propertiesToGroupBy?.map(\.fetchColumn.name) == ["title"])
    #expect(copy.relationshipKeyPathsForPrefetching == ["notebook"])
  }

  @Test("An unarchived request fetches what the original fetched")
  func fetches() throws {
    let stack = try StoreStack(model: try ArchivingSample.model(), type: .inMemory)
    try stack.context.performAndWait {
      for (title, words) in [("apple", 5), ("avocado", 50), ("banana", 500)] {
        let note = NSEntityDescription.insertNewObject(forEntityName: "KeptNote", into: stack.context)
        note.setValue(title, forKey: "title")
        note.setValue(Int32(words), forKey: "words")
        note.setValue(UUID(), forKey: "identifier")
      }
      try stack.context.save()
    }
    let request = NSFetchRequest<NSManagedObject>(entityName: "KeptNote")
    request.predicate = NSPredicate(format: "words > %d", 10)
    request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
    let data = try NSKeyedArchiver.archivedData(withRootObject: request, requiringSecureCoding: true)
    let copy = try #require(
      try NSKeyedUnarchiver.unarchivedObject(ofClass: NSFetchRequest<any NSFetchRequestResult>.self, from: data))
    let titles = try stack.context.performAndWait {
      try stack.context.fetch(copy).compactMap { ($0 as? NSManagedObject)?.value(forKey: "title") as? String }
    }
    #expect(titles == ["banana", "avocado"])
  }

  @Test("An archive without an entity name gives nil and an error, not a request")
  func malformed() throws {
    let request = NSFetchRequest<any NSFetchRequestResult>(entityName: "KeptNote")
    let broken = try tamperedArchive(of: request, replacing: [("<key>NSEntityName</key>", "<key>Other</key>")])
    #expect(throws: (any Error).self) {
      _ = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSFetchRequest<any NSFetchRequestResult>.self, from: broken)
    }
  }
}
