import Foundation
import ObjectGraph
import TestSupport
import Testing

@Suite("Fetching", .temporaryFolders)
struct FetchTests {
  /// A store with five items in two categories.
  func groceries() throws -> NSPersistentContainer {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.viewContext
    try context.performAndWait {
      let rows: [(String, String, Int, Bool)] = [
        ("Apples", "fruit", 6, false), ("Bananas", "fruit", 3, true), ("Cherries", "fruit", 40, false),
        ("Milk", "dairy", 1, false), ("Butter", "dairy", 2, true),
      ]
      for (index, row) in rows.enumerated() {
        let item = Item(context: context)
        item.title = row.0
        item.category = row.1
        item.quantity = NSNumber(value: row.2)
        item.done = row.3
        item.createdAt = Date(timeIntervalSince1970: TimeInterval(index) * 86_400)
      }
      try context.save()
    }
    return container
  }

  @Test func fetchRequestByEntityNameWithPredicateArguments() throws {
    let container = try groceries()
    let context = container.viewContext
    try context.performAndWait {
      let request = NSFetchRequest<Item>(entityName: "Item")
      request.predicate = NSPredicate(format: "category == %@ AND quantity > %d", "fruit", 4)
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      let items = try context.fetch(request)
      #expect(items.map(\.title) == ["Apples", "Cherries"])
    }
  }

  @Test func typedFetchRequestFromTheClass() throws {
    let container = try groceries()
    let context = container.viewContext
    try context.performAndWait {
      let request: NSFetchRequest<Item> = Item.fetchRequest()
      request.sortDescriptors = [NSSortDescriptor(key: "quantity", ascending: false)]
      request.fetchLimit = 2
      let items = try context.fetch(request)
      #expect(items.map(\.title) == ["Cherries", "Apples"])
    }
  }

  @Test func compoundPredicates() throws {
    let container = try groceries()
    let context = container.viewContext
    try context.performAndWait {
      let request: NSFetchRequest<Item> = Item.fetchRequest()
      let dairy = NSPredicate(format: "category == %@", "dairy")
      let done = NSPredicate(format: "done == YES")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]

      request.predicate = NSCompoundPredicate(orPredicateWithSubpredicates: [dairy, done])
      let either = try context.fetch(request)
      #expect(either.map(\.title) == ["Bananas", "Butter", "Milk"])

      request.predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [dairy, done])
      let both = try context.fetch(request)
      #expect(both.map(\.title) == ["Butter"])

      request.predicate = NSCompoundPredicate(notPredicateWithSubpredicate: dairy)
      let notDairy = try context.fetch(request)
      #expect(notDairy.count == 3)
    }
  }

  /// The titles a predicate finds, sorted.
  func titles(_ predicate: NSPredicate, in context: NSManagedObjectContext) throws -> [String] {
    let request: NSFetchRequest<Item> = Item.fetchRequest()
    request.predicate = predicate
    request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
    return try context.fetch(request).compactMap(\.title)
  }

  @Test func predicateFormsAppsUse() throws {
    let container = try groceries()
    let context = container.viewContext
    let results = try context.performAndWait {
      [
        try titles(NSPredicate(format: "title BEGINSWITH[c] %@", "b"), in: context),
        try titles(NSPredicate(format: "title CONTAINS[cd] %@", "ERR"), in: context),
        try titles(NSPredicate(format: "title IN %@", ["Milk", "Apples", "Pears"]), in: context),
        try titles(NSPredicate(format: "createdAt >= %@", Date(timeIntervalSince1970: 3 * 86_400) as NSDate), in: context),
        try titles(NSPredicate(format: "%K == %@", "category", "dairy"), in: context),
        try titles(NSPredicate(format: "quantity BETWEEN {2, 6}"), in: context),
        try titles(NSPredicate(format: "title LIKE %@", "?ilk"), in: context),
        try titles(NSPredicate(format: "title MATCHES %@", "[A-C].*s"), in: context),
      ]
    }
    #expect(results[0] == ["Bananas", "Butter"])
    #expect(results[1] == ["Cherries"])
    #expect(results[2] == ["Apples", "Milk"])
    #expect(results[3] == ["Butter", "Milk"])
    #expect(results[4] == ["Butter", "Milk"])
    #expect(results[5] == ["Apples", "Bananas", "Butter"])
    #expect(results[6] == ["Milk"])
    #expect(results[7] == ["Apples", "Bananas", "Cherries"])
  }

  @Test func sortByTwoKeys() throws {
    let container = try groceries()
    let context = container.viewContext
    try context.performAndWait {
      let request: NSFetchRequest<Item> = Item.fetchRequest()
      request.sortDescriptors = [
        NSSortDescriptor(key: "category", ascending: true),
        NSSortDescriptor(key: "quantity", ascending: false),
      ]
      let items = try context.fetch(request)
      #expect(items.map(\.title) == ["Butter", "Milk", "Cherries", "Apples", "Bananas"])
    }
  }

  @Test func batchSizeAndPrefetchingGiveTheSameObjects() throws {
    let container = try groceries()
    let context = container.newBackgroundContext()
    try context.performAndWait {
      let request: NSFetchRequest<Item> = Item.fetchRequest()
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      request.fetchBatchSize = 2
      request.relationshipKeyPathsForPrefetching = ["list"]
      request.returnsObjectsAsFaults = false
      let items = try context.fetch(request)
      #expect(items.compactMap(\.title) == ["Apples", "Bananas", "Butter", "Cherries", "Milk"])
      #expect(items.allSatisfy { $0.list == nil })
    }
  }

  @Test func localizedStandardCompareSort() throws {
    let container = try groceries()
    let context = container.viewContext
    try context.performAndWait {
      for title in ["item 10", "item 9", "Item 100"] {
        let item = Item(context: context)
        item.title = title
        item.category = "numbered"
      }
      try context.save()
      let request: NSFetchRequest<Item> = Item.fetchRequest()
      request.predicate = NSPredicate(format: "category == %@", "numbered")
      request.sortDescriptors = [
        NSSortDescriptor(key: "title", ascending: true, selector: Selector("localizedStandardCompare:"))
      ]
      let titles = try context.fetch(request).compactMap(\.title)
      #expect(titles == ["item 9", "item 10", "Item 100"])
    }
  }

  @Test func countForRequest() throws {
    let container = try groceries()
    let context = container.viewContext
    try context.performAndWait {
      let request: NSFetchRequest<Item> = Item.fetchRequest()
      request.predicate = NSPredicate(format: "done == %@", NSNumber(value: false))
      let count = try context.count(for: request)
      #expect(count == 3)
    }
  }

  @Test func dictionaryResultsWithPropertiesToFetch() throws {
    let container = try groceries()
    let context = container.viewContext
    try context.performAndWait {
      let request = NSFetchRequest<NSDictionary>(entityName: "Item")
      request.resultType = .dictionaryResultType
      request.propertiesToFetch = ["title", "quantity"]
      request.predicate = NSPredicate(format: "category == %@", "dairy")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      let rows = try context.fetch(request)
      #expect(rows.count == 2)
      #expect(rows.first?["title"] as? String == "Butter")
      #expect((rows.first?["quantity"] as? NSNumber)?.intValue == 2)
    }
  }

  @Test func sumPerCategoryWithExpressionDescription() throws {
    let container = try groceries()
    let context = container.viewContext
    try context.performAndWait {
      let total = NSExpressionDescription()
      total.name = "total"
      total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "quantity")])
      total.expressionResultType = .integer64AttributeType

      let request = NSFetchRequest<NSDictionary>(entityName: "Item")
      request.resultType = .dictionaryResultType
      request.propertiesToFetch = ["category", total]
      request.propertiesToGroupBy = ["category"]
      request.sortDescriptors = [NSSortDescriptor(key: "category", ascending: true)]
      let rows = try context.fetch(request)
      let totals = rows.map { "\($0["category"] as? String ?? "?")=\(($0["total"] as? NSNumber)?.intValue ?? -1)" }
      #expect(totals == ["dairy=3", "fruit=49"])
    }
  }

  @Test func fetchOffsetAndObjectIDResults() throws {
    let container = try groceries()
    let context = container.viewContext
    try context.performAndWait {
      let request = NSFetchRequest<NSManagedObjectID>(entityName: "Item")
      request.resultType = .managedObjectIDResultType
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      request.fetchOffset = 3
      let ids = try context.fetch(request)
      #expect(ids.count == 2)
      let titles = ids.compactMap { (context.object(with: $0) as? Item)?.title }
      #expect(titles == ["Cherries", "Milk"])
    }
  }

  @Test func fetchThroughARelationshipKeyPath() throws {
    let container = try groceries()
    let context = container.viewContext
    try context.performAndWait {
      let list = ItemList(context: context)
      list.name = "Weekend"
      let all: NSFetchRequest<Item> = Item.fetchRequest()
      for item in try context.fetch(all) where item.category == "dairy" {
        item.list = list
      }
      try context.save()
      let request: NSFetchRequest<Item> = Item.fetchRequest()
      request.predicate = NSPredicate(format: "list.name == %@", "Weekend")
      #expect(try context.count(for: request) == 2)
      let byObject: NSFetchRequest<Item> = Item.fetchRequest()
      byObject.predicate = NSPredicate(format: "list == %@", list)
      #expect(try context.count(for: byObject) == 2)
    }
  }
}
