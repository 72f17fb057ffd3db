import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Result and change types with Core Data's raw values (issue 37): `NSFetchRequestResultType` as the option set
/// Core Data declares, the batch and history result types, and the change types a history and a fetched results
/// controller report.
@Suite("Result and change types as Core Data declares them", .temporaryFolders)
struct ResultTypeRawValueTests {
  @Test("NSFetchRequestResultType is an option set with Core Data's raw values 0, 1, 2 and 4")
  func fetchResultTypeRawValues() {
    #expect(NSFetchRequestResultType.managedObjectResultType.rawValue == 0)
    #expect(NSFetchRequestResultType.managedObjectIDResultType.rawValue == 1)
    #expect(NSFetchRequestResultType.dictionaryResultType.rawValue == 2)
    #expect(NSFetchRequestResultType.countResultType.rawValue == 4)
    #expect(NSFetchRequestResultType(rawValue: 2) == .dictionaryResultType)
    #expect(NSFetchRequestResultType.managedObjectResultType.isEmpty)
    let both: NSFetchRequestResultType = [.managedObjectIDResultType, .dictionaryResultType]
    #expect(both.rawValue == 3 && both.contains(.dictionaryResultType))
  }

  @Test("A fetch reads a result type made from its raw value; one that is none of the four is refused")
  func fetchByRawValue() throws {
    let stack = try StoreStack()
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "one"
      try stack.context.save()
      let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Note")
      ids.resultType = NSFetchRequestResultType(rawValue: 1)
      #expect(try stack.context.fetch(ids) == [note.objectID])
      let count = NSFetchRequest<NSNumber>(entityName: "Note")
      count.resultType = NSFetchRequestResultType(rawValue: 4)
      #expect(try stack.context.fetch(count) == [1])
      let combined = NSFetchRequest<NSDictionary>(entityName: "Note")
      combined.resultType = [.managedObjectIDResultType, .dictionaryResultType]
      let error = expectCode(.invalidValue) { _ = try stack.context.fetch(combined) }
      #expect(error?.message.contains("NSFetchRequestResultType(rawValue: 3)") == true)
    }
  }

  @Test("The batch request result types have Core Data's raw values")
  func batchResultTypes() {
    let deletes: [(NSBatchDeleteRequestResultType, UInt)] = [
      (.resultTypeStatusOnly, 0), (.resultTypeObjectIDs, 1), (.resultTypeCount, 2),
    ]
    for (type, raw) in deletes { #expect(type.rawValue == raw && NSBatchDeleteRequestResultType(rawValue: raw) == type) }
    let inserts: [(NSBatchInsertRequestResultType, UInt)] = [(.statusOnly, 0), (.objectIDs, 1), (.count, 2)]
    for (type, raw) in inserts { #expect(type.rawValue == raw && NSBatchInsertRequestResultType(rawValue: raw) == type) }
    let updates: [(NSBatchUpdateRequestResultType, UInt)] = [
      (.statusOnlyResultType, 0), (.updatedObjectIDsResultType, 1), (.updatedObjectsCountResultType, 2),
    ]
    for (type, raw) in updates { #expect(type.rawValue == raw && NSBatchUpdateRequestResultType(rawValue: raw) == type) }
    #expect(NSBatchDeleteRequestResultType(rawValue: 3) == nil)
    #expect(NSBatchInsertRequestResultType(rawValue: 3) == nil)
    #expect(NSBatchUpdateRequestResultType(rawValue: 3) == nil)
  }

  @Test("The history result and change types have Core Data's raw values (Int, as Core Data declares them)")
  func historyTypes() {
    let results: [(NSPersistentHistoryResultType, Int)] = [
      (.statusOnly, 0x0), (.objectIDs, 0x1), (.count, 0x2), (.transactionsOnly, 0x3), (.changesOnly, 0x4),
      (.transactionsAndChanges, 0x5),
    ]
    for (type, raw) in results { #expect(type.rawValue == raw && NSPersistentHistoryResultType(rawValue: raw) == type) }
    #expect(NSPersistentHistoryResultType(rawValue: 6) == nil)
    let changes: [(NSPersistentHistoryChangeType, Int)] = [(.insert, 0), (.update, 1), (.delete, 2)]
    for (type, raw) in changes { #expect(type.rawValue == raw && NSPersistentHistoryChangeType(rawValue: raw) == type) }
    #expect(NSPersistentHistoryChangeType(rawValue: 3) == nil)
  }

  @Test("NSFetchedResultsChangeType has Core Data's raw values, starting at 1")
  func fetchedResultsChangeTypes() {
    let types: [(NSFetchedResultsChangeType, UInt)] = [(.insert, 1), (.delete, 2), (.move, 3), (.update, 4)]
    for (type, raw) in types { #expect(type.rawValue == raw && NSFetchedResultsChangeType(rawValue: raw) == type) }
    #expect(NSFetchedResultsChangeType(rawValue: 0) == nil)
  }
}
