import Foundation

/// What a save's uniqueness check decided, applied once the inserts have their primary keys.
struct ConstraintMerges {
  /// Inserts merged into another object of the same save: the insert, by position, and the object that
  /// represents the row (another insert, or an updated object).
  var duplicates: [(insert: Int, survivor: Survivor)] = []
  /// Inserts merged into a stored row, and whether the row takes the insert's values (object trump,
  /// overwrite) or keeps its own (store trump, rollback).
  var intoRows: [(insert: Int, row: NSManagedObjectID)] = []
  var writesValues = false

  enum Survivor: Hashable {
    case insert(Int)
    case update(Int)
  }

  /// Step 3 of a ``SaveTransaction``: gives every merged insert the ID of the row it was merged into.
  func assignIDs(to transaction: SaveTransaction) {
    for (insert, row) in intoRows {
      transaction.result.insertedIDs[insert] = row
      transaction.result.constraintMerges[insert] = .intoStoredRow
    }
    for (insert, survivor) in duplicates {
      switch survivor {
      case .insert(let other): transaction.result.insertedIDs[insert] = transaction.result.insertedIDs[other]
      case .update(let other): transaction.result.insertedIDs[insert] = transaction.request.updates[other].id
      }
      transaction.result.constraintMerges[insert] = .duplicate
    }
  }
}
