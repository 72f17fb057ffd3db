import Foundation

/// Which history to read or delete: after (or up to) a transaction number, or a date.
enum StoreHistoryBound {
  case all
  case transaction(Int64)
  case date(Date)
}
