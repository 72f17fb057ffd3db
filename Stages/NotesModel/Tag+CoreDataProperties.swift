import Foundation
import ObjectGraph

extension Tag {
  /// A fetch request for the Tag entity.
  @nonobjc public class func fetchRequest() -> NSFetchRequest<Tag> {
    NSFetchRequest<Tag>(entityName: "Tag")
  }

  /// The tag's name.
  @ObjectGraphManaged public var name: String
  /// The notes with this tag.
  @ObjectGraphManaged public var notes: Set<Note>
}
