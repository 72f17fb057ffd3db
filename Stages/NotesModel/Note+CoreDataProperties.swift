import Foundation
import ObjectGraph

extension Note {
  /// A fetch request for the Note entity.
  @nonobjc public class func fetchRequest() -> NSFetchRequest<Note> {
    NSFetchRequest<Note>(entityName: "Note")
  }

  /// The note's title (required; defaults to the empty string).
  @ObjectGraphManaged public var title: String
  /// The note's text.
  @ObjectGraphManaged public var body: String?
  /// When the note was made (required).
  @ObjectGraphManaged public var createdAt: Date?
  /// When the note was last changed (version 2 renamed it from `updatedAt`, with the renaming identifier
  /// `updatedAt`, so a version 1 store keeps its values).
  @ObjectGraphManaged public var modifiedAt: Date?
  /// How many words the note has (version 2; required, default 0).
  @ObjectGraphManaged public var wordCount: Int32
  /// Whether the note is pinned to the top.
  @ObjectGraphManaged public var isPinned: Bool
  /// The notebook holding the note.
  @ObjectGraphManaged public var notebook: Notebook?
  /// The note's tags.
  @ObjectGraphManaged public var tags: Set<Tag>
  /// Files attached to the note (version 2; deleting a note deletes its attachments).
  @ObjectGraphManaged public var attachments: Set<Attachment>
}
