import Foundation
import ObjectGraph

/// The tutorial's data model, `DataModel.xcdatamodeld`: notebooks holding notes (deleting a notebook
/// deletes its notes), notes with tags (many-to-many), a required title, an optional body, dates.
///
/// It has two versions. `DataModel` (version 1) is the model of stages 1 and 2 as first written;
/// `DataModel 2` (current) adds attachments, a word count and a fetch index, and renames `updatedAt`
/// to `modifiedAt` through a renaming identifier: changes Core Data can infer, so a version 1 store
/// is migrated when a stage opens it (stage 3 teaches how).
///
/// Every stage loads it by name from ``bundle``, as an iOS app loads its model from the main bundle:
///
/// ```swift
/// guard let url = NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld") else { … }
/// guard let model = NSManagedObjectModel(contentsOf: url) else { … }  // entities made as Note, Notebook, Tag
/// ```
///
/// The model file names each entity's class (`representedClassName="Note"`), and the engine finds
/// ``Note``, ``Notebook``, ``Tag`` and ``Attachment`` by that name, as Core Data does: nothing registers them.
public enum NotesModel {
  /// The bundle that carries `DataModel.xcdatamodeld` (SwiftPM's resource bundle for this target).
  public static let bundle: Bundle = .module

  /// The model's name in the bundle.
  public static let name = "DataModel"
}
