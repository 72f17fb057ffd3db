// stage3-demo --custom-stage: the change inference refuses (a note's priority, text in version 1, a number
// later) made by a staged migration. A custom stage takes the store from version 1 to a version 2 that
// has both attributes, and its did-migrate handler fills the number from the text; a lightweight stage
// then takes it to version 3, which keeps the number only. The same migration is then tried on a store
// holding a priority the handler cannot read, and refused with the file left as it was.

import DemoSupport
import Foundation
import ObjectGraph

/// The priority levels the handler knows, from the text version 1 keeps.
let priorityLevels: [String: Int64] = ["low": 1, "normal": 2, "high": 3]

/// Version 2: version 1 with `priorityLevel`, a number, beside the text. Version 3: the text gone.
let withPriorityLevel = notesModel { $0.append(attribute("priorityLevel", .integer64)) }
let priorityAsNumber = notesModel {
  $0.remove(at: 3); $0.append(attribute("priorityLevel", .integer64))
}

/// The stages from version 1 to version 3; the handlers print what they see and do.
func priorityStages(from version1: NSManagedObjectModel) -> NSStagedMigrationManager {
  let custom = NSCustomMigrationStage(
    migratingFrom: NSManagedObjectModelReference(model: version1, versionChecksum: version1.versionChecksum),
    to: NSManagedObjectModelReference(model: withPriorityLevel, versionChecksum: withPriorityLevel.versionChecksum))
  custom.label = "version 1 to 2: adds priorityLevel, filled from the text"
  custom.willMigrateHandler = { manager, _ in
    guard let container = manager.container else { throw DemoFailure("the manager has no container in a handler") }
    let context = container.newBackgroundContext()
    let count = try context.performAndWait { try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Note")) }
    print("  willMigrateHandler: the store is still at version 1, with \(count) notes")
  }
  custom.didMigrateHandler = { manager, _ in
    guard let container = manager.container else { throw DemoFailure("the manager has no container in a handler") }
    let context = container.newBackgroundContext()
    try context.performAndWait {
      let notes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
      for note in notes {
        let text = note.value(forKey: "priority") as? String ?? ""
        guard let level = priorityLevels[text] else {
          // The handler's error fails the store's load as it is: say what is wrong in it.
          let title = note.value(forKey: "title") as? String ?? "?"
          throw NSError(
            domain: "NotesMigration", code: 1,
            userInfo: [NSLocalizedDescriptionKey: "\(title) has the priority \"\(text)\", which is not low, normal or high"])
        }
        note.setValue(level, forKey: "priorityLevel")
      }
      try context.save()
      print("  didMigrateHandler: the store is at version 2; priorityLevel set on \(notes.count) notes")
    }
  }
  let lightweight = NSLightweightMigrationStage([withPriorityLevel.versionChecksum, priorityAsNumber.versionChecksum])
  lightweight.label = "version 2 to 3: the text goes"
  return NSStagedMigrationManager([custom, lightweight])
}

/// Writes a version 1 store with `priorities` in `folder`, opens it with version 3 through a container whose
/// store description carries the stages, and prints the notes or the error.
func migrateInStages(_ storeURL: URL, priorities: [String]) throws {
  let version1 = notesModel()
  try writeVersion1(of: version1, to: storeURL, priorities: priorities)
  let before = try Data(contentsOf: storeURL)
  let container = NSPersistentContainer(name: "Notes", managedObjectModel: priorityAsNumber)
  let description = NSPersistentStoreDescription(url: storeURL)
  description.setOption(priorityStages(from: version1), forKey: NSPersistentStoreStagedMigrationManagerOptionKey)
  container.persistentStoreDescriptions = [description]
  var failure: NSError?
  container.loadPersistentStores { _, error in failure = error as NSError? }
  if let failure {
    let untouched = (try? Data(contentsOf: storeURL)) == before
    print("  refused: error \(failure.code): \(failure.localizedDescription)")
    print("  the store file is \(untouched ? "byte for byte as it was" : "CHANGED")")
    return
  }
  let context = container.newBackgroundContext()
  let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
  request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
  let notes = try context.performAndWait {
    try context.fetch(request).map { note in
      "\(note.value(forKey: "title") ?? "?") (priorityLevel: \(note.value(forKey: "priorityLevel") ?? "nil"))"
    }
  }
  print("  loaded with version 3: \(notes.joined(separator: "; "))")
  let keys = priorityAsNumber.entitiesByName["Note"]?.attributesByName.keys.sorted() ?? []
  print("  version 3's attributes: \(keys.joined(separator: ", "))")
}

/// The tour: the migration on a store it can read, then on one with a priority the handler does not know.
func customStage(in folder: URL) throws {
  print("A staged migration: priority, text in version 1, becomes a number")
  print("Stages: 1. custom, version 1 to 2 (adds priorityLevel; its didMigrateHandler fills it from the text)")
  print("        2. lightweight, version 2 to 3 (drops the text)")
  print("A store of 3 notes, priorities high, low, normal:")
  try migrateInStages(folder.appendingPathComponent("Staged.sqlite"), priorities: ["high", "low", "normal"])
  print("The same on a store whose second note's priority is \"someday\":")
  try migrateInStages(folder.appendingPathComponent("Refused.sqlite"), priorities: ["high", "someday", "normal"])
}
