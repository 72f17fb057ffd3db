import Foundation

/// A description of what to fetch: an entity, a predicate, an order, limits, and what to return.
///
/// ```swift
/// let request = NSFetchRequest<Note>(entityName: "Note")
/// request.predicate = NSPredicate(format: "title BEGINSWITH[c] %@", "shop")
/// request.sortDescriptors = [NSSortDescriptor(key: "createdAt", ascending: false)]
/// request.fetchLimit = 20
/// let notes = try context.fetch(request)
/// ```
///
/// `Result` says what comes back: managed objects (`NSFetchRequest<Note>`), their IDs
/// (`NSFetchRequest<NSManagedObjectID>`), dictionaries of chosen properties (`NSFetchRequest<NSDictionary>` or
/// `NSFetchRequest<[String: Any]>`, with ``propertiesToFetch``), or a count (`NSFetchRequest<NSNumber>`).
/// ``resultType`` starts out matching `Result`, so, unlike Core Data, it needs no setting.
///
/// `NSFetchRequest<NSFetchRequestResult>` (what `NSManagedObject.fetchRequest()` returns, and what code
/// written for Core Data uses for dictionary fetches and batch deletes) returns what its ``resultType`` says,
/// managed objects by default, through `NSManagedObjectContext.fetch(_:)`
/// as `[Any]`, as Core Data's does:
///
/// ```swift
/// let request = NSFetchRequest<NSFetchRequestResult>(entityName: "Note")
/// request.resultType = .dictionaryResultType
/// request.propertiesToFetch = ["title"]
/// let rows = try context.fetch(request) as? [[String: Any]]
/// ```
///
/// `Result` is not constrained to ``NSFetchRequestResult`` (Core Data's is): Swift on Linux cannot let the
/// protocol `any NSFetchRequestResult` stand for a type that conforms to it, which Objective-C protocols do
/// on Apple platforms. A request of another type (`NSFetchRequest<Int>`) can be made but no fetch takes it.
///
/// ```swift
/// let perNotebook = NSFetchRequest<NSDictionary>(entityName: "Note")
/// let count = NSExpressionDescription(name: "count", expression: NSExpression(forFunction: "count:",
///   arguments: [NSExpression(forKeyPath: "title")]), expressionResultType: .integer64)
/// perNotebook.propertiesToFetch = ["notebook.name", count]
/// perNotebook.propertiesToGroupBy = ["notebook.name"]
/// perNotebook.havingPredicate = NSPredicate(format: "$count > 10")
/// ```
///
/// Like Core Data's `NSFetchRequest` it is a mutable reference type; build it on the queue that uses it.
public final class NSFetchRequest<Result>: NSObject {
  /// The entity to fetch, by name (its subentities too, when ``includesSubentities``).
  public var entityName: String {
    didSet { if entityName != storedEntity?.name { storedEntity = nil } }
  }
  private var storedEntity: NSEntityDescription?
  /// The entity to fetch, as Core Data's `entity` property: setting it sets ``entityName`` to its name.
  /// It is `nil` until it is set (or the request is made with ``init(entity:)``); a request made by name
  /// fetches the entity of that name in the context's model.
  ///
  /// ```swift
  /// let request = NSFetchRequest<Note>()
  /// request.entity = Note.entity()
  /// ```
  public var entity: NSEntityDescription? {
    get { storedEntity }
    set {
      storedEntity = newValue
      if let newValue { entityName = newValue.entityName }
    }
  }
  /// Which objects to return; `nil` returns all. Any `NSPredicate`: from `NSPredicate(format:)`,
  /// `NSComparisonPredicate`, `NSCompoundPredicate` of those, or `NSPredicate(value:)`; it is read when the
  /// fetch runs, so a format that did not parse throws then.
  public var predicate: NSPredicate?
  /// The order of the results; `nil` or empty means the store's order (by primary key).
  public var sortDescriptors: [NSSortDescriptor]?
  /// At most this many results; 0 means no limit.
  public var fetchLimit = 0
  /// Skip this many results first.
  public var fetchOffset = 0
  /// When above 0, only IDs are read at first; each object's values are read with the rest of its batch
  /// the first time one of them is touched. Use it for large results you may not read whole.
  public var fetchBatchSize = 0
  /// Whether unsaved changes in the context count: inserted objects that match are returned, deleted ones
  /// are not, and changed ones are matched on their current values. Default `true`.
  public var includesPendingChanges = true
  /// Whether the objects come back as faults (values cached, `isFault` true until first touched) or fully
  /// realised (`awakeFromFetch()` already run). Default `true`, as in Core Data.
  public var returnsObjectsAsFaults = true
  /// Relationship key paths whose destinations are read in the same fetch (one query per key path,
  /// instead of one per object when each relationship is first touched).
  public var relationshipKeyPathsForPrefetching: [String] = []
  /// Whether instances of subentities are returned too. Default `true`.
  public var includesSubentities = true
  /// The stores named by `affectedStores` (declared with the coordinator, whose layer knows stores), `nil` for all.
  var storeSelection: [AnyObject]? { didSet { storeIdentities = storeSelection?.map(ObjectIdentifier.init) } }
  /// Their identities, as a plan carries them (a parent context's request made from a plan has only these).
  var storeIdentities: [ObjectIdentifier]?
  /// What the fetch returns. It starts as what `Result` calls for (see ``NSFetchRequestResultType``); a
  /// result type that does not fit `Result` is refused when the fetch runs.
  public var resultType: NSFetchRequestResultType
  /// Whether objects are fetched with their values. With `false`, objects come back as faults holding
  /// nothing, and each reads its row when first touched: for when you only need identities or will
  /// touch few of them. Default `true`. (IDs-only and count fetches never read values.)
  public var includesPropertyValues = true
  /// For dictionary results: the columns each dictionary holds, by name or key path (`"title"`,
  /// `"notebook.name"`; a to-one relationship gives its destination's ``NSManagedObjectID``), attribute or
  /// relationship description, or ``NSExpressionDescription``. `nil` fetches every attribute.
  public var propertiesToFetch: [any FetchPropertySpecifier]?
  /// For dictionary results: the columns to group rows by (`GROUP BY`). Every column fetched must then
  /// be grouped or be an aggregate expression.
  public var propertiesToGroupBy: [any FetchPropertySpecifier]?
  /// For grouped dictionary results: which groups to keep (`HAVING`). Grouped key paths are named as
  /// usual, expressions by their name as a variable: `$count > 10`.
  public var havingPredicate: NSPredicate?
  /// For dictionary results: whether duplicate dictionaries are dropped (`SELECT DISTINCT`). Default
  /// `false`; as in Core Data, it has no effect on other result types.
  public var returnsDistinctResults = false
  /// Whether objects the context already holds take the values the fetch reads. Default `false`.
  ///
  /// With `false`, as in Core Data, an object you are already using keeps the values it shows, even when
  /// the store's row has changed since; a fault that has not fired yet does take the row just read. With
  /// `true`, every fetched object takes the row's current values, with its unsaved changes kept on top (as
  /// `refresh(_:mergeChanges: true)` does, for all the results in one query), and the context posts its
  /// objects-did-change notification with them under `refreshedObjects`.
  public var shouldRefreshRefetchedObjects = false

  /// Makes a request for an entity, by name.
  public init(entityName: String) {
    self.entityName = entityName
    resultType = .natural(for: Result.self)
    super.init()
    FetchRequestArchiving.register()
  }

  /// The class an archive names for a request (`FetchRequest+Coding.swift`): Linux's `NSKeyedArchiver` cannot
  /// name a generic class, so every request is archived under one plain class's name, which unarchives as an
  /// `NSFetchRequest<any NSFetchRequestResult>`.
  public override var classForKeyedArchiver: AnyClass? { ArchivedFetchRequest.self }

  /// Makes a request for an entity.
  public convenience init(entity: NSEntityDescription) {
    self.init(entityName: entity.entityName)
    self.entity = entity
  }

  /// Makes a request without an entity yet, as ported code writes `NSFetchRequest<Note>()` before setting
  /// ``entity``. Until an entity is set, ``entityName`` is the name of `Result`'s class, so a request for
  /// a managed object subclass fetches the entity named like it.
  public override convenience init() {
    self.init(entityName: String(describing: Result.self))
  }
}

extension NSFetchRequest {
  /// ``predicate`` as the engine runs it, read on the caller's queue.
  /// - Throws: what ``NSPredicate/init(_:)`` throws.
  func fetchPredicate() throws -> FetchPredicate? {
    try predicate.map { try FetchPredicate($0) }
  }

  /// ``sortDescriptors`` as the engine runs them.
  func fetchSortDescriptors() throws -> [FetchSortDescriptor] {
    try (sortDescriptors ?? []).map { try FetchSortDescriptor($0) }
  }

  /// ``havingPredicate`` as the engine runs it.
  func fetchHavingPredicate() throws -> FetchPredicate? {
    try havingPredicate.map { try FetchPredicate($0) }
  }
}

/// A fetch request is a persistent store request, as Core Data's `NSFetchRequest` is an
/// `NSPersistentStoreRequest`.
extension NSFetchRequest: NSPersistentStoreRequest {
  /// The kind of request: `.fetchRequestType`.
  public var requestType: NSPersistentStoreRequestType { .fetchRequestType }
}
