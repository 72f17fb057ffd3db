import Foundation
import ObjectGraph
import TestSupport
import Testing

/// A table view's data source as apps write it, recording what it would tell the table.
final class ItemsDataSource: NSObject, NSFetchedResultsControllerDelegate {
  var log: [String] = []

  func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
    log.append("begin")
  }

  func controller(
    _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any,
    at indexPath: IndexPath?, for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
  ) {
    let title = (anObject as? Item)?.title ?? "?"
    switch type {
    case .insert:
      log.append("insert \(title) at \(newIndexPath!.section).\(newIndexPath!.row)")
    case .delete:
      log.append("delete \(title) at \(indexPath!.section).\(indexPath!.row)")
    case .update:
      log.append("update \(title) at \(indexPath!.section).\(indexPath!.row)")
    case .move:
      log.append(
        "move \(title) from \(indexPath!.section).\(indexPath!.row) to \(newIndexPath!.section).\(newIndexPath!.row)")
    @unknown default:
      break
    }
  }

  func controller(
    _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange sectionInfo: NSFetchedResultsSectionInfo,
    atSectionIndex sectionIndex: Int, for type: NSFetchedResultsChangeType
  ) {
    switch type {
    case .insert: log.append("insert section \(sectionInfo.name) at \(sectionIndex)")
    case .delete: log.append("delete section \(sectionInfo.name) at \(sectionIndex)")
    default: break
    }
  }

  func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) {
    log.append("end")
  }
}

@Suite("NSFetchedResultsController", .temporaryFolders)
struct FetchedResultsTests {
  func stack() throws -> NSPersistentContainer {
    let container = makeContainer(at: try TemporaryFolder().appending("Model.sqlite"))
    let context = container.viewContext
    try context.performAndWait {
      for (title, category) in [("Apples", "fruit"), ("Milk", "dairy"), ("Pears", "fruit")] {
        let item = Item(context: context)
        item.title = title
        item.category = category
      }
      try context.save()
    }
    return container
  }

  func makeController(_ context: NSManagedObjectContext) -> NSFetchedResultsController<Item> {
    let fetchRequest: NSFetchRequest<Item> = Item.fetchRequest()
    fetchRequest.sortDescriptors = [
      NSSortDescriptor(key: "category", ascending: true), NSSortDescriptor(key: "title", ascending: true),
    ]
    return NSFetchedResultsController(
      fetchRequest: fetchRequest, managedObjectContext: context, sectionNameKeyPath: "category", cacheName: nil)
  }

  @Test func sectionsAndObjectsAtIndexPaths() throws {
    let container = try stack()
    let context = container.viewContext
    try context.performAndWait {
      let controller = makeController(context)
      try controller.performFetch()
      let sections = try #require(controller.sections)
      #expect(sections.map(\.name) == ["dairy", "fruit"])
      #expect(sections.map(\.numberOfObjects) == [1, 2])
      #expect(controller.object(at: IndexPath(row: 1, section: 1)).title == "Pears")
      #expect(controller.fetchedObjects?.count == 3)
      let milk = controller.object(at: IndexPath(row: 0, section: 0))
      #expect(controller.indexPath(forObject: milk) == IndexPath(row: 0, section: 0))
    }
  }

  @Test func delegateHearsInsertsUpdatesAndDeletes() throws {
    let container = try stack()
    let context = container.viewContext
    let dataSource = ItemsDataSource()
    try context.performAndWait {
      let controller = makeController(context)
      controller.delegate = dataSource
      try controller.performFetch()

      let banana = Item(context: context)
      banana.title = "Bananas"
      banana.category = "fruit"
      try context.save()
      #expect(dataSource.log == ["begin", "insert Bananas at 1.1", "end"])

      dataSource.log = []
      let milk = controller.object(at: IndexPath(row: 0, section: 0))
      milk.done = true
      try context.save()
      #expect(dataSource.log == ["begin", "update Milk at 0.0", "end"])

      dataSource.log = []
      // Apple: "The fetched results controller reports changes to its section before changes to the
      // fetch result objects."
      context.delete(milk)
      try context.save()
      #expect(dataSource.log == ["begin", "delete section dairy at 0", "delete Milk at 0.0", "end"])
      #expect(controller.sections?.count == 1)
    }
  }

  @Test func changingTheSortKeyMovesTheRow() throws {
    let container = try stack()
    let context = container.viewContext
    let dataSource = ItemsDataSource()
    try context.performAndWait {
      let controller = makeController(context)
      controller.delegate = dataSource
      try controller.performFetch()
      let apples = controller.object(at: IndexPath(row: 0, section: 1))
      apples.title = "Quinces"
      try context.save()
      #expect(dataSource.log == ["begin", "move Quinces from 1.0 to 1.1", "end"])
      #expect(controller.object(at: IndexPath(row: 1, section: 1)).title == "Quinces")
    }
  }

  @Test func controllerWithACacheName() throws {
    let container = try stack()
    let context = container.viewContext
    try context.performAndWait {
      NSFetchedResultsController<Item>.deleteCache(withName: "Items")
      let fetchRequest: NSFetchRequest<Item> = Item.fetchRequest()
      fetchRequest.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
      let controller = NSFetchedResultsController(
        fetchRequest: fetchRequest, managedObjectContext: context, sectionNameKeyPath: nil, cacheName: "Items")
      try controller.performFetch()
      #expect(controller.cacheName == "Items")
      #expect(controller.sections?.count == 1)
      #expect(controller.sections?.first?.numberOfObjects == 3)
      let objects = controller.sections?.first?.objects as? [Item]
      #expect(objects?.compactMap(\.title) == ["Pears", "Milk", "Apples"])
    }
  }

  @Test func predicateChangeNeedsAnotherPerformFetch() throws {
    let container = try stack()
    let context = container.viewContext
    try context.performAndWait {
      let controller = makeController(context)
      try controller.performFetch()
      controller.fetchRequest.predicate = NSPredicate(format: "category == %@", "fruit")
      try controller.performFetch()
      #expect(controller.fetchedObjects?.compactMap(\.title) == ["Apples", "Pears"])
    }
  }
}
