import Foundation
import ObjectGraph

/// The tutorial's data model, `DataModel.xcdatamodeld`: notebooks holding notes (deleting a notebook
/// deletes its notes), notes with tags (many-to-many), a required title, an optional body, dates.
///
/// Every stage loads it by name from ``bundle``, as an iOS app loads its model from the main bundle.
public enum NotesModel {
  /// The bundle that carries `DataModel.xcdatamodeld` (SwiftPM's resource bundle for this target).
  public static let bundle: Bundle = .module

  /// The model's name in the bundle.
  public static let name = "DataModel"

  /// Makes ``Note``, ``Notebook`` and ``Tag`` the classes of their entities. Safe to call more than once.
  public static func registerClasses() {
    ManagedObjectModel.register(Note.self, forEntityName: "Note")
    ManagedObjectModel.register(Notebook.self, forEntityName: "Notebook")
    ManagedObjectModel.register(Tag.self, forEntityName: "Tag")
  }
}

/// A note: a required title, an optional body, dates, maybe a notebook, any number of tags.
public final class Note: ManagedObject {
  /// The note's title (required; defaults to the empty string).
  @Managed public var title: String
  /// The note's text.
  @Managed public var body: String?
  /// When the note was made (required).
  @Managed public var createdAt: Date?
  /// When the note was last changed.
  @Managed public var updatedAt: Date?
  /// Whether the note is pinned to the top.
  @Managed public var isPinned: Bool
  /// The notebook holding the note.
  @Managed public var notebook: Notebook?
  /// The note's tags.
  @Managed public var tags: Set<Tag>
}

/// A notebook: a name and its notes (deleting a notebook deletes its notes).
public final class Notebook: ManagedObject {
  /// The notebook's name.
  @Managed public var name: String
  /// When the notebook was made (required).
  @Managed public var createdAt: Date?
  /// The notes in the notebook.
  @Managed public var notes: Set<Note>
}

/// A tag, shared by any number of notes.
public final class Tag: ManagedObject {
  /// The tag's name.
  @Managed public var name: String
  /// The notes with this tag.
  @Managed public var notes: Set<Note>
}
