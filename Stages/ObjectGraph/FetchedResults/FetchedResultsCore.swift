import Foundation

/// What a fetched results controller is, shared by its typed form and the form its delegate is handed:
/// the request's results in sections, kept current as the context changes (its own edits, saves, merges
/// from other contexts, refreshes), and the delegate told what moved where.
///
/// ``NSFetchedResultsController`` is generic over its result type, and Swift's generics do not vary
/// (an `NSFetchedResultsController<Note>` is not an `NSFetchedResultsController<any NSFetchRequestResult>`),
/// so the controller you make and the one its delegate is handed are two fronts over this one core.
///
/// How it follows changes: on each objects-did-change notification of its context that names an object
/// of the request's entity (or after `reset()`), it runs the request again (one query, with the context's
/// unsaved changes laid over it, so limits and key paths through relationships come out right) and
/// compares the new results with the old. Core Data evaluates changed objects in memory instead; the
/// answers are the same, the cost here is a query per round of changes.
final class FetchedResultsCore {
  let managedObjectContext: NSManagedObjectContext
  let sectionNameKeyPath: String?
  let cacheName: String?
  weak var delegate: (any NSFetchedResultsControllerDelegate)?
  /// The controller the delegate is handed. The controller made by the public initializer holds it; held
  /// weakly here, as it holds this core.
  weak var delegateView: NSFetchedResultsController<any NSFetchRequestResult>?
  /// The controller made by the public initializer (maybe a subclass that overrides
  /// `sectionIndexTitle(forSectionName:)`). Weak: it holds this core.
  weak var owner: (any FetchedResultsOwner)?
  /// The sections, in order; `nil` before ``performFetch()``.
  private(set) var sections: [FetchedResultsSection]?
  /// ``sections`` as the public API hands them out, made once per change of the sections.
  private(set) var sectionInfos: [any NSFetchedResultsSectionInfo]?
  /// Counts the changes of ``sections``, so that a front can keep its typed objects until the next one.
  private(set) var generation = 0
  /// The error of the last attempt to follow a change, if it failed; `nil` when all is well.
  private(set) var changeTrackingError: (any Error)?
  /// Each object's index path, by identity (the sections hold the objects, so the keys stay valid);
  /// made by ``indexPath(forObject:)`` when first asked after a change.
  private var positions: [ObjectIdentifier: IndexPath]?

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
  func performFetch() throws {
    try checkRequest()
    isFetching = true
    defer { isFetching = false }
    let fetched = try managedObjectContext.performAndWait { try fetch() }
    setSections(try makeSections(fetched))
    changeTrackingError = nil
    if observer == nil { startObserving() }
  }

  /// Replaces the sections; `positions`, when the caller has them, are the new sections' index paths.
  private func setSections(_ new: [FetchedResultsSection], positions: [ObjectIdentifier: IndexPath]? = nil) {
    sections = new
    sectionInfos = new
    self.positions = positions
    generation &+= 1
  }

  /// The results in order across the sections; `nil` before ``performFetch()``.
  var objects: [NSManagedObject]? {
    sections.map { $0.flatMap(\.members) }
  }

  /// The index path of `object` in the results, or `nil` when it is not among them.
  func indexPath(forObject object: NSManagedObject) -> IndexPath? {
    guard let sections else { return nil }
    if let positions { return positions[ObjectIdentifier(object)] }
    // Built on first use after each change, so that a list asking for every row's path stays linear.
    let built = Self.positions(of: sections)
    positions = built
    return built[ObjectIdentifier(object)]
  }

  /// Each object's index path in `sections`, by identity.
  static func positions(of sections: [FetchedResultsSection]) -> [ObjectIdentifier: IndexPath] {
    var result: [ObjectIdentifier: IndexPath] = [:]
    for (sectionIndex, section) in sections.enumerated() {
      for (row, object) in section.members.enumerated() {
        result[ObjectIdentifier(object)] = IndexPath(row: row, section: sectionIndex)
      }
    }
    return result
  }

  /// The index titles of the sections, each once, in order.
  var sectionIndexTitles: [String] {
    var seen: Set<String> = []
    return (sections ?? []).compactMap(\.indexTitle).filter { seen.insert($0).inserted }
  }

  /// The index of the first section whose index title is `title` (or `index`'s section when none is).
  func section(forSectionIndexTitle title: String, at index: Int) -> Int {
    sections?.firstIndex { $0.indexTitle == title } ?? index
  }

  /// The object at an index path of the results. An index path outside them is a programmer error, as in
  /// Core Data (which raises an exception) and Swift's `Array`: the program stops, saying which index
  /// path and what the results hold.
  func object(at indexPath: IndexPath) -> NSManagedObject {
    guard let sections else {
      programmerError(
        "ObjectGraph: NSFetchedResultsController.object(at: \(indexPath)) was called before performFetch(): the controller has no results yet."
      )
    }
    guard indexPath.count == 2, sections.indices.contains(indexPath.section),
      sections[indexPath.section].members.indices.contains(indexPath.row)
    else {
      let sizes = sections.map { String($0.numberOfObjects) }.joined(separator: ", ")
      programmerError(
        "ObjectGraph: NSFetchedResultsController.object(at:): index path \(indexPath) is out of range: the results have \(sections.count) section(s) holding [\(sizes)] object(s)."
      )
    }
    return sections[indexPath.section].members[indexPath.row]
  }

  /// The default index title of a section: its name's first letter, capitalized (`nil` for an empty name).
  static func defaultIndexTitle(forSectionName name: String) -> String? {
    name.first.map { String($0).uppercased() }
  }

  /// A section's index title: the delegate's answer when there is a delegate (whose default asks the
  /// controller), else the controller's.
  private func indexTitle(forSectionName name: String) -> String? {
    if let delegate, let delegateView {
      return delegate.controller(delegateView, sectionIndexTitleForSectionName: name)
    }
    if let owner { return owner.sectionIndexTitle(forSectionName: name) }
    return Self.defaultIndexTitle(forSectionName: name)
  }

  // MARK: - Sections

  /// The results cut into sections by the section key path's value, which must come in runs.
  private func makeSections(_ objects: [NSManagedObject]) throws -> [FetchedResultsSection] {
    guard let sectionNameKeyPath else {
      return [FetchedResultsSection(name: "", indexTitle: nil, members: objects)]
    }
    let path = sectionNameKeyPath.split(separator: ".").map(String.init)
    var sections: [FetchedResultsSection] = []
    var names: Set<String> = []
    var current: (name: String, objects: [NSManagedObject])?
    func close() {
      guard let current else { return }
      let title = indexTitle(forSectionName: current.name)
      sections.append(FetchedResultsSection(name: current.name, indexTitle: title, members: current.objects))
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

  /// Holds the core for the notification closure without keeping it alive.
  ///
  /// `@unchecked Sendable`: the closure runs where the context posts objects-did-change, and the context
  /// posts it only on its own queue (inside `perform`, `performAndWait` or a call made there). The
  /// controller (and so its core) is used only on that queue too (its documented rule, Core Data's), so the reference is
  /// never read and acted on from two threads at once; `weak` loads are themselves thread-safe.
  private final class WeakReference: @unchecked Sendable {
    weak var core: FetchedResultsCore?
    init(_ core: FetchedResultsCore) { self.core = core }
  }

  private func startObserving() {
    let reference = WeakReference(self)
    observer = NotificationCenter.default.addObserver(
      forName: NSManagedObjectContext.didChangeObjectsNotification, object: managedObjectContext, queue: nil
    ) { notification in
      reference.core?.contextDidChange(notification)
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
    let report = Self.changes(
      from: oldSections, to: newSections, changed: changed, everything: invalidatedAll,
      knownPositions: positions)
    setSections(newSections, positions: report.positions)
    guard !report.isEmpty, let delegate, let view = delegateView else { return }
    if sectionNameKeyPath == nil {
      // A delegate that takes the round as one difference is told nothing else (Core Data's rule).
      let old = oldSections.flatMap(\.members).map(\.objectID)
      let new = newSections.flatMap(\.members).map(\.objectID)
      let difference = new.difference(from: old).inferringMoves()
      let implemented = !DifferenceDelegateDefault.defaultRan {
        delegate.controller(view, didChangeContentWith: difference)
      }
      if implemented { return }
    }
    delegate.controllerWillChangeContent(view)
    for change in report.sections {
      delegate.controller(view, didChange: change.section, atSectionIndex: change.index, for: change.type)
    }
    for change in report.objects {
      delegate.controller(view, didChange: change.object, at: change.from, for: change.type, newIndexPath: change.to)
    }
    delegate.controllerDidChangeContent(view)
  }

  /// What a round of changes did to the sections and objects.
  struct Report {
    var sections: [(section: FetchedResultsSection, index: Int, type: NSFetchedResultsChangeType)] = []
    var objects: [(object: NSManagedObject, from: IndexPath?, type: NSFetchedResultsChangeType, to: IndexPath?)] = []
    /// Each object's index path in the new sections (kept as the controller's ``positions``).
    var positions: [ObjectIdentifier: IndexPath] = [:]
    var isEmpty: Bool { sections.isEmpty && objects.isEmpty }
  }

  /// Compares two sets of sections: sections that went and came (by name), objects that left, arrived,
  /// moved (changed and now elsewhere, or now in another section) or were updated in place (changed, same
  /// place). Objects that only shifted because others came or went are not reported, as in Core Data.
  /// After a reset (`everything`), every object still there counts as changed. `knownPositions`, when
  /// given, are `old`'s index paths, already made.
  static func changes(
    from old: [FetchedResultsSection], to new: [FetchedResultsSection], changed: Set<ObjectIdentifier>, everything: Bool,
    knownPositions: [ObjectIdentifier: IndexPath]? = nil
  ) -> Report {
    var report = Report()
    let oldNames = Set(old.map(\.name))
    let newNames = Set(new.map(\.name))
    for (index, section) in old.enumerated() where !newNames.contains(section.name) {
      // The section as it is now, gone: no objects (Core Data's section info of a deleted section).
      report.sections.append((FetchedResultsSection(name: section.name, indexTitle: section.indexTitle, members: []), index, .delete))
    }
    for (index, section) in new.enumerated() where !oldNames.contains(section.name) {
      report.sections.append((section, index, .insert))
    }
    let before = knownPositions ?? positions(of: old)
    let after = positions(of: new)
    report.positions = after
    for (sectionIndex, section) in old.enumerated() {
      for (row, object) in section.members.enumerated() where after[ObjectIdentifier(object)] == nil {
        report.objects.append((object, IndexPath(row: row, section: sectionIndex), .delete, nil))
      }
    }
    var moves: [(object: NSManagedObject, from: IndexPath?, type: NSFetchedResultsChangeType, to: IndexPath?)] = []
    var updates: [(object: NSManagedObject, from: IndexPath?, type: NSFetchedResultsChangeType, to: IndexPath?)] = []
    for (sectionIndex, section) in new.enumerated() {
      for (row, object) in section.members.enumerated() {
        let here = IndexPath(row: row, section: sectionIndex)
        guard let there = before[ObjectIdentifier(object)] else {
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
