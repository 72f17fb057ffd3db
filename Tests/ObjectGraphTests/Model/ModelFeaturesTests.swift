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
}
