// A wrong attempt at exercise 09, kept so that CI proves the checks name the mistake: modifiedAt has a
// renaming identifier, but it names the attribute itself ("modifiedAt") rather than the old one
// ("updatedAt"). Every other change is right, the store opens, and the migration drops every note's date.
import ExerciseKit
import Foundation
import ObjectGraph

/// Version 2 of the app's model: the changes the README lists, made so that a store written by version 1
/// migrates on open, by inferred (lightweight) migration, with every value the user wrote kept.
public func makeVersion2() throws -> ManagedObjectModel {
  let notebook = EntityDescription(
    name: "Notebook",
    properties: [
      .attribute(AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: "")),
      .relationship(RelationshipDescription(name: "notes", destination: "Note", inverse: "notebook", toMany: true)),
    ])
  let modifiedAt = AttributeDescription(name: "modifiedAt", type: .date)
  modifiedAt.renamingIdentifier = "modifiedAt"
  let note = EntityDescription(
    name: "Note",
    properties: [
      .attribute(AttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: "")),
      .attribute(AttributeDescription(name: "body", type: .string, isOptional: false, defaultValue: "")),
      .attribute(modifiedAt),
      .attribute(AttributeDescription(name: "wordCount", type: .integer32, isOptional: false, defaultValue: Int32(0))),
      .attribute(AttributeDescription(name: "priority", type: .string)),
      .attribute(AttributeDescription(name: "priorityLevel", type: .integer16)),
      .relationship(RelationshipDescription(name: "notebook", destination: "Notebook", inverse: "notes")),
      .relationship(RelationshipDescription(name: "attachments", destination: "Attachment", inverse: "note", toMany: true)),
    ])
  let attachment = EntityDescription(
    name: "Attachment",
    properties: [
      .attribute(AttributeDescription(name: "fileName", type: .string)),
      .relationship(RelationshipDescription(name: "note", destination: "Note", inverse: "attachments")),
    ])
  return try ManagedObjectModel(entities: [notebook, note, attachment])
}
