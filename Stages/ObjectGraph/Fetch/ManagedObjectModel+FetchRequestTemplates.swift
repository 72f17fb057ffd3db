import Foundation

/// What a template set in code keeps of its request beyond the flags ``FetchRequestTemplate`` holds: its
/// predicate (parsed on the caller's queue, or why it cannot be), its sort descriptors, offset and result type.
struct FetchRequestTemplateRequest: Sendable {
  var predicate: FetchPredicate.Parsed?
  var sortDescriptors: Result<[FetchSortDescriptor], ObjectGraphError>?
  var fetchOffset: Int
  var resultType: NSFetchRequestResultType
  var relationshipKeyPathsForPrefetching: [String]
  var shouldRefreshRefetchedObjects: Bool
}

/// Fetch request templates: requests stored in the model by name, from Xcode's model editor or set in code,
/// with `$VARIABLE`s filled in when a request is made of one.
///
/// ```swift
/// // In Xcode: a template "notesLongerThan" of Note, predicate "wordCount > $minimum".
/// let request = model.fetchRequestFromTemplate(withName: "notesLongerThan",
///                                              substitutionVariables: ["minimum": 100])!
/// let notes = try context.fetch(request)
/// ```
extension NSManagedObjectModel {
  /// The model's fetch request templates by name, each as a new `NSFetchRequest`: Core Data's
  /// `fetchRequestTemplatesByName`.
  ///
  /// A template whose predicate holds `$VARIABLE`s is for
  /// ``fetchRequestFromTemplate(withName:substitutionVariables:)``: fetching with it as it is throws, naming the
  /// variables. Each request is a copy (Core Data hands out its own): changing it does not change the template;
  /// ``setFetchRequestTemplate(_:forName:)`` does.
  public var fetchRequestTemplatesByName: [String: NSFetchRequest<any NSFetchRequestResult>] {
    Dictionary(
      fetchRequestTemplates.map { ($0.name, Self.request(of: $0)) }, uniquingKeysWith: { first, _ in first })
  }

  /// The fetch request template named `name`, as a new `NSFetchRequest`, or `nil` when the model has none of
  /// that name: Core Data's `fetchRequestTemplate(forName:)`.
  ///
  /// For a template with `$VARIABLE`s use ``fetchRequestFromTemplate(withName:substitutionVariables:)``, as
  /// Apple advises. The request is a copy: changing it does not change the template.
  public func fetchRequestTemplate(forName name: String) -> NSFetchRequest<any NSFetchRequestResult>? {
    fetchRequestTemplates.first { $0.name == name }.map(Self.request(of:))
  }

  /// A copy of the template named `name` with its predicate's `$VARIABLE`s replaced by `variables`, as
  /// `NSPredicate.withSubstitutionVariables(_:)` replaces them; `nil` when the model has no template of that
  /// name: Core Data's `fetchRequestFromTemplate(withName:substitutionVariables:)`.
  ///
  /// ```swift
  /// let request = model.fetchRequestFromTemplate(withName: "byTitle", substitutionVariables: ["title": "Groceries"])
  /// ```
  ///
  /// `variables` must give a value for every variable of the template (extra ones are ignored). Where one is
  /// missing or of a kind predicates cannot hold, Core Data raises an exception; here the request's predicate
  /// keeps the message (`NSPredicate.formatError` reads it) and a fetch with the request throws it
  /// (``ObjectGraphPredicateSyntaxError``, ``ObjectGraphInvalidValueError``), naming the variable.
  public func fetchRequestFromTemplate(withName name: String, substitutionVariables variables: [String: Any])
    -> NSFetchRequest<any NSFetchRequestResult>?
  {
    guard let request = fetchRequestTemplate(forName: name) else { return nil }
    request.predicate = request.predicate?.withSubstitutionVariables(variables)
    return request
  }

  /// Stores `fetchRequestTemplate` in the model under `name`, replacing the template of that name; `nil`
  /// removes it: Core Data's `setFetchRequestTemplate(_:forName:)`.
  ///
  /// ```swift
  /// let byTitle = NSFetchRequest<any NSFetchRequestResult>(entityName: "Note")
  /// byTitle.predicate = NSPredicate(format: "title == $title")
  /// model.setFetchRequestTemplate(byTitle, forName: "byTitle")
  /// ```
  ///
  /// The model keeps a copy of the request as it is now: its entity, predicate (with its `$VARIABLE`s), sort
  /// descriptors, limits, batch size, offset, result type, prefetched key paths and flags (not
  /// `propertiesToFetch`, `propertiesToGroupBy` or `havingPredicate`, which Xcode's templates do not have either).
  /// A predicate or sort descriptor the engine cannot run (a block predicate) is kept as its error: a fetch with
  /// a request made of the template throws it. The template is written with the model where the engine writes
  /// models (a store's copy of its model), its predicate as its format.
  ///
  /// Like every change to a model, it stops the program once a coordinator uses the model (Core Data raises an
  /// exception: "This method raises an exception if the receiver has been used by an object graph manager").
  public func setFetchRequestTemplate(_ fetchRequestTemplate: NSFetchRequest<any NSFetchRequestResult>?, forName name: String) {
    storeTemplate(fetchRequestTemplate.map(Self.template(of:)), name: name)
  }

  /// ``setFetchRequestTemplate(_:forName:)`` for a request of a managed object class or another result type
  /// (`NSFetchRequest<Note>`), which Core Data's Objective-C generics let pass as
  /// `NSFetchRequest<NSFetchRequestResult>`; Swift on Linux cannot convert one generic class to the other.
  public func setFetchRequestTemplate<Result>(_ fetchRequestTemplate: NSFetchRequest<Result>?, forName name: String) {
    storeTemplate(fetchRequestTemplate.map(Self.template(of:)), name: name)
  }

  private func storeTemplate(_ template: ((String) -> FetchRequestTemplate)?, name: String) {
    var templates = fetchRequestTemplates.filter { $0.name != name }
    if let template {
      templates.append(template(name))
      templates.sort { $0.name < $1.name }
    }
    state.write(\.fetchRequestTemplates, templates, what: "the model's fetch request templates")
  }

  /// What the model keeps of `request`, once it is given a name.
  static func template<Result>(of request: NSFetchRequest<Result>) -> (String) -> FetchRequestTemplate {
    let predicate: FetchPredicate.Parsed? = request.predicate.map { predicate in
      Swift.Result { try FetchPredicate(predicate) }.mapError(ObjectGraphError.wrapping)
    }
    let sorts: Swift.Result<[FetchSortDescriptor], ObjectGraphError>? = request.sortDescriptors.map { descriptors in
      Swift.Result { try descriptors.map { try FetchSortDescriptor($0) } }.mapError(ObjectGraphError.wrapping)
    }
    let format = request.predicate.map { FetchPredicate.format(of: $0) }
    let kept = FetchRequestTemplateRequest(
      predicate: predicate, sortDescriptors: sorts, fetchOffset: request.fetchOffset, resultType: request.resultType,
      relationshipKeyPathsForPrefetching: request.relationshipKeyPathsForPrefetching,
      shouldRefreshRefetchedObjects: request.shouldRefreshRefetchedObjects)
    let entityName = request.entityName
    let flags = (
      request.fetchLimit, request.fetchBatchSize, request.includesSubentities, request.includesPropertyValues,
      request.includesPendingChanges, request.returnsObjectsAsFaults, request.returnsDistinctResults
    )
    return { name in
      var template = FetchRequestTemplate(name: name, entityName: entityName, predicateFormat: format)
      (
        template.fetchLimit, template.fetchBatchSize, template.includesSubentities, template.includesPropertyValues,
        template.includesPendingChanges, template.returnsObjectsAsFaults, template.returnsDistinctResults
      ) = flags
      template.request = kept
      return template
    }
  }

  /// A new request made of `template`.
  static func request(of template: FetchRequestTemplate) -> NSFetchRequest<any NSFetchRequestResult> {
    let request = NSFetchRequest<any NSFetchRequestResult>(entityName: template.entityName)
    request.fetchLimit = template.fetchLimit
    request.fetchBatchSize = template.fetchBatchSize
    request.includesSubentities = template.includesSubentities
    request.includesPropertyValues = template.includesPropertyValues
    request.includesPendingChanges = template.includesPendingChanges
    request.returnsObjectsAsFaults = template.returnsObjectsAsFaults
    request.returnsDistinctResults = template.returnsDistinctResults
    guard let kept = template.request as? FetchRequestTemplateRequest else {
      // Read from a model file: the predicate is its format (a format that does not parse keeps its error).
      request.predicate = template.predicateFormat.map { FormatPredicate(format: $0, arguments: []) }
      return request
    }
    request.fetchOffset = kept.fetchOffset
    request.resultType = kept.resultType
    request.relationshipKeyPathsForPrefetching = kept.relationshipKeyPathsForPrefetching
    request.shouldRefreshRefetchedObjects = kept.shouldRefreshRefetchedObjects
    switch kept.sortDescriptors {
    case nil: break
    case .success(let descriptors): request.sortDescriptors = descriptors.map { KeySortDescriptor($0) }
    case .failure(let error):
      // No NSSortDescriptor can carry an error: the predicate does, so a fetch throws it.
      request.predicate = FormatPredicate(parsed: .failure(error), format: template.predicateFormat ?? "")
      return request
    }
    request.predicate = kept.predicate.map { FormatPredicate(parsed: $0, format: template.predicateFormat ?? "") }
    return request
  }
}
