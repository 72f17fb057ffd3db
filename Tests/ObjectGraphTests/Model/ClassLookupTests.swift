import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

// A class only these tests name, and never register: it is found by the model's class name alone.
final class LookupGadget: NSManagedObject {}

// A class that is not an NSManagedObject: a model naming it must not take it.
final class NotAnEntity {}

// The same name as EngineTestSupport's LookupTwin: a bare class name two modules declare.
final class LookupTwin: NSManagedObject {}

/// An entity finds its class by the model's `representedClassName` with no registration call, as Core
/// Data finds it through the Objective-C runtime: a bare name, Xcode's `.Name` and `Module.Name`.
@Suite("Class lookup by name", .temporaryFolders)
struct ClassLookupTests {
  /// Writes an Xcode model, `Lookup.xcdatamodel`, with one entity per `(entity, class name)`, each with an
  /// optional string `name`, and loads it.
  private func loadModel(in folder: TemporaryFolder, _ entities: [(String, String)]) throws -> NSManagedObjectModel {
    let model = folder.appending("Lookup.xcdatamodel")
    try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
    let body = entities.map { entity, className in
      """
      <entity name="\(entity)" representedClassName="\(className)" syncable="YES">
        <attribute name="name" optional="YES" attributeType="String"/>
      </entity>
      """
    }
    let xml = """
      <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
      <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
      \(body.joined(separator: "\n"))
      </model>
      """
    try Data(xml.utf8).write(to: model.appendingPathComponent("contents"))
    return try #require(NSManagedObjectModel(contentsOf: model))
  }

  @Test("Bare, leading-dot and module-qualified class names find an unregistered class; objects inserted and fetched are of it")
  func unregisteredClassByName() throws {
    let folder = try TemporaryFolder()
    let model = try loadModel(
      in: folder,
      [
        ("BareGadget", "LookupGadget"), ("DotGadget", ".LookupGadget"),
        ("QualifiedGadget", "ObjectGraphTests.LookupGadget"),
      ])
    let entities = ["BareGadget", "DotGadget", "QualifiedGadget"]
    for name in entities {
      #expect(model.entitiesByName[name]?.managedObjectClass == LookupGadget.self, "entity \(name)")
    }
    let stack = try StoreStack(model: model, folder: folder, fileName: "Lookup.sqlite")
    let context = stack.context
    try context.performAndWait {
      for name in entities {
        let object = NSEntityDescription.insertNewObject(forEntityName: name, into: context)
        #expect(object is LookupGadget, "entity \(name)")
        object.setValue(name, forKey: "name")
      }
      try context.save()
    }
    let reader = stack.freshContext()
    try reader.performAndWait {
      for name in entities {
        let fetched = try reader.fetch(NSFetchRequest<LookupGadget>(entityName: name))
        #expect(fetched.map { $0.value(forKey: "name") as? String } == [name])
      }
    }
  }

  @Test("An unknown class name and a class that is no NSManagedObject make plain NSManagedObjects")
  func notFound() throws {
    let folder = try TemporaryFolder()
    let model = try loadModel(
      in: folder,
      [("Unknown", "NoSuchLookupClass"), ("Plain", "NotAnEntity"), ("WrongModule", "NoSuchModule.LookupGadget")])
    for name in ["Unknown", "Plain", "WrongModule"] {
      #expect(model.entitiesByName[name]?.managedObjectClass == NSManagedObject.self, "entity \(name)")
    }
    let context = try StoreStack(model: model, at: nil).context
    try context.performAndWait {
      let object = NSEntityDescription.insertNewObject(forEntityName: "Plain", into: context)
      #expect(type(of: object) == NSManagedObject.self)
      object.setValue("plain", forKey: "name")
      try context.save()
    }
  }

  @Test("The lookup lists top-level classes only: a nested class of the same name is not a candidate")
  func topLevelOnly() {
    // EdgeCaseTests.swift declares a top-level Gauge, ManagedReadTests a Gauge nested in its suite.
    #expect(NSManagedObjectModel.entityClasses(bareName: "Gauge").map(\.name) == ["ObjectGraphTests.Gauge"])
    #expect(NSManagedObjectModel.entityClasses(bareName: "NotAnEntity").isEmpty)
    #expect(SwiftClassLookup.qualifiedNames(forBareName: "NotAnEntity") == ["ObjectGraphTests.NotAnEntity"])
  }

  @Test("A name several modules declare: the module of the model's resource bundle wins, else the first by name, a guess")
  func severalModules() throws {
    // Note is declared by the tests and by the tutorial's NotesModel, both loaded in the test process.
    let found = NSManagedObjectModel.entityClasses(bareName: "Note")
    try #require(found.map(\.name).contains("NotesModel.Note") && found.map(\.name).contains("ObjectGraphTests.Note"))
    #expect(found.map(\.name) == found.map(\.name).sorted())

    let inNotesModel = URL(fileURLWithPath: "/x/CoreDataStackWorkshop_NotesModel.resources/DataModel.xcdatamodeld")
    let fromBundle = NSManagedObjectModel.choose(among: found, modelURL: inNotesModel)
    #expect(fromBundle?.name == "NotesModel.Note" && fromBundle?.isGuess == false)

    let inTests = URL(fileURLWithPath: "/x/My-Package_ObjectGraphTests.bundle/Contents/Resources/M.momd")
    let fromTests = NSManagedObjectModel.choose(among: found, modelURL: inTests)
    #expect(fromTests?.name == "ObjectGraphTests.Note" && fromTests?.isGuess == false)

    let guess = NSManagedObjectModel.choose(among: found, modelURL: URL(fileURLWithPath: "/tmp/Lookup.xcdatamodel"))
    #expect(guess?.name == found.first?.name && guess?.isGuess == true)
    #expect(NSManagedObjectModel.choose(among: [], modelURL: nil) == nil)
  }

  @Test("A model outside any bundle whose bare class name two modules declare takes the first by name, and warns once")
  func severalModulesWarning() throws {
    let folder = try TemporaryFolder()
    let model = try loadModel(in: folder, [("Twin", "LookupTwin"), ("OtherTwin", ".LookupTwin")])
    var classes: [NSManagedObject.Type] = []
    let lines = ErrorLog.capturing {
      classes = ["Twin", "OtherTwin", "Twin"].compactMap { model.entitiesByName[$0]?.managedObjectClass }
    }
    #expect(classes.count == 3 && classes.allSatisfy { $0 == EngineTestSupport.LookupTwin.self })
    #expect(
      lines == [
        "ObjectGraph: warning: entity Twin's class name LookupTwin names a class in 2 modules (EngineTestSupport.LookupTwin, ObjectGraphTests.LookupTwin); its objects are made as EngineTestSupport.LookupTwin, the first by name. Write the module in the model's class name (EngineTestSupport.LookupTwin), or register the class (NSManagedObjectModel.register(_:forEntityName:))."
      ])
  }

  @Test("An explicit registration still wins over the class found by name")
  func registrationWins() throws {
    let folder = try TemporaryFolder()
    let model = try loadModel(in: folder, [("RegisteredOver", "LookupGadget")])
    let entity = try #require(model.entitiesByName["RegisteredOver"])
    #expect(entity.managedObjectClass == LookupGadget.self)
    NSManagedObjectModel.register(RegistryGizmo.self, forEntityName: "RegisteredOver")
    #expect(entity.managedObjectClass == RegistryGizmo.self)
  }
}
