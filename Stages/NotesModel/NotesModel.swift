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
/// ## Where the classes come from
///
/// The model file names each entity's class (`representedClassName="Note"`). On a Mac, Core Data asks
/// the Objective-C runtime for the class with that name, and the runtime knows every class of a module
/// as soon as the module is loaded: the app's code never registers anything. Swift on Linux has no such
/// lookup, so ObjectGraph keeps a table of classes by name (``NSManagedObjectModel/register(_:)``),
/// filled once per process, and resolves `representedClassName` through it as Core Data does through
/// the runtime.
///
/// This target fills the table for its model: it declares both the classes and the model file, and it
/// registers them at the one moment that always comes before the model can be loaded, the first time
/// its ``bundle`` is asked for. Code that loads the model (the stages' managers, the exercises, the
/// tests) therefore reads exactly as it would on a Mac: find the URL, call
/// `NSManagedObjectModel(contentsOf:)`, done. Not in the stage code, which a learner carries to a Mac
/// where such a call means nothing; not in the engine, which cannot know an app's classes; and by class
/// name, not entity name, because `representedClassName` is what Core Data binds. An app with a model
/// of its own does the same in the module that declares its classes.
public enum NotesModel {
  /// The bundle that carries `DataModel.xcdatamodeld` (SwiftPM's resource bundle for this target).
  ///
  /// The first time it is asked for, it registers ``Note``, ``Notebook``, ``Tag`` and ``Attachment``
  /// by class name, so the model's entities are made as those classes (the type's documentation
  /// says why here).
  public static let bundle: Bundle = {
    NSManagedObjectModel.register(Note.self)
    NSManagedObjectModel.register(Notebook.self)
    NSManagedObjectModel.register(Tag.self)
    NSManagedObjectModel.register(Attachment.self)
    return .module
  }()

  /// The model's name in the bundle.
  public static let name = "DataModel"
}
