import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Sort descriptors with Core Data's string comparisons (`localizedStandardCompare:` and the others), in
/// the store's SQL and in memory for unsaved objects.
@Suite("Sorting with comparisons", .temporaryFolders)
struct SortComparisonTests {
  private static let names = ["cafe", "Café", "apple", "Zebra", "file10", "file2", "éclair", "banana", "Apple pie", "zoo"]

  /// A store holding one notebook per name, saved.
  private func stack(_ type: NSPersistentStore.StoreType, names: [String] = names) throws -> StoreStack {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      for name in names { Notebook(context: stack.context).name = name }
      try stack.context.save()
    }
    return stack
  }

  private func sorted(_ context: NSManagedObjectContext, _ descriptor: NSSortDescriptor) throws -> [String] {
    try context.performAndWait {
      let request = NSFetchRequest<Notebook>(entityName: "Notebook")
      request.sortDescriptors = [descriptor]
      return try context.fetch(request).compactMap(\.name)
    }
  }

  /// Whether every neighbour pair is in order under the comparison (ties may come either way).
  private func inOrder(_ names: [String], _ comparison: FetchSortDescriptor.Comparison, ascending: Bool) -> Bool {
    zip(names, names.dropFirst()).allSatisfy { pair in
      comparison.order(pair.0, pair.1) != (ascending ? .orderedDescending : .orderedAscending)
    }
  }

  @Test("Every comparison orders the store's rows as Foundation's own function does", arguments: bothStoreTypes)
  func storeOrder(type: NSPersistentStore.StoreType) throws {
    let stack = try stack(type)
    let (_, reader) = try stack.reader()
    for comparison in FetchSortDescriptor.Comparison.allCases {
      for ascending in [true, false] {
        let result = try sorted(reader, NSSortDescriptor(key: "name", ascending: ascending, selector: Selector(comparison.rawValue)))
        #expect(Set(result) == Set(Self.names))
        #expect(inOrder(result, comparison, ascending: ascending), "\(comparison) \(ascending): \(result)")
      }
    }
  }

  @Test("The orders people expect: code points by default, numbers by value and accents beside their letters when localized")
  func expectedOrders() throws {
    let stack = try stack(.sqlite)
    let (_, reader) = try stack.reader()
    #expect(try sorted(reader, NSSortDescriptor(key: "name", ascending: true)).prefix(3) == ["Apple pie", "Café", "Zebra"])
    let standard = try sorted(reader, NSSortDescriptor(key: "name", ascending: true, selector: Selector("localizedStandardCompare:")))
    let position = { (name: String) in try #require(standard.firstIndex(of: name)) }
    #expect(try position("file2") < position("file10"))
    #expect(try abs(position("cafe") - position("Café")) == 1)
    #expect(standard.first == "apple" && standard.last == "zoo")
    let caseless = try sorted(reader, NSSortDescriptor(key: "name", ascending: true, selector: Selector("caseInsensitiveCompare:")))
    #expect(caseless.prefix(2) == ["apple", "Apple pie"])
  }

  @Test("Unsaved objects are placed among fetched ones by the same comparison", arguments: bothStoreTypes)
  func pendingObjects(type: NSPersistentStore.StoreType) throws {
    let stack = try stack(type)
    let context = stack.context
    context.performAndWait {
      for name in ["Cafeteria", "file3", "Éclair", "APPLE"] { Notebook(context: context).name = name }
    }
    for comparison in FetchSortDescriptor.Comparison.allCases {
      let result = try sorted(context, NSSortDescriptor(key: "name", ascending: true, selector: Selector(comparison.rawValue)))
      #expect(result.count == Self.names.count + 4)
      #expect(inOrder(result, comparison, ascending: true), "\(comparison): \(result)")
      // With a limit, the store is asked for fewer rows and the unsaved ones still land in place.
      let limited = try context.performAndWait {
        let request = NSFetchRequest<Notebook>(entityName: "Notebook")
        request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true, selector: Selector(comparison.rawValue))]
        request.fetchLimit = 5
        return try context.fetch(request).compactMap(\.name)
      }
      #expect(limited.count == 5)
      #expect(inOrder(limited, comparison, ascending: true))
      #expect(Set(limited).isSubset(of: Set(result)))
    }
  }

  @Test("Core Data's selector names are accepted; others are refused, naming the ones there are")
  func selectors() throws {
    let descriptor = NSSortDescriptor(key: "name", ascending: false, selector: Selector("localizedStandardCompare:"))
    #expect(descriptor.selector == Selector("localizedStandardCompare:") && !descriptor.ascending)
    #expect(descriptor.description == "(name, descending, localizedStandardCompare:)")
    // Another selector is kept (making a descriptor never stops the program) and refused by the fetch.
    let unknown = NSSortDescriptor(key: "name", ascending: true, selector: Selector("compareByLength:"))
    #expect(unknown.selector == Selector("compareByLength:"))
    let stack = try stack(.sqlite)
    let (_, reader) = try stack.reader()
    let error = expectCode(.invalidValue) { _ = try sorted(reader, unknown) }
    #expect(error?.message.contains("localizedCaseInsensitiveCompare:") == true)
  }
}
