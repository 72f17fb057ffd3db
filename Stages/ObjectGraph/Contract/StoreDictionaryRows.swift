import Foundation

/// One dictionary of a dictionary fetch: each column's name and value; a `nil` value is left out, as
/// Core Data leaves it out of its `NSDictionary`.
typealias StoreDictionaryRow = [(name: String, value: SlotValue)]
