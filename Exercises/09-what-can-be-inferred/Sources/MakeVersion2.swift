// Exercise 09: what can be inferred.
// The task is in Exercises/09-what-can-be-inferred/README.md; hints in HINTS.md next to it.
import ExerciseKit
import Foundation
import ObjectGraph

/// Version 2 of the app's model: the changes the README lists, made so that a store written by version 1
/// migrates on open, by inferred (lightweight) migration, with every value the user wrote kept.
public func makeVersion2() throws -> NSManagedObjectModel {
  // This is version 1, as the app shipped it. Change it into version 2.
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
      NSAttributeDescription(name: "body", type: .string),
      NSAttributeDescription(name: "updatedAt", type: .date),
      NSAttributeDescription(name: "priority", type: .string),
      NSRelationshipDescription(name: "notebook", destination: "Notebook", inverse: "notes"),
    ])

  // Version 2 ready? Replace these two lines with `return try NSManagedObjectModel(entities: [notebook, note, …])`.
  _ = try NSManagedObjectModel(entities: [notebook, note])
  throw ExerciseNotDone("09-what-can-be-inferred")
}
