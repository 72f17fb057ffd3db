import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Core Data spellings ported code uses: an object's subscript, configurations set in code, the older
/// `contentsOfURL:` initialisers.
@Suite("Core Data spellings: subscript, setEntities(_:forConfigurationName:), contentsOfURL", .temporaryFolders)
struct CoreDataSpellingsTests {
  @Test("object[key] reads and sets as value(forKey:) and setValue(_:forKey:) do, relationships included")
  func subscriptByKey() throws {
    let stack = try StoreStack(model: try Models.notes(), type: .inMemory)
    try stack.context.performAndWait {
      let notebook = Notebook(context: stack.context)
      let note = Note(context: stack.context)
      note["title"] = "Milk"
      note["rating"] = 3
      note["notebook"] = notebook
      #expect(note.title == "Milk" && note.rating == 3 && note.notebook === notebook)
      #expect(note["title"] as? String == "Milk")
      #expect((notebook["notes"] as? Set<NSManagedObject>)?.contains(note) == true)
      note["body"] = nil
      #expect(note["body"] == nil)
      try stack.context.save()
    }
  }

  @Test("a model built in code gets configurations; stores added with them hold their entities only")
  func configurationsInCode() throws {
    let model = try Models.notes()
    let entities = model.entities
    let notes = entities.filter {
      ["Notebook", "Note", "Tag", "Attachment", "ImageAttachment", "FileAttachment", "Lock"].contains($0.entityName)
    }
    model.setEntities(notes, forConfigurationName: "Local")
    model.setEntities([], forConfigurationName: "Empty")
    #expect(model.configurations == ["Empty", "Local"])
    #expect(Set(model.entities(forConfigurationName: "Local")?.map(\.entityName) ?? []) == Set(notes.map(\.entityName)))
    #expect(model.entities(forConfigurationName: "Empty")?.isEmpty == true)
    // Setting again replaces.
    model.setEntities(notes, forConfigurationName: "Empty")
    #expect(model.entities(forConfigurationName: "Empty")?.count == notes.count)

    let folder = try TemporaryFolder()
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    let store = try coordinator.addPersistentStore(type: .sqlite, configuration: "Local", at: folder.appending("Local.sqlite"))
    #expect(store.configurationName == "Local")
  }

  @Test("init(contentsOfURL:) loads what init(contentsOf:) loads, and is nil where it is")
  func contentsOfURL() throws {
    let url = try Fixtures.folder().appendingPathComponent("alemar11__CoreDataPlus__SampleModel.xcdatamodeld")
    let older = try #require(NSManagedObjectModel(contentsOfURL: url))
    let newer = try #require(NSManagedObjectModel(contentsOf: url))
    #expect(older.entities.map(\.entityName).sorted() == newer.entities.map(\.entityName).sorted())
    #expect(NSManagedObjectModel(contentsOfURL: URL(fileURLWithPath: "/nonexistent/Model.xcdatamodeld")) == nil)
    #expect(NSMappingModel(contentsOfURL: URL(fileURLWithPath: "/nonexistent/Map.cdm")) == nil)
  }

  @Test("localizationDictionary: validation messages name the entity and property by their localized names, warnings localized")
  func localizationDictionary() throws {
    let title = NSAttributeDescription(name: "title", type: .string)
    title.maxValue = 3
    let body = NSAttributeDescription(name: "body", type: .string)
    body.setValidationPredicates([NSPredicate(format: "SELF BEGINSWITH 'a'")], withValidationWarnings: ["Starts wrong"])
    let memo = NSEntityDescription(name: "Memo", properties: [.attribute(title), .attribute(body)])
    let model = try NSManagedObjectModel(entities: [memo])
    #expect(model.localizationDictionary == nil)
    model.localizationDictionary = [
      "Entity/Memo": "Mémo", "Property/title/Entity/Memo": "Titre", "Property/body": "Texte",
      "ErrorString/Starts wrong": "Commence mal",
    ]
    #expect(model.localizationDictionary?["Entity/Memo"] == "Mémo")
    let stack = try StoreStack(model: model, type: .inMemory)
    stack.context.performAndWait {
      let object = NSManagedObject(entity: stack.entity("Memo"), insertInto: stack.context)
      object.setValue("toolong", forKey: "title")
      let tooLong = expectCode(.validationStringTooLong) { try stack.context.save() }
      #expect(tooLong?.message.hasPrefix("Mémo.Titre is 7 character(s) long") == true)
      object.setValue("ok", forKey: "title")
      object.setValue("zebra", forKey: "body")
      let warned = expectCode(.managedObjectValidation) { try stack.context.save() }
      #expect(warned?.message == "Commence mal")
      object.setValue("apple", forKey: "body")
      #expect(throws: Never.self) { try stack.context.save() }
    }
  }

  @Test("NSCoreDataVersionNumber is above every version Apple named")
  func versionNumber() {
    // NSCoreDataVersionNumber_iPhoneOS_9_3 and NSCoreDataVersionNumber10_11_3, Apple's last named versions,
    // are below 700.
    #expect(NSCoreDataVersionNumber >= 700)
  }
}
