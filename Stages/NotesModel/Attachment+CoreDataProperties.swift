import Foundation
import ObjectGraph

extension Attachment {
  /// A fetch request for the Attachment entity.
  @nonobjc public class func fetchRequest() -> NSFetchRequest<Attachment> {
    NSFetchRequest<Attachment>(entityName: "Attachment")
  }

  /// The file's name.
  @ObjectGraphManaged public var fileName: String
  /// The file's size in bytes.
  @ObjectGraphManaged public var byteCount: Int64
  /// The note the file is attached to.
  @ObjectGraphManaged public var note: Note?
}
