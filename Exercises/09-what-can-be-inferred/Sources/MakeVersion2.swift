// Exercise 09: what can be inferred.
// The task is in Exercises/09-what-can-be-inferred/README.md; hints in HINTS.md next to it.
import ExerciseKit
import Foundation
import ObjectGraph

/// Version 2 of the app's model: the changes the README lists, made so that a store written by version 1
/// migrates on open, by inferred (lightweight) migration, with every value the user wrote kept.
public func makeVersion2() throws -> NSManagedObjectModel {
  // This is version 1, as the app shipped it. Change it into version 2.
  // (`entity`, `attribute`, `relationship` and `makeInverses` are in ModelInCode.swift, next to this file.)
  let notebook = entity("Notebook")
  let note = entity("Note")

  let notes = relationship("notes", to: note, toMany: true)
  let notebookOfNote = relationship("notebook", to: notebook)
  makeInverses(notes, notebookOfNote)

  notebook.properties = [
    attribute("name", .string, isOptional: false, defaultValue: ""),
    notes,
  ]
  note.properties = [
    attribute("title", .string, isOptional: false, defaultValue: ""),
    attribute("body", .string),
    attribute("updatedAt", .date),
    attribute("priority", .string),
    notebookOfNote,
  ]

  let model = NSManagedObjectModel()
  model.entities = [notebook, note]
  // Version 2 ready? Replace these two lines with `return model`.
  _ = model
  throw ExerciseNotDone("09-what-can-be-inferred")
}
