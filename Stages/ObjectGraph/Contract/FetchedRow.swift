import Foundation

/// One row read from a store: the object it belongs to and its values.
struct FetchedRow {
  /// Who the row is: an ID, or (from a store's fetch) its table and primary key, the ID not made yet.
  enum Identity {
    case id(NSManagedObjectID)
    case row(RowSource, primaryKey: Int64)
  }

  let identity: Identity
  let snapshot: RowSnapshot

  init(id: NSManagedObjectID, snapshot: RowSnapshot) {
    identity = .id(id)
    self.snapshot = snapshot
  }

  init(source: RowSource, primaryKey: Int64, snapshot: RowSnapshot) {
    identity = .row(source, primaryKey: primaryKey)
    self.snapshot = snapshot
  }

  /// The row's ID (made now when the row has none yet; equal to any other made for the same row).
  var id: NSManagedObjectID {
    switch identity {
    case .id(let id): id
    case .row(let source, let primaryKey): source.makeID(primaryKey: primaryKey)
    }
  }

  var entity: NSEntityDescription {
    switch identity {
    case .id(let id): id.entity
    case .row(let source, _): source.entity
    }
  }
}
