// A wrong attempt at exercise 09, kept so that CI proves the checks name the mistake: wordCount is required,
// as the task says, but has no default value, so the rows version 1 wrote have no value for it: the migration
// is refused (134110), and no store written by version 1 opens.
import ExerciseKit
import Foundation
import ObjectGraph

/// Version 2 of the app's model: the changes the README lists, made so that a store written by version 1
/// migrates on open, by inferred (lightweight) migration, with every value the user wrote kept.
public func makeVersion2() throws -> NSManagedObjectModel {
  let notebook = entity("Notebook")
  let note = entity("Note")
  let attachment = entity("Attachment")

  let notes = relationship("notes", to: note, toMany: true)
  let notebookOfNote = relationship("notebook", to: notebook)
  makeInverses(notes, notebookOfNote)
  let attachments = relationship("attachments", to: attachment, toMany: true, deleteRule: .cascadeDeleteRule)
  let noteOfAttachment = relationship("note", to: note)
  makeInverses(attachments, noteOfAttachment)

  let modifiedAt = attribute("modifiedAt", .date)
  modifiedAt.renamingIdentifier = "updatedAt"

  notebook.properties = [
    attribute("name", .string, isOptional: false, defaultValue: ""),
    notes,
  ]
  note.properties = [
    attribute("title", .string, isOptional: false, defaultValue: ""),
    attribute("body", .string, isOptional: false, defaultValue: ""),
    modifiedAt,
    attribute("wordCount", .integer32, isOptional: false),
    attribute("priority", .string),
    attribute("priorityLevel", .integer16),
    notebookOfNote,
    attachments,
  ]
  attachment.properties = [
    attribute("fileName", .string, isOptional: false, defaultValue: ""),
    noteOfAttachment,
  ]

  let model = NSManagedObjectModel()
  model.entities = [notebook, note, attachment]
  return model
}
