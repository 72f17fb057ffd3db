// stage3-demo --what-can-be-inferred: each change a new model version might make, tried for real. For
// each one, a small store is written with version 1 of a notes model, then opened with a version 2 that
// makes the change; the engine migrates it or refuses, and its words are printed as they come.

import Foundation
import ObjectGraph

/// One change to try: a name, and version 2 of the model (version 1 with the change).
struct ModelChange: Sendable {
  let title: String
  /// The value of `NSMigratePersistentStoresAutomaticallyOption` the store is added with.
  let migratesAutomatically: Bool
  let version2: @Sendable () -> NSManagedObjectModel

  init(_ title: String, migratesAutomatically: Bool = true, version2: @escaping @Sendable () -> NSManagedObjectModel) {
    self.title = title
    self.migratesAutomatically = migratesAutomatically
    self.version2 = version2
  }
}

/// An attribute, made as Core Data's documentation makes one: an empty description, then its properties set.
/// `renamedFrom` is its renaming identifier: the name it had in the model version before.
func attribute(
  _ name: String, _ type: NSAttributeDescription.AttributeType, isOptional: Bool = true,
  defaultValue: (any Sendable)? = nil, renamedFrom oldName: String? = nil
) -> NSAttributeDescription {
  let attribute = NSAttributeDescription()
  attribute.name = name
  attribute.type = type
  attribute.isOptional = isOptional
  attribute.defaultValue = defaultValue
  attribute.renamingIdentifier = oldName
  return attribute
}

/// Version 1: a note with a required title, an optional body, a date it was last changed and a priority
/// kept as text; version 2 is the same with `change` applied to its list of properties.
func notesModel(_ change: (inout [NSPropertyDescription]) -> Void = { _ in }) -> NSManagedObjectModel {
  var properties: [NSPropertyDescription] = [
    attribute("title", .string, isOptional: false, defaultValue: ""),
    attribute("body", .string),
    attribute("updatedAt", .date),
    attribute("priority", .string),
  ]
  change(&properties)
  let note = NSEntityDescription()
  note.name = "Note"
  note.properties = properties
  let model = NSManagedObjectModel()
  model.entities = [note]
  return model
}

let modelChanges: [ModelChange] = [
  ModelChange("add an optional attribute (subtitle)") {
    notesModel { $0.append(attribute("subtitle", .string)) }
  },
  ModelChange("add a required attribute with a default (wordCount, 0)") {
    notesModel { $0.append(attribute("wordCount", .integer32, isOptional: false, defaultValue: Int32(0))) }
  },
  ModelChange("make an optional attribute required, with a default (body, \"\")") {
    notesModel { $0[1] = attribute("body", .string, isOptional: false, defaultValue: "") }
  },
  ModelChange("rename an attribute with its renaming identifier (updatedAt to modifiedAt)") {
    notesModel { $0[2] = attribute("modifiedAt", .date, renamedFrom: "updatedAt") }
  },
  ModelChange("rename an attribute without one (updatedAt to modifiedAt)") {
    notesModel { $0[2] = attribute("modifiedAt", .date) }
  },
  ModelChange("add a required attribute without a default (wordCount)") {
    notesModel { $0.append(attribute("wordCount", .integer32, isOptional: false)) }
  },
  ModelChange("change an attribute's type (priority, String to Integer 64)") {
    notesModel { $0[3] = attribute("priority", .integer64) }
  },
  ModelChange(
    "any change, with NSMigratePersistentStoresAutomaticallyOption off",
    migratesAutomatically: false
  ) {
    notesModel { $0.append(attribute("subtitle", .string)) }
  },
]

/// Tries every change on a store of its own in `folder` and prints what happened.
func whatCanBeInferred(in folder: URL) throws {
  print("What a lightweight migration can infer: each change tried on a store of 3 notes")
  for (number, change) in modelChanges.enumerated() {
    let storeURL = folder.appendingPathComponent("Change\(number + 1).sqlite")
    try writeVersion1(of: notesModel(), to: storeURL)
    let before = try Data(contentsOf: storeURL)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: change.version2())
    print("\(number + 1). \(change.title)")
    do {
      let options = [
        NSMigratePersistentStoresAutomaticallyOption: change.migratesAutomatically, NSInferMappingModelAutomaticallyOption: true,
      ]
      try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options)
      let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
      context.persistentStoreCoordinator = coordinator
      let notes = try context.performAndWait { try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")) }
      let values = context.performAndWait { notes.map(describe).sorted().joined(separator: "; ") }
      print("   migrated: \(values)")
    } catch let error as NSError {
      let untouched = (try? Data(contentsOf: storeURL)) == before
      print("   refused: error \(error.code): \(error.localizedDescription)")
      print("   the store file is \(untouched ? "byte for byte as it was" : "CHANGED")")
    }
  }
}

/// Writes three notes with `model` (version 1), with the given priorities.
func writeVersion1(of model: NSManagedObjectModel, to url: URL, priorities: [String] = ["high", "high", "high"]) throws {
  try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
  let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
  let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
  let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
  context.persistentStoreCoordinator = coordinator
  try context.performAndWait {
    guard let entity = model.entitiesByName["Note"] else { return }
    for (index, title) in ["Buy milk", "Call Ann", "Plan the hike"].enumerated() {
      let note = NSManagedObject(entity: entity, insertInto: context)
      note.setValue(title, forKey: "title")
      note.setValue(index == 0 ? nil : "Some text", forKey: "body")
      note.setValue(Date(timeIntervalSinceReferenceDate: 800_000_000), forKey: "updatedAt")
      note.setValue(priorities[index], forKey: "priority")
    }
    try context.save()
  }
  try coordinator.remove(store)
}

/// A note's title and the values version 2 added or renamed, as `title (key: value, …)`.
func describe(_ note: NSManagedObject) -> String {
  let shown = ["body", "subtitle", "wordCount", "modifiedAt", "priority"].compactMap { key -> String? in
    guard note.entity.propertiesByName[key] != nil else { return nil }
    switch note.value(forKey: key) {
    case nil: return "\(key): nil"
    case let date as Date: return "\(key): \(date.timeIntervalSinceReferenceDate == 800_000_000 ? "kept" : "\(date)")"
    case let text as String: return "\(key): \"\(text)\""
    case let value?: return "\(key): \(value)"
    }
  }
  return "\(note.value(forKey: "title") ?? "?") (\(shown.joined(separator: ", ")))"
}
