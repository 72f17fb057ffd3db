import Foundation

/// The section-and-row reading of a two-index path that UIKit and AppKit add to `IndexPath` on Apple
/// platforms and Linux's Foundation lacks, so that ``NSFetchedResultsController`` code reads as it does
/// there: `IndexPath(row: 2, section: 0)`, `indexPath.section`, `indexPath.row`.
extension IndexPath {
  /// A path to `row` in `section`.
  public init(row: Int, section: Int) {
    self.init(indexes: [section, row])
  }

  /// A path to `item` in `section` (AppKit's and collection views' name for a row).
  public init(item: Int, section: Int) {
    self.init(indexes: [section, item])
  }

  /// The section: the first index.
  public var section: Int { self[0] }
  /// The row in the section: the second index.
  public var row: Int { self[1] }
  /// The item in the section: the second index.
  public var item: Int { self[1] }
}
