// Exercise 09: what can be inferred.
// The task is in Exercises/09-what-can-be-inferred/README.md; hints in HINTS.md next to it.
import ExerciseKit
import Foundation
import ObjectGraph

/// Version 2 of the app's model: the changes the README lists, made so that a store written by version 1
/// migrates on open, by inferred (lightweight) migration, with every value the user wrote kept.
public func makeVersion2() throws -> ManagedObjectModel {
  // This is version 1, as the app shipped it. Change it into version 2.
  let notebook = EntityDescription(
    name: "Notebook",
    properties: [
      .attribute(AttributeDescription(name: "name", type: .string, isOptional: false, defaultValue: "")),
      .relationship(RelationshipDescription(name: "notes", destination: "Note", inverse: "notebook", toMany: true)),
    ])
  let note = EntityDescription(
    name: "Note",
    properties: [
      .attribute(AttributeDescription(name: "title", type: .string, isOptional: false, defaultValue: "")),
      .attribute(AttributeDescription(name: "body", type: .string)),
      .attribute(AttributeDescription(name: "updatedAt", type: .date)),
      .attribute(AttributeDescription(name: "priority", type: .string)),
      .relationship(RelationshipDescription(name: "notebook", destination: "Notebook", inverse: "notes")),
    ])

  // Version 2 ready? Replace these two lines with `return try ManagedObjectModel(entities: [notebook, note, …])`.
  _ = try ManagedObjectModel(entities: [notebook, note])
  throw ExerciseNotDone("09-what-can-be-inferred")
}
