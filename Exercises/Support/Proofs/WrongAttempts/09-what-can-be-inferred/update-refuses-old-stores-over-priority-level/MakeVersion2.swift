// A wrong attempt at exercise 09, kept so that CI proves the checks name the mistake: the old text priority
// stays, and the new priorityLevel is given the renaming identifier "priority", in the hope that the
// migration copies (and converts) the values into it. It cannot turn text into a number.
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
  // The number takes its values from the text, the way modifiedAt takes them from updatedAt.
  let priorityLevel = attribute("priorityLevel", .integer16)
  priorityLevel.renamingIdentifier = "priority"

  notebook.properties = [
    attribute("name", .string, isOptional: false, defaultValue: ""),
    notes,
  ]
  note.properties = [
    attribute("title", .string, isOptional: false, defaultValue: ""),
    attribute("body", .string, isOptional: false, defaultValue: ""),
    modifiedAt,
    attribute("wordCount", .integer32, isOptional: false, defaultValue: Int32(0)),
    attribute("priority", .string),
    priorityLevel,
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
