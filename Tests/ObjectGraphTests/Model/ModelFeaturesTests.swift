import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Fetch request templates, merged models and validation predicates: the model features Core Data has
/// beyond entities.
@Suite("Model features: templates, merging, validation predicates", .temporaryFolders)
struct ModelFeaturesTests {
  // MARK: - Fetch request templates

  @Test("a template set in code makes requests with its variables filled in, and fetches them")
  func templateSetInCode() throws {
    let model = try Models.notes()
    let byTitle = NSFetchRequest<any NSFetchRequestResult>(entityName: "Note")
    byTitle.predicate = NSPredicate(format: "title == $title AND rating >= $minimum")
    byTitle.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: false)]
    byTitle.fetchLimit = 5
    byTitle.fetchOffset = 1
    model.setFetchRequestTemplate(byTitle, forName: "byTitle")
    // The model keeps a copy: changing the request afterwards changes nothing.
    byTitle.fetchLimit = 99

    #expect(model.fetchRequestTemplatesByName.keys.sorted() == ["byTitle"])
    let stored = try #require(model.fetchRequestTemplate(forName: "byTitle"))
    #expect(stored.entityName == "Note")
    #expect(stored.fetchLimit == 5 && stored.fetchOffset == 1)
    #expect(stored.sortDescriptors?.first?.key == "rating" && stored.sortDescriptors?.first?.ascending == false)
    #expect(model.fetchRequestTemplate(forName: "nothing") == nil)
    #expect(model.fetchRequestFromTemplate(withName: "nothing", substitutionVariables: [:]) == nil)

    let stack = try StoreStack(model: model)
    try stack.context.performAndWait {
      for (title, rating) in [("a", 1), ("a", 5), ("a", 9), ("a", 7), ("b", 9)] {
        let note = Note(context: stack.context)
        note.title = title
        note.rating = Int64(rating)
      }
      try stack.context.save()
      let request = try #require(
        model.fetchRequestFromTemplate(withName: "byTitle", substitutionVariables: ["title": "a", "minimum": 5]))
      let notes = try #require(try stack.context.fetch(request) as? [Note])
      // 9, 7, 5 by rating descending, the first skipped.
      #expect(notes.map(\.rating) == [7, 5])
      // The template is unchanged: filled in again with other values.
      let other = try #require(
        model.fetchRequestFromTemplate(withName: "byTitle", substitutionVariables: ["title": "b", "minimum": 0]))
      other.fetchOffset = 0
      #expect((try stack.context.fetch(other) as? [Note])?.map(\.title) == ["b"])
    }
  }

  @Test("a variable left without a value: the request's fetch throws, naming it")
  func missingVariable() throws {
    let model = try Models.notes()
    let byTitle = NSFetchRequest<Note>(entityName: "Note")
    byTitle.predicate = NSPredicate(format: "title == $title")
    model.setFetchRequestTemplate(byTitle, forName: "byTitle")
    let request = try #require(model.fetchRequestFromTemplate(withName: "byTitle", substitutionVariables: ["other": 1]))
    #expect(request.predicate?.formatError?.contains("$title") == true)
    let stack = try StoreStack(model: model)
    stack.context.performAndWait {
      #expect(throws: ObjectGraphError.self) { try stack.context.fetch(request) }
      // The template as it is, without its variables, cannot be fetched either.
      if let raw = model.fetchRequestTemplate(forName: "byTitle") {
        #expect(throws: ObjectGraphError.self) { try stack.context.fetch(raw) }
      }
    }
  }

  @Test("setting nil removes a template; a model in use refuses changes")
  func removeAndFrozen() throws {
    let model = try Models.notes()
    model.setFetchRequestTemplate(NSFetchRequest<Note>(entityName: "Note"), forName: "all")
    model.setFetchRequestTemplate(NSFetchRequest<Tag>(entityName: "Tag"), forName: "tags")
    model.setFetchRequestTemplate(nil, forName: "all")
    #expect(model.fetchRequestTemplates.map(\.name) == ["tags"])
    #expect(model.fetchRequestTemplate(forName: "tags")?.entityName == "Tag")
    _ = try StoreStack(model: model)
    #expect(model.isFrozen)
    // Changing it now stops the program, as Core Data raises: proven in a child process.
    #expect(model.fetchRequestTemplate(forName: "tags") != nil)
  }

  @Test("a frozen model's template cannot be set (the program stops, as Core Data raises)")
  func frozenModelRefusesTemplate() async {
    await #expect(processExitsWith: .failure) {
      let model = try Models.notes()
      _ = try StoreStack(model: model)
      model.setFetchRequestTemplate(NSFetchRequest<Note>(entityName: "Note"), forName: "late")
    }
  }

  @Test("templates read from Xcode models fill in their variables and keep Xcode's flags", .needsFixtures)
  func templatesFromXcode() throws {
    let test = try NSManagedObjectModel(
      loadingContentsOf: Fixtures.folder().appendingPathComponent("rentzsch__mogenerator__test.xcdatamodel"))
    let request = try #require(
      test.fetchRequestFromTemplate(withName: "byHumanName", substitutionVariables: ["humanName": "Ada"]))
    #expect(request.entityName == "Human")
    #expect(request.predicate?.formatError == nil)
    #expect(request.predicate.map { FetchPredicate.format(of: $0) } == #"humanName == "Ada""#)
    #expect(test.fetchRequestTemplate(forName: "allHumans")?.predicate == nil)

    let contacts = try NSManagedObjectModel(
      loadingContentsOf: Fixtures.folder().appendingPathComponent("ZeeQL__ZeeQL3__Contacts.xcdatamodel"))
    let ducks = try #require(contacts.fetchRequestTemplate(forName: "fetchTheDucks"))
    #expect(ducks.fetchLimit == 220 && ducks.fetchBatchSize == 20 && ducks.returnsDistinctResults)
    #expect(ducks.includesSubentities && ducks.returnsObjectsAsFaults)
  }

  @Test("templates are written with the model and read back")
  func templatesWrittenBack() throws {
    let model = try Models.notes()
    let request = NSFetchRequest<Note>(entityName: "Note")
    request.predicate = NSPredicate(format: "rating > $minimum")
    request.fetchLimit = 3
    request.returnsObjectsAsFaults = false
    request.returnsDistinctResults = true
    model.setFetchRequestTemplate(request, forName: "rated")
    let copy = try NSManagedObjectModel.fromXcodeContents(XcodeModelWriter.contents(of: model), origin: "test")
    let read = try #require(copy.fetchRequestFromTemplate(withName: "rated", substitutionVariables: ["minimum": 2]))
    #expect(read.entityName == "Note")
    #expect(read.predicate.map { FetchPredicate.format(of: $0) } == "rating > 2")
    #expect(read.fetchLimit == 3 && !read.returnsObjectsAsFaults && read.returnsDistinctResults)
  }

  // MARK: - Merged models

  /// A model of one entity `name`, with the attributes named.
  private static func model(_ name: String, _ attributes: [String]) throws -> NSManagedObjectModel {
    try NSManagedObjectModel(entities: [
      NSEntityDescription(name: name, properties: attributes.map { .attribute(NSAttributeDescription(name: $0, type: .string)) })
    ])
  }

  @Test("merging models: every entity once, in copies; the originals unchanged and usable")
  func mergeModels() throws {
    let authors = try Self.model("Author", ["name"])
    authors.setFetchRequestTemplate(NSFetchRequest<NSManagedObject>(entityName: "Author"), forName: "allAuthors")
    let books = try Self.model("Book", ["title"])
    _ = try StoreStack(model: books)  // in use: merging still works, from a copy
    let merged = try #require(NSManagedObjectModel(byMerging: [authors, books, authors]))
    #expect(merged.entities.map(\.entityName) == ["Author", "Book"])
    #expect(merged.entitiesByName["Author"] !== authors.entitiesByName["Author"])
    #expect(merged.entityVersionHashesByName["Book"] == books.entityVersionHashesByName["Book"])
    #expect(merged.fetchRequestTemplate(forName: "allAuthors")?.entityName == "Author")
    #expect(authors.entities.count == 1 && !authors.isFrozen)
    #expect(NSManagedObjectModel(byMergingModels: nil)?.entities.isEmpty == true)

    let stack = try StoreStack(model: merged)
    try stack.context.performAndWait {
      NSEntityDescription.insertNewObject(forEntityName: "Author", into: stack.context).setValue("Le Guin", forKey: "name")
      NSEntityDescription.insertNewObject(forEntityName: "Book", into: stack.context).setValue("Earthsea", forKey: "title")
      try stack.context.save()
      #expect(try stack.context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Book")) == 1)
    }
  }

  @Test("two different entities of one name: no merged model")
  func mergeConflict() throws {
    let one = try Self.model("Author", ["name"])
    let other = try Self.model("Author", ["name", "born"])
    #expect(NSManagedObjectModel(byMerging: [one, other]) == nil)
    let first = try Self.model("A", [])
    first.setFetchRequestTemplate(NSFetchRequest<NSManagedObject>(entityName: "A"), forName: "all")
    let second = try Self.model("B", [])
    second.setFetchRequestTemplate(NSFetchRequest<NSManagedObject>(entityName: "B"), forName: "all")
    #expect(NSManagedObjectModel(byMerging: [first, second]) == nil)
  }

  /// A folder holding each model as an `.xcdatamodel`, read as a bundle.
  private static func bundle(_ models: [String: NSManagedObjectModel]) throws -> Bundle {
    let folder = try TemporaryFolder().appending("Models.bundle")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for (name, model) in models {
      let version = folder.appendingPathComponent("\(name).xcdatamodel")
      try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
      try XcodeModelWriter.contents(of: model).write(to: version.appendingPathComponent("contents"))
    }
    return try #require(Bundle(url: folder))
  }

  @Test("merged models from bundles, and for a store's metadata")
  func mergedFromBundles() throws {
    let bundle = try Self.bundle(["Authors": try Self.model("Author", ["name"]), "Books": try Self.model("Book", ["title"])])
    let merged = try #require(NSManagedObjectModel.mergedModel(from: [bundle]))
    #expect(merged.entities.map(\.entityName).sorted() == ["Author", "Book"])

    let metadata: [String: Any] = [NSStoreModelVersionHashesKey: merged.entityVersionHashesByName]
    let forStore = try #require(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: metadata))
    #expect(forStore.entityVersionHashesByName == merged.entityVersionHashesByName)

    // A store made with another version of Author: no model in the bundle matches it.
    let older = try Self.model("Author", ["name", "born"])
    var stale = merged.entityVersionHashesByName
    stale["Author"] = older.entityVersionHashesByName["Author"]
    #expect(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: [NSStoreModelVersionHashesKey: stale]) == nil)
    // A store with only Author's entity matches the Authors model alone.
    let onlyAuthors: [String: Any] = [NSStoreModelVersionHashesKey: ["Author": merged.entityVersionHashesByName["Author"]!]]
    #expect(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: onlyAuthors)?.entities.map(\.entityName) == ["Author"])
    #expect(NSManagedObjectModel.mergedModel(from: [bundle], forStoreMetadata: [:]) == nil)

    let conflicting = try Self.bundle(["One": try Self.model("Author", ["name"]), "Two": try Self.model("Author", ["born"])])
    #expect(NSManagedObjectModel.mergedModel(from: [conflicting]) == nil)
    #expect(NSManagedObjectModel.mergedModel(from: [try Self.bundle([:])]) == nil)
  }

  // MARK: - Validation predicates

  /// A model of one entity `Entry` with a `code` string and a `count`, each with validation predicates.
  private static func validatedModel() throws -> NSManagedObjectModel {
    let code = NSAttributeDescription(name: "code", type: .string)
    code.setValidationPredicates(
      [NSPredicate(format: "SELF BEGINSWITH 'A'"), NSPredicate(format: "NOT SELF CONTAINS '!'")],
      withValidationWarnings: ["A code starts with A.", "A code has no '!'."])
    let count = NSAttributeDescription(name: "count", type: .integer64, isOptional: false, defaultValue: Int64(1))
    count.setValidationPredicates([NSPredicate(format: "SELF > 0")], withValidationWarnings: nil)
    return try NSManagedObjectModel(entities: [NSEntityDescription(name: "Entry", properties: [.attribute(code), .attribute(count)])])
  }

  @Test("validation predicates: kept with their warnings, evaluated on the value at save")
  func validationPredicates() throws {
    let model = try Self.validatedModel()
    let code = try #require(model.entitiesByName["Entry"]?.attributesByName["code"])
    #expect(code.validationPredicates.count == 2)
    #expect(code.validationWarnings.compactMap { $0 as? String } == ["A code starts with A.", "A code has no '!'."])
    let count = try #require(model.entitiesByName["Entry"]?.attributesByName["count"])
    #expect((count.validationWarnings.first as? String)?.contains("SELF > 0") == true)

    let stack = try StoreStack(model: model)
    try stack.context.performAndWait {
      let entry = NSEntityDescription.insertNewObject(forEntityName: "Entry", into: stack.context)
      entry.setValue("Apple", forKey: "code")
      try stack.context.save()  // passes both

      entry.setValue("Banana!", forKey: "code")
      let error = try #require(throws: ObjectGraphError.self) { try stack.context.save() }
      // Both predicates fail: 1560 holding each, with the warning as its message and the predicate in its userInfo.
      #expect(error.code == NSValidationMultipleErrorsError)
      let details = (error.userInfo[NSDetailedErrorsKey] as? [NSError]) ?? []
      #expect(details.map(\.code) == [NSManagedObjectValidationError, NSManagedObjectValidationError])
      #expect(Set(details.map(\.localizedDescription)) == ["A code starts with A.", "A code has no '!'."])
      #expect(details.allSatisfy { $0.userInfo[NSValidationPredicateErrorKey] is NSPredicate })
      #expect(details.first?.userInfo[NSValidationKeyErrorKey] as? String == "code")

      entry.setValue("Avocado!", forKey: "code")
      let one = try #require(throws: ObjectGraphError.self) { try stack.context.save() }
      #expect(one.code == NSManagedObjectValidationError && one.localizedDescription == "A code has no '!'.")
      #expect((one as Error as? CocoaError)?.validationPredicate != nil || one.userInfo[NSValidationPredicateErrorKey] != nil)

      entry.setValue("Avocado", forKey: "code")
      entry.setValue(Int64(0), forKey: "count")
      #expect(throws: ObjectGraphError.self) { try stack.context.save() }
      entry.setValue(Int64(3), forKey: "count")
      entry.setValue(nil, forKey: "code")  // optional: no value, nothing evaluated
      try stack.context.save()
    }
  }

  @Test("a validation predicate the engine cannot run fails validation, saying why")
  func unrunnableValidationPredicate() throws {
    let name = NSAttributeDescription(name: "name", type: .string)
    name.setValidationPredicates([NSPredicate(format: "SELF ==== 'x'")], withValidationWarnings: ["never"])
    let model = try NSManagedObjectModel(entities: [NSEntityDescription(name: "Thing", properties: [.attribute(name)])])
    let stack = try StoreStack(model: model)
    try stack.context.performAndWait {
      let thing = NSEntityDescription.insertNewObject(forEntityName: "Thing", into: stack.context)
      thing.setValue("x", forKey: "name")
      let error = try #require(throws: ObjectGraphError.self) { try stack.context.save() }
      #expect(error.code == NSManagedObjectValidationError)
      #expect(error.message.contains("cannot be evaluated"))
    }
    let other = NSAttributeDescription(name: "other", type: .string)
    other.setValidationPredicates([NSPredicate(format: "SELF != nil")], withValidationWarnings: ["set"])
    other.setValidationPredicates(nil, withValidationWarnings: nil)
    #expect(other.validationPredicates.isEmpty && other.validationWarnings.isEmpty)
  }
}
