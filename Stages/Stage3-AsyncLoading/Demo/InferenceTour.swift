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
  let version2: @Sendable () throws -> NSManagedObjectModel

  init(
    _ title: String, migratesAutomatically: Bool = true, version2: @escaping @Sendable () throws -> NSManagedObjectModel
  ) {
    self.title = title
    self.migratesAutomatically = migratesAutomatically
    self.version2 = version2
  }
}

/// Version 1: a note with a required title, an optional body, a date it was last changed and a priority
/// kept as text; version 2 is the same with `change` applied to its list of properties.
func notesModel(_ change: (inout [NSPropertyDescription]) -> Void = { _ in }) throws -> NSManagedObjectModel {
  var properties: [NSPropertyDescription] = [
    NSAttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: ""),
    NSAttributeDescription(name: "body", type: .string),
    NSAttributeDescription(name: "updatedAt", type: .date),
    NSAttributeDescription(name: "priority", type: .string),
  ]
  change(&properties)
  return try NSManagedObjectModel(entities: [NSEntityDescription(name: "Note", properties: properties)])
}

/// An attribute with a renaming identifier: the name it had in the model version before.
func renamed(_ attribute: NSAttributeDescription, from old: String) -> NSPropertyDescription {
  attribute.renamingIdentifier = old
  return attribute
}

let modelChanges: [ModelChange] = [
  ModelChange("add an optional attribute (subtitle)") {
    try notesModel { $0.append(NSAttributeDescription(name: "subtitle", type: .string)) }
  },
  ModelChange("add a required attribute with a default (wordCount, 0)") {
    try notesModel {
      $0.append(NSAttributeDescription(name: "wordCount", type: .integer32, isOptional: false, defaultValue: Int32(0)))
    }
  },
  ModelChange("make an optional attribute required, with a default (body, \"\")") {
    try notesModel { $0[1] = NSAttributeDescription(name: "body", type: .string, isOptional: false, defaultValue: "") }
  },
  ModelChange("rename an attribute with its renaming identifier (updatedAt to modifiedAt)") {
    try notesModel { $0[2] = renamed(NSAttributeDescription(name: "modifiedAt", type: .date), from: "updatedAt") }
  },
  ModelChange("rename an attribute without one (updatedAt to modifiedAt)") {
    try notesModel { $0[2] = NSAttributeDescription(name: "modifiedAt", type: .date) }
  },
  ModelChange("add a required attribute without a default (wordCount)") {
    try notesModel { $0.append(NSAttributeDescription(name: "wordCount", type: .integer32, isOptional: false)) }
  },
  ModelChange("change an attribute's type (priority, String to Integer 64)") {
    try notesModel { $0[3] = NSAttributeDescription(name: "priority", type: .integer64) }
  },
  ModelChange(
    "any change, with NSMigratePersistentStoresAutomaticallyOption off",
    migratesAutomatically: false
  ) {
    try notesModel { $0.append(NSAttributeDescription(name: "subtitle", type: .string)) }
  },
]

/// Tries every change on a store of its own in `folder` and prints what happened.
func whatCanBeInferred(in folder: URL) throws {
  print("What a lightweight migration can infer: each change tried on a store of 3 notes")
  for (number, change) in modelChanges.enumerated() {
    let storeURL = folder.appendingPathComponent("Change\(number + 1).sqlite")
    try writeVersion1(of: try notesModel(), to: storeURL)
    let before = try Data(contentsOf: storeURL)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try change.version2())
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

/// Writes three notes with `model` (version 1).
func writeVersion1(of model: NSManagedObjectModel, to url: URL) throws {
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
      note.setValue("high", forKey: "priority")
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
