import Foundation
import ObjectGraph

extension Notebook {
  /// A fetch request for the Notebook entity.
  @nonobjc public class func fetchRequest() -> NSFetchRequest<Notebook> {
    NSFetchRequest<Notebook>(entityName: "Notebook")
  }

  /// The notebook's name.
  @ObjectGraphManaged public var name: String
  /// When the notebook was made (required).
  @ObjectGraphManaged public var createdAt: Date?
  /// The notes in the notebook.
  @ObjectGraphManaged public var notes: Set<Note>
}
