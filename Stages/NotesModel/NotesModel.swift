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

/// A note: a required title, an optional body, dates, maybe a notebook, any number of tags.
public final class Note: NSManagedObject {
  /// The note's title (required; defaults to the empty string).
  @Managed public var title: String
  /// The note's text.
  @Managed public var body: String?
  /// When the note was made (required).
  @Managed public var createdAt: Date?
  /// When the note was last changed (version 2 renamed it from `updatedAt`, with the renaming identifier
  /// `updatedAt`, so a version 1 store keeps its values).
  @Managed public var modifiedAt: Date?
  /// How many words the note has (version 2; required, default 0).
  @Managed public var wordCount: Int32
  /// Whether the note is pinned to the top.
  @Managed public var isPinned: Bool
  /// The notebook holding the note.
  @Managed public var notebook: Notebook?
  /// The note's tags.
  @Managed public var tags: Set<Tag>
  /// Files attached to the note (version 2; deleting a note deletes its attachments).
  @Managed public var attachments: Set<Attachment>
}

/// A file attached to a note (new in version 2 of the model).
public final class Attachment: NSManagedObject {
  /// The file's name.
  @Managed public var fileName: String
  /// The file's size in bytes.
  @Managed public var byteCount: Int64
  /// The note the file is attached to.
  @Managed public var note: Note?
}

/// A notebook: a name and its notes (deleting a notebook deletes its notes).
public final class Notebook: NSManagedObject {
  /// The notebook's name.
  @Managed public var name: String
  /// When the notebook was made (required).
  @Managed public var createdAt: Date?
  /// The notes in the notebook.
  @Managed public var notes: Set<Note>
}

/// A tag, shared by any number of notes.
public final class Tag: NSManagedObject {
  /// The tag's name.
  @Managed public var name: String
  /// The notes with this tag.
  @Managed public var notes: Set<Note>
}
