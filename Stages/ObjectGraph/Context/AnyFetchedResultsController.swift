import Foundation

/// A fetch kept current: the results of a request, in sections, updated as the context changes (its own
/// edits, saves, merges from other contexts, refreshes), telling a delegate what moved where. Core Data's
/// `NSFetchedResultsController`, without UIKit: the index paths are the ones a table or list needs.
///
/// ```swift
/// let request = NSFetchRequest<Note>(entityName: "Note")
/// request.sortDescriptors = [NSSortDescriptor(key: "notebook.name", ascending: true), NSSortDescriptor(key: "title", ascending: true)]
/// let controller = NSFetchedResultsController(
///   fetchRequest: request, managedObjectContext: mainContext, sectionNameKeyPath: "notebook.name", cacheName: nil)
/// controller.delegate = listScreen
/// try controller.performFetch()
/// let first = try controller.object(at: IndexPath(row: 0, section: 0))
/// ```
///
/// Use a controller on its context's queue only (the main queue for a main-queue context), as in Core
/// Data: it reads the context's objects and is told of changes there.
///
/// How it follows changes: on each objects-did-change notification of its context that names an object
/// of the request's entity (or after `reset()`), it runs the request again (one query, with the context's
/// unsaved changes laid over it, so limits and key paths through relationships come out right) and
/// compares the new results with the old. Core Data evaluates changed objects in memory instead; the
/// answers are the same, the cost here is a query per round of changes.
public class AnyFetchedResultsController {
  /// The context the results come from.
  public let managedObjectContext: NSManagedObjectContext
  /// The key path whose value names each object's section (`nil`: one section holding everything).
  public let sectionNameKeyPath: String?
  /// Core Data's name for an on-disk cache of the sections. Accepted and kept; there is no cache here
  /// (the sections are worked out from the results each time, which is fast in memory).
  public let cacheName: String?
  /// Told of each round of changes, on the context's queue.
  public weak var delegate: (any NSFetchedResultsControllerDelegate)?
  /// The sections, in order; `nil` before ``performFetch()``.
  public private(set) var sections: [FetchedResultsSection]?
  /// The error of the last attempt to follow a change, if it failed (the results then stay as they were;
  /// the next change or ``performFetch()`` tries again). `nil` when all is well.
  public private(set) var changeTrackingError: (any Error)?

  private let entityName: String
  private let fetch: () throws -> [NSManagedObject]
  private let checkRequest: () throws -> Void
  private var observer: (any NSObjectProtocol)?
  private var isFetching = false

  init(
    context: NSManagedObjectContext, entityName: String, sectionNameKeyPath: String?, cacheName: String?,
    checkRequest: @escaping () throws -> Void, fetch: @escaping () throws -> [NSManagedObject]
  ) {
    managedObjectContext = context
    self.entityName = entityName
    self.sectionNameKeyPath = sectionNameKeyPath
    self.cacheName = cacheName
    self.checkRequest = checkRequest
    self.fetch = fetch
  }

  deinit {
    if let observer { NotificationCenter.default.removeObserver(observer) }
  }

  /// Runs the request and starts following the context's changes.
  /// - Throws: ``ObjectGraphInvalidValueError`` for a request without sort descriptors (Core Data
  ///   requires them too) or whose order scatters a section (sort by the section key path first), and
  ///   whatever the fetch throws.
  public func performFetch() throws {
    try checkRequest()
    isFetching = true
    defer { isFetching = false }
    let fetched = try managedObjectContext.performAndWait { try fetch() }
    sections = try makeSections(fetched)
    changeTrackingError = nil
    if observer == nil { startObserving() }
  }

  /// The index path of `object` in the results, or `nil` when it is not among them.
  public func indexPath(forObject object: NSManagedObject) -> IndexPath? {
    guard let sections else { return nil }
    for (sectionIndex, section) in sections.enumerated() {
      if let row = section.objects.firstIndex(where: { $0 === object }) { return IndexPath(row: row, section: sectionIndex) }
    }
    return nil
  }

  /// The index titles of the sections, each once, in order.
  public var sectionIndexTitles: [String] {
    var seen: Set<String> = []
    return (sections ?? []).compactMap(\.indexTitle).filter { seen.insert($0).inserted }
  }

  /// The index of the first section whose index title is `title` (or `index`'s section when none is).
  public func section(forSectionIndexTitle title: String, at index: Int) -> Int {
    sections?.firstIndex { $0.indexTitle == title } ?? index
  }

  /// The object at an index path of the results.
  /// - Throws: ``ObjectGraphInvalidValueError`` for an index path outside the results (Core Data
  ///   raises an exception; a thrown error lets a list survive a stale index path).
  func anyObject(at indexPath: IndexPath) throws -> NSManagedObject {
    guard let sections else {
      throw ObjectGraphError(.invalidValue, "The fetched results controller has no results yet: call performFetch() first.")
    }
    guard indexPath.count == 2, sections.indices.contains(indexPath.section),
      sections[indexPath.section].objects.indices.contains(indexPath.row)
    else {
      let sizes = sections.map { String($0.numberOfObjects) }.joined(separator: ", ")
      throw ObjectGraphError(
        .invalidValue, "Index path \(indexPath) is outside the results: \(sections.count) section(s) holding \(sizes) object(s).")
    }
    return sections[indexPath.section].objects[indexPath.row]
  }

  // MARK: - Sections

  /// The results cut into sections by the section key path's value, which must come in runs.
  private func makeSections(_ objects: [NSManagedObject]) throws -> [FetchedResultsSection] {
    guard let sectionNameKeyPath else {
      return [FetchedResultsSection(name: "", indexTitle: nil, objects: objects)]
    }
    let path = sectionNameKeyPath.split(separator: ".").map(String.init)
    var sections: [FetchedResultsSection] = []
    var names: Set<String> = []
    var current: (name: String, objects: [NSManagedObject])?
    func close() {
      guard let current else { return }
      let title = current.name.first.map { String($0).uppercased() }
      sections.append(FetchedResultsSection(name: current.name, indexTitle: title, objects: current.objects))
    }
    for object in objects {
      let name = Self.sectionName(try InMemorySort.sortValue(object, path))
      if current?.name == name {
        current?.objects.append(object)
        continue
      }
      guard names.insert(name).inserted else {
        throw ObjectGraphError(
          .invalidValue,
          "Section '\(name)' of the fetched results comes back in several runs: the results are not ordered by '\(sectionNameKeyPath)'. Make the request's first sort descriptor sort by the section key path."
        )
      }
      close()
      current = (name, [object])
    }
    close()
    return sections
  }

  /// A section's name for a key path's value: text as it is, other values as they print, `""` for `nil`.
  private static func sectionName(_ value: PredicateValue) -> String {
    switch value {
    case .null: ""
    case .string(let text): text
    case .integer(let number): String(number)
    case .double(let number): String(number)
    case .bool(let flag): flag ? "1" : "0"
    case .date(let date): date.description
    case .decimal(let number): number.description
    case .uuid(let uuid): uuid.uuidString
    case .url(let url): url.absoluteString
    case .objectID(let id): id.uriRepresentation().absoluteString
    case .data, .collection, .entity: value.predicateFormat
    }
  }

  // MARK: - Following changes

  /// Holds the controller for the notification closure without keeping it alive.
  ///
  /// `@unchecked Sendable`: the closure runs where the context posts objects-did-change, and the context
  /// posts it only on its own queue (inside `perform`, `performAndWait` or a call made there). The
  /// controller is used only on that queue too (its documented rule, Core Data's), so the reference is
  /// never read and acted on from two threads at once; `weak` loads are themselves thread-safe.
  private final class WeakReference: @unchecked Sendable {
    weak var controller: AnyFetchedResultsController?
    init(_ controller: AnyFetchedResultsController) { self.controller = controller }
  }

  private func startObserving() {
    let reference = WeakReference(self)
    observer = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.didChangeObjectsNotification, object: managedObjectContext, queue: nil
    ) { notification in
      reference.controller?.contextDidChange(notification)
    }
  }

  private func contextDidChange(_ notification: Notification) {
    // A notification the controller's own fetch causes (a refetch refreshing objects) is not a change
    // to follow.
    guard !isFetching, let oldSections = sections else { return }
    let info = notification.userInfo ?? [:]
    let key = NSManagedObjectContext.NotificationKey.self
    let sets = [key.insertedObjects, key.updatedObjects, key.deletedObjects, key.refreshedObjects].map {
      info[$0.rawValue] as? Set<NSManagedObject> ?? []
    }
    let invalidatedAll = info[key.invalidatedAllObjects.rawValue] as? Bool ?? false
    guard let entity = managedObjectContext.persistentStoreCoordinator?.managedObjectModel.entitiesByName[entityName] else {
      return
    }
    let relevant = invalidatedAll || sets.contains { $0.contains { $0.entity.isKind(of: entity) } }
    guard relevant else { return }

    let newSections: [FetchedResultsSection]
    do {
      isFetching = true
      defer { isFetching = false }
      newSections = try makeSections(try fetch())
    } catch {
      changeTrackingError = error
      return
    }
    changeTrackingError = nil
    let changed = Set((sets[1].union(sets[3])).map(ObjectIdentifier.init))
    let report = Self.changes(from: oldSections, to: newSections, changed: changed, everything: invalidatedAll)
    sections = newSections
    guard !report.isEmpty, let delegate else { return }
    delegate.controllerWillChangeContent(self)
    for change in report.sections {
      delegate.controller(self, didChange: change.section, atSectionIndex: change.index, for: change.type)
    }
    for change in report.objects {
      delegate.controller(self, didChange: change.object, at: change.from, for: change.type, newIndexPath: change.to)
    }
    delegate.controllerDidChangeContent(self)
  }

  /// What a round of changes did to the sections and objects.
  struct Report {
    var sections: [(section: FetchedResultsSection, index: Int, type: NSFetchedResultsChangeType)] = []
    var objects: [(object: NSManagedObject, from: IndexPath?, type: NSFetchedResultsChangeType, to: IndexPath?)] = []
    var isEmpty: Bool { sections.isEmpty && objects.isEmpty }
  }

  /// Compares two sets of sections: sections that went and came (by name), objects that left, arrived,
  /// moved (changed and now elsewhere, or now in another section) or were updated in place (changed, same
  /// place). Objects that only shifted because others came or went are not reported, as in Core Data.
  /// After a reset (`everything`), every object still there counts as changed.
  static func changes(
    from old: [FetchedResultsSection], to new: [FetchedResultsSection], changed: Set<ObjectIdentifier>, everything: Bool
  ) -> Report {
    var report = Report()
    let oldNames = Set(old.map(\.name))
    let newNames = Set(new.map(\.name))
    for (index, section) in old.enumerated() where !newNames.contains(section.name) {
      // The section as it is now, gone: no objects (Core Data's section info of a deleted section).
      report.sections.append((FetchedResultsSection(name: section.name, indexTitle: section.indexTitle, objects: []), index, .delete))
    }
    for (index, section) in new.enumerated() where !oldNames.contains(section.name) {
      report.sections.append((section, index, .insert))
    }
    func positions(_ sections: [FetchedResultsSection]) -> [ObjectIdentifier: (NSManagedObject, IndexPath)] {
      var result: [ObjectIdentifier: (NSManagedObject, IndexPath)] = [:]
      for (sectionIndex, section) in sections.enumerated() {
        for (row, object) in section.objects.enumerated() {
          result[ObjectIdentifier(object)] = (object, IndexPath(row: row, section: sectionIndex))
        }
      }
      return result
    }
    let before = positions(old)
    let after = positions(new)
    for (sectionIndex, section) in old.enumerated() {
      for (row, object) in section.objects.enumerated() where after[ObjectIdentifier(object)] == nil {
        report.objects.append((object, IndexPath(row: row, section: sectionIndex), .delete, nil))
      }
    }
    var moves: [(object: NSManagedObject, from: IndexPath?, type: NSFetchedResultsChangeType, to: IndexPath?)] = []
    var updates: [(object: NSManagedObject, from: IndexPath?, type: NSFetchedResultsChangeType, to: IndexPath?)] = []
    for (sectionIndex, section) in new.enumerated() {
      for (row, object) in section.objects.enumerated() {
        let here = IndexPath(row: row, section: sectionIndex)
        guard let (_, there) = before[ObjectIdentifier(object)] else {
          report.objects.append((object, nil, .insert, here))
          continue
        }
        // An object now in another section moved, whatever its index path (section B at 1 deleted and C
        // inserted at 1: its old and new index paths are equal), and whether or not it changed itself (its
        // section may follow a related object): reporting it in place would leave it in a deleted section.
        if old[there.section].name != section.name {
          moves.append((object, there, .move, here))
          continue
        }
        guard everything || changed.contains(ObjectIdentifier(object)) else { continue }
        if there != here {
          moves.append((object, there, .move, here))
        } else {
          updates.append((object, there, .update, nil))
        }
      }
    }
    report.objects += moves + updates
    return report
  }
}
