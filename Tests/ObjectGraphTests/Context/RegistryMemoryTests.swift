import EngineTestSupport
import Foundation
import Synchronization
import Testing

@testable import ObjectGraph

/// A managed object that counts its live instances, so a test can see whether a context let go of the
/// objects nobody else references (reading `registeredObjects` would purge, so it cannot tell).
final class PagedItem: NSManagedObject {
  static let live = Atomic<Int>(0)

  required init(entity: NSEntityDescription, insertInto context: NSManagedObjectContext?) {
    super.init(entity: entity, insertInto: context)
    Self.live.add(1, ordering: .relaxed)
  }

  deinit { Self.live.subtract(1, ordering: .relaxed) }
}

/// The registry holds unchanged objects only while someone else does, as Core Data's weak registry:
/// a context that only fetches stays bounded, `retainsRegisteredObjects` keeps everything.
@Suite("Registry memory", .temporaryFolders, .serialized)
struct RegistryMemoryTests {
  static let rows = 20_000
  static let pageSize = 1_000

  static func model() throws -> NSManagedObjectModel {
    try NSManagedObjectModel(entities: [
      NSEntityDescription(
        name: "PagedItem", managedObjectClass: PagedItem.self,
        properties: [.attribute(NSAttributeDescription(name: "number", type: .integer64))])
    ])
  }

  /// A SQLite store holding `rows` items numbered 0..<rows, written by a context that is gone on return.
  static func filledStack() throws -> StoreStack {
    let stack = try StoreStack(model: model())
    let writer = stack.freshContext()
    try writer.performAndWait {
      for number in 0..<rows {
        let item = PagedItem(context: writer)
        item.setValue(Int64(number), forKey: "number")
      }
      try writer.save()
      writer.reset()
    }
    return stack
  }

  static func page(_ index: Int) -> NSFetchRequest<PagedItem> {
    let request = NSFetchRequest<PagedItem>()
    request.sortDescriptors = [NSSortDescriptor(key: "number", ascending: true)]
    request.fetchOffset = index * pageSize
    request.fetchLimit = pageSize
    return request
  }

  @Test("Paging through 20,000 rows in pages of 1,000, dropping each page, keeps the registry bounded")
  func pagingStaysBounded() throws {
    let stack = try Self.filledStack()
    let context = stack.freshContext()
    let before = PagedItem.live.load(ordering: .relaxed)
    var most = 0
    try context.performAndWait {
      for index in 0..<(Self.rows / Self.pageSize) {
        let page = try context.fetch(Self.page(index))
        #expect(page.count == Self.pageSize)
        #expect(page.first?.value(forKey: "number") as? Int64 == Int64(index * Self.pageSize))
        most = max(most, PagedItem.live.load(ordering: .relaxed) - before)
      }
    }
    let alive = PagedItem.live.load(ordering: .relaxed) - before
    // Purges run at 4,096 unchanged objects (or twice what the last purge left): never the whole 20,000.
    #expect(most <= 2 * 4_096 + Self.pageSize, "at most \(most) items were alive at once")
    #expect(alive <= 2 * 4_096 + Self.pageSize, "\(alive) items still alive after paging")
    #expect(context.registeredCount == alive)
  }

  @Test("After paging, the context holds at most the last page: each fetch lets go of the previous one's dropped objects")
  func pagingKeepsOnlyTheLastPage() throws {
    let stack = try Self.filledStack()
    let context = stack.freshContext()
    let before = PagedItem.live.load(ordering: .relaxed)
    var most = 0
    try context.performAndWait {
      for index in 0..<(Self.rows / Self.pageSize) {
        let page = try context.fetch(Self.page(index))
        #expect(page.count == Self.pageSize)
        most = max(most, PagedItem.live.load(ordering: .relaxed) - before)
      }
    }
    // While a page is being fetched, the previous one (dropped by then) is already gone.
    #expect(most <= Self.pageSize, "at most \(most) items were alive at once")
    #expect(context.registeredCount <= Self.pageSize)
    #expect(PagedItem.live.load(ordering: .relaxed) - before <= Self.pageSize)
  }

  @Test("A fetch's purge frees nothing its caller holds: kept pages stay the same instances")
  func heldPagesStay() throws {
    let stack = try Self.filledStack()
    let context = stack.freshContext()
    try context.performAndWait {
      var kept: [[PagedItem]] = []
      for index in 0..<(Self.rows / Self.pageSize) { kept.append(try context.fetch(Self.page(index))) }
      #expect(context.registeredCount == Self.rows)
      let again = try context.fetch(Self.page(0))
      #expect(zip(again, kept[0]).allSatisfy { $0 === $1 })
      withExtendedLifetime(kept) {}
    }
  }

  @Test("Objects changed on a dropped page are never purged: their changes reach the save")
  func changedObjectsStay() throws {
    let stack = try Self.filledStack()
    let context = stack.freshContext()
    try context.performAndWait {
      for index in 0..<(Self.rows / Self.pageSize) {
        let page = try context.fetch(Self.page(index))
        page[0].setValue(Int64(-index - 1), forKey: "number")
      }
      #expect(context.updatedObjects.count == Self.rows / Self.pageSize)
      try context.save()
    }
    let negative = try stack.stored("PagedItem") { $0.value(forKey: "number") as? Int64 ?? 0 }.filter { $0 < 0 }
    #expect(negative.count == Self.rows / Self.pageSize)
  }

  @Test("retainsRegisteredObjects keeps every fetched object until it is turned off")
  func retainsRegisteredObjects() throws {
    let stack = try Self.filledStack()
    let context = stack.freshContext()
    #expect(context.retainsRegisteredObjects == false)
    context.retainsRegisteredObjects = true
    let before = PagedItem.live.load(ordering: .relaxed)
    try context.performAndWait {
      for index in 0..<(Self.rows / Self.pageSize) { _ = try context.fetch(Self.page(index)) }
      #expect(context.registeredCount == Self.rows)
      #expect(context.registeredObjects.count == Self.rows)
      #expect(PagedItem.live.load(ordering: .relaxed) - before == Self.rows)
      context.retainsRegisteredObjects = false
      #expect(context.registeredObjects.isEmpty)
    }
    #expect(PagedItem.live.load(ordering: .relaxed) - before == 0)
  }
}

/// Rows prefetched for faults leave with their faults.
@Suite("Registry memory: prefetched rows", .temporaryFolders)
struct PrefetchedRowMemoryTests {
  @Test("Paging with relationshipKeyPathsForPrefetching keeps the row cache bounded when pages are dropped")
  func prefetchedRowsLeaveWithTheirFaults() throws {
    let stack = try StoreStack()
    let total = 10_000
    let pageSize = 500
    let writer = stack.freshContext()
    try writer.performAndWait {
      for number in 0..<total {
        let notebook = Notebook(context: writer)
        notebook.name = "\(number)"
        let note = Note(context: writer)
        note.title = "\(number)"
        note.rating = Int64(number)
        note.notebook = notebook
      }
      try writer.save()
      writer.reset()
    }
    let context = stack.freshContext()
    try context.performAndWait {
      for index in 0..<(total / pageSize) {
        let request = NSFetchRequest<Note>()
        request.sortDescriptors = [NSSortDescriptor(key: "rating", ascending: true)]
        request.fetchOffset = index * pageSize
        request.fetchLimit = pageSize
        request.relationshipKeyPathsForPrefetching = ["notebook"]
        let page = try context.fetch(request)
        #expect(page.count == pageSize)
      }
      // Every notebook fault was dropped unfired: its prefetched row must not outlive it.
      #expect(context.rowCacheCount <= 4_096 + 2 * pageSize, "\(context.rowCacheCount) rows still cached")
    }
  }
}
