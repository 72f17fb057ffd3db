// Reference solution of exercise 09: what can be inferred.
import Foundation
import ObjectGraph

/// Version 2 of the app's model: the changes the README lists, made so that a store written by version 1
/// migrates on open, by inferred (lightweight) migration, with every value the user wrote kept.
public func makeVersion2() throws -> NSManagedObjectModel {
  let notebook = NSEntityDescription(
    name: "Notebook",
    properties: [
      NSAttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: ""),
      NSRelationshipDescription(name: "notes", destination: "Note", inverse: "notebook", toMany: true),
    ])

  // 1. A rename keeps its values only when the new version says what the old name was. Without the renaming
  //    identifier, the migration sees an attribute removed and another added: it succeeds, and every date is
  //    gone.
  let modifiedAt = NSAttributeDescription(name: "modifiedAt", type: .date)
  modifiedAt.renamingIdentifier = "updatedAt"

  // 2. and 3. A required attribute needs a value in every existing row: the default gives it one. Without
  //    it, notes that have no value make the migration fail (134110), before anything is written.
  let wordCount = NSAttributeDescription(name: "wordCount", type: .integer32, isOptional: false, defaultValue: Int32(0))
  let body = NSAttributeDescription(name: "body", type: .string, isOptional: false, defaultValue: "")

  // 5. A type change cannot be inferred (134140), not even through a renaming identifier: the number is a new
  //    attribute next to the old text, which keeps its values until the app has converted them.
  let priorityLevel = NSAttributeDescription(name: "priorityLevel", type: .integer16)

  let note = NSEntityDescription(
    name: "Note",
    properties: [
      NSAttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: ""),
      body,
      modifiedAt,
      wordCount,
      NSAttributeDescription(name: "priority", type: .string),
      priorityLevel,
      NSRelationshipDescription(name: "notebook", destination: "Notebook", inverse: "notes"),

      NSRelationshipDescription(
        name: "attachments", destination: "Attachment", inverse: "note", toMany: true, deleteRule: .cascadeDeleteRule),
    ])

  // 4. A new entity, and relationships to it, are inferred as they are: an empty table, empty links.
  let attachment = NSEntityDescription(
    name: "Attachment",
    properties: [
      NSAttributeDescription(name: "fileName", type: .string, isOptional: false, defaultValue: ""),
      NSRelationshipDescription(name: "note", destination: "Note", inverse: "attachments"),
    ])

  return try NSManagedObjectModel(entities: [notebook, note, attachment])
}
