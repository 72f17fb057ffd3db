import Foundation

/// The dictionaries of a dictionary fetch, in one flat array: row `r`'s value of column `c` is
/// `values[r * names.count + c]`. A `nil` value is left out of its row's dictionary, as Core Data leaves it
/// out of its `NSDictionary`. One array for the whole result, not one per row: a fetch of 100,000 rows
/// makes no row object of its own.
struct StoreDictionaryRows {
  /// Each column's key in the dictionaries, in column order.
  let names: [String]
  let values: [StoredValue]
  /// Whether the rows are several stores' answers one after the other, unordered across them: the context
  /// then orders, de-duplicates and cuts them itself.
  var fromSeveralStores = false

  static let empty = StoreDictionaryRows(names: [], values: [])

  /// How many dictionaries.
  var count: Int { names.isEmpty ? 0 : values.count / names.count }
}
