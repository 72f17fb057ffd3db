// A wrong attempt at exercise 09, kept so that CI proves the checks name the mistake: the priority becomes a
// number the way updatedAt became modifiedAt, by a rename: priorityLevel, an Integer 16, with the renaming
// identifier "priority", and the old text attribute gone. A type change cannot be inferred, so no store
// written by version 1 opens.
import ExerciseKit
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
  let modifiedAt = NSAttributeDescription(name: "modifiedAt", type: .date)
  modifiedAt.renamingIdentifier = "updatedAt"
  let priorityLevel = NSAttributeDescription(name: "priorityLevel", type: .integer16)
  priorityLevel.renamingIdentifier = "priority"
  let note = NSEntityDescription(
    name: "Note",
    properties: [
      NSAttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: ""),
      NSAttributeDescription(name: "body", type: .string, isOptional: false, defaultValue: ""),
      modifiedAt,
      NSAttributeDescription(name: "wordCount", type: .integer32, isOptional: false, defaultValue: Int32(0)),
      priorityLevel,
      NSRelationshipDescription(name: "notebook", destination: "Notebook", inverse: "notes"),
      NSRelationshipDescription(name: "attachments", destination: "Attachment", inverse: "note", toMany: true),
    ])
  let attachment = NSEntityDescription(
    name: "Attachment",
    properties: [
      NSAttributeDescription(name: "fileName", type: .string),
      NSRelationshipDescription(name: "note", destination: "Note", inverse: "attachments"),
    ])
  return try NSManagedObjectModel(entities: [notebook, note, attachment])
}
