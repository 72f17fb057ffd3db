// A wrong attempt at exercise 09, kept so that CI proves the checks name the mistake: updatedAt is renamed
// modifiedAt by name alone, with no renaming identifier. Every other change is right, the store opens, and
// the migration drops every note's date without a word.
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
  let note = NSEntityDescription(
    name: "Note",
    properties: [
      NSAttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: ""),
      NSAttributeDescription(name: "body", type: .string, isOptional: false, defaultValue: ""),
      NSAttributeDescription(name: "modifiedAt", type: .date),
      NSAttributeDescription(name: "wordCount", type: .integer32, isOptional: false, defaultValue: Int32(0)),
      NSAttributeDescription(name: "priority", type: .string),
      NSAttributeDescription(name: "priorityLevel", type: .integer16),
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
