import Foundation

/// The values of one object as its parent store has them, with the row version they were read at.
struct RowSnapshot: Sendable {
  var version: Int64
  var values: [StoredValue]
}
