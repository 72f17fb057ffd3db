// Reference solution of exercise 09: what can be inferred.
import Foundation
import ObjectGraph

/// Version 2 of the app's model: the changes the README lists, made so that a store written by version 1
/// migrates on open, by inferred (lightweight) migration, with every value the user wrote kept.
public func makeVersion2() throws -> NSManagedObjectModel {
  let notebook = entity("Notebook")
  let note = entity("Note")
  // 4. A new entity, and relationships to it, are inferred as they are: an empty table, empty links.
  let attachment = entity("Attachment")

  let notes = relationship("notes", to: note, toMany: true)
  let notebookOfNote = relationship("notebook", to: notebook)
  makeInverses(notes, notebookOfNote)
  let attachments = relationship("attachments", to: attachment, toMany: true, deleteRule: .cascadeDeleteRule)
  let noteOfAttachment = relationship("note", to: note)
  makeInverses(attachments, noteOfAttachment)

  // 1. A rename keeps its values only when the new version says what the old name was. Without the renaming
  //    identifier, the migration sees an attribute removed and another added: it succeeds, and every date is
  //    gone.
  let modifiedAt = attribute("modifiedAt", .date)
  modifiedAt.renamingIdentifier = "updatedAt"

  notebook.properties = [
    attribute("name", .string, isOptional: false, defaultValue: ""),
    notes,
  ]
  note.properties = [
    attribute("title", .string, isOptional: false, defaultValue: ""),
    // 2. and 3. A required attribute needs a value in every existing row: the default gives it one. Without
    //    it, notes that have no value make the migration fail (134110), before anything is written.
    attribute("body", .string, isOptional: false, defaultValue: ""),
    modifiedAt,
    attribute("wordCount", .integer32, isOptional: false, defaultValue: Int32(0)),
    // 5. A type change cannot be inferred (134140), not even through a renaming identifier: the number is a new
    //    attribute next to the old text, which keeps its values until the app has converted them.
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
