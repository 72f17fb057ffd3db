import EngineTestSupport
import Foundation
import ObjectGraph
import TestSupport
import Testing

/// A delegate that takes each round of changes as one difference of object IDs, and implements the other
/// change methods too, to prove they are not called.
private final class DifferenceRecorder: NSObject, NSFetchedResultsControllerDelegate {
  var differences: [CollectionDifference<NSManagedObjectID>] = []
  var otherCalls = 0

  func controller(
    _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChangeContentWith diff: CollectionDifference<NSManagedObjectID>
  ) {
    differences.append(diff)
  }

  func controllerWillChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { otherCalls += 1 }
  func controllerDidChangeContent(_ controller: NSFetchedResultsController<NSFetchRequestResult>) { otherCalls += 1 }
  func controller(
    _ controller: NSFetchedResultsController<NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
  ) { otherCalls += 1 }
}

/// A delegate of the per-object methods only: the difference method's default must leave it told as before.
private final class ObjectRecorder: NSObject, NSFetchedResultsControllerDelegate {
  var lines: [String] = []
  func controller(
    _ controller: NSFetchedResultsController<any NSFetchRequestResult>, didChange anObject: Any, at indexPath: IndexPath?,
    for type: NSFetchedResultsChangeType, newIndexPath: IndexPath?
  ) {
    lines.append("\(type) \((anObject as? Note)?.title ?? "?")")
  }
}

@Suite("Fetched results controller: changes as a CollectionDifference")
struct FetchedResultsDifferenceTests {
  /// Notes "b" and "d", sorted by title, in a controller with `sectionNameKeyPath`.
  private func controller(
    _ stack: StoreStack, sectioned: Bool = false, delegate: any NSFetchedResultsControllerDelegate
  ) throws -> NSFetchedResultsController<Note> {
    try stack.context.performAndWait {
      for title in ["b", "d"] {
        let note = Note(context: stack.context)
        note.title = title
      }
      try stack.context.save()
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
      let controller = NSFetchedResultsController(
        fetchRequest: request, managedObjectContext: stack.context, sectionNameKeyPath: sectioned ? "title" : nil, cacheName: nil)
      controller.delegate = delegate
      try controller.performFetch()
      return controller
    }
  }

  private func note(_ title: String, in stack: StoreStack) throws -> Note {
    let request = NSFetchRequest<Note>(entityName: "Note")
    request.predicate = NSPredicate(format: "title == %@", title)
    return try #require(try stack.context.fetch(request).first)
  }

  @Test("An insert, a delete and a move come as one difference of IDs, and no other change method is called")
  func differenceReplacesTheOtherMethods() throws {
    let stack = try StoreStack(type: .inMemory)
    let recorder = DifferenceRecorder()
    let controller = try controller(stack, delegate: recorder)
    try stack.context.performAndWait {
      let b = try note("b", in: stack)
      let d = try note("d", in: stack)
      let before = controller.fetchedObjects?.map(\.objectID) ?? []
      #expect(before == [b.objectID, d.objectID])

      let a = Note(context: stack.context)
      a.title = "a"
      stack.context.processPendingChanges()
      stack.context.delete(b)
      stack.context.processPendingChanges()
      d.title = "0"  // moves before "a"
      stack.context.processPendingChanges()

      #expect(recorder.otherCalls == 0, "a delegate that takes the difference is told nothing else")
      #expect(recorder.differences.count == 3)
      let after = controller.fetchedObjects?.map(\.objectID) ?? []
      #expect(after == [d.objectID, a.objectID])
      // Applying the differences, in order, to the IDs before gives the IDs after.
      var ids = before
      for difference in recorder.differences {
        ids = try #require(ids.applying(difference))
      }
      #expect(ids == after)
      // The insert is an insertion of a's ID; the delete a removal of b's; the move an associated pair.
      #expect(elements(recorder.differences[0].insertions) == [a.objectID] && recorder.differences[0].removals.isEmpty)
      #expect(elements(recorder.differences[1].removals) == [b.objectID] && recorder.differences[1].insertions.isEmpty)
      let move = recorder.differences[2]
      #expect(move.insertions.count == 1 && move.removals.count == 1)
      if case .insert(_, let inserted, let associatedWith)? = move.insertions.first,
        case .remove(_, let removed, _)? = move.removals.first
      {
        #expect(inserted == removed && associatedWith != nil, "a move is a removal and an insertion of one ID, associated")
      }
    }
  }

  private func elements(_ changes: [CollectionDifference<NSManagedObjectID>.Change]) -> [NSManagedObjectID] {
    changes.map { change in
      switch change {
      case .insert(_, let element, _), .remove(_, let element, _): element
      }
    }
  }

  @Test("A round of in-place updates hands an empty difference")
  func updateHandsAnEmptyDifference() throws {
    let stack = try StoreStack(type: .inMemory)
    let recorder = DifferenceRecorder()
    let controller = try controller(stack, delegate: recorder)
    try stack.context.performAndWait {
      try note("b", in: stack).body = "edited"
      stack.context.processPendingChanges()
    }
    withExtendedLifetime(controller) {}
    #expect(recorder.differences.count == 1 && recorder.differences.first?.isEmpty == true)
    #expect(recorder.otherCalls == 0)
  }

  @Test("A delegate without the difference method is told object by object, as before")
  func perObjectDelegateUnchanged() throws {
    let stack = try StoreStack(type: .inMemory)
    let recorder = ObjectRecorder()
    let controller = try controller(stack, delegate: recorder)
    stack.context.performAndWait {
      let c = Note(context: stack.context)
      c.title = "c"
      stack.context.processPendingChanges()
    }
    withExtendedLifetime(controller) {}
    #expect(recorder.lines == ["\(NSFetchedResultsChangeType.insert) c"])
  }

  @Test("With sections, the difference method is not called: the per-object methods are (Core Data's rule)")
  func sectionedControllerUsesTheOtherMethods() throws {
    let stack = try StoreStack(type: .inMemory)
    let recorder = DifferenceRecorder()
    let controller = try controller(stack, sectioned: true, delegate: recorder)
    stack.context.performAndWait {
      let c = Note(context: stack.context)
      c.title = "c"
      stack.context.processPendingChanges()
    }
    withExtendedLifetime(controller) {}
    #expect(recorder.differences.isEmpty)
    #expect(recorder.otherCalls > 0)
  }

  @Test("Controllers on many queues at once each see their own delegate's choice")
  func manyQueues() async throws {
    try await withThrowingTaskGroup(of: Bool.self) { group in
      for index in 0..<8 {
        group.addTask {
          let stack = try StoreStack(type: .inMemory)
          let byDifference = index.isMultiple(of: 2)
          let differences = DifferenceRecorder()
          let objects = ObjectRecorder()
          let controller = try controller(stack, delegate: byDifference ? differences : objects)
          stack.context.performAndWait {
            for number in 0..<20 {
              let note = Note(context: stack.context)
              note.title = "n\(number)"
              stack.context.processPendingChanges()
            }
          }
          withExtendedLifetime(controller) {}
          return byDifference
            ? differences.differences.count == 20 && differences.otherCalls == 0 : objects.lines.count == 20
        }
      }
      for try await ok in group { #expect(ok) }
    }
  }
}
