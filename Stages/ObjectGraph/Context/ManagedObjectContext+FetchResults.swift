import Foundation

/// The result types of a fetch other than managed objects: IDs and dictionaries (a count is
/// ``NSManagedObjectContext/count(for:)``'s).
extension NSManagedObjectContext {
  /// The IDs of the objects a request matches.
  ///
  /// With no unsaved change touching the entity, only IDs are read and no object is made. Otherwise the
  /// objects are fetched (as faults without values) so that the changes count as they would for objects:
  /// inserted objects that match give their (temporary) IDs, deleted ones are left out.
  func fetchObjectIDs<Result>(_ request: NSFetchRequest<Result>, _ confined: Confined) throws -> [NSManagedObjectID] {
    let entity = try entity(named: request.entityName)
    let store = try readableStore()
    propagateDeletes(confined)
    if (request.includesPendingChanges && hasPendingChanges(for: entity, confined)) || store.spansSeveralStores {
      let plain = NSFetchRequest<NSManagedObject>(entityName: request.entityName)
      plain.predicate = request.predicate
      plain.sortDescriptors = request.sortDescriptors
      plain.fetchLimit = request.fetchLimit
      plain.fetchOffset = request.fetchOffset
      plain.includesSubentities = request.includesSubentities
      plain.storeIdentities = request.storeIdentities
      plain.includesPendingChanges = request.includesPendingChanges
      plain.includesPropertyValues = false
      return try fetchObjects(plain, confined).map(\.objectID)
    }
    var ids: [NSManagedObjectID] = []
    try store.fetch(plan(for: request, entity: entity, unbounded: false).with(idsOnly: true)) { ids.append($0.id) }
    return ids
  }

  /// The rows of a dictionary fetch, read from the persistent store as it is.
  func fetchDictionaries<Result>(_ request: NSFetchRequest<Result>) throws -> StoreDictionaryRows {
    let entity = try entity(named: request.entityName)
    let store = try readableStore()
    // Across stores the limit and offset apply to the whole, after ordering: asked of no single store.
    let multiStore = store.spansSeveralStores
    let rows = try plan(for: request, entity: entity, unbounded: multiStore)
    let columns =
      request.propertiesToFetch?.map(\.fetchColumn)
      ?? entity.layout.slots.filter { !$0.isTransient && ($0.attribute != nil || ($0.isRelationship && !$0.isToMany)) }.map {
        FetchColumn(kind: .keyPath($0.name))
      }
    guard !columns.isEmpty else {
      throw ObjectGraphError(.invalidValue, "A dictionary fetch of \(entity.entityName) has no properties to fetch.")
    }
    let plan = StoreDictionaryPlan(
      rows: rows, columns: columns, groupBy: request.propertiesToGroupBy?.map(\.fetchColumn) ?? [],
      having: try request.fetchHavingPredicate()?.resolvedNode, distinct: request.returnsDistinctResults)
    let fetched = try store.fetchDictionaries(plan)
    guard multiStore else { return fetched }
    return try fetched.merged(
      sortedBy: fetched.fromSeveralStores ? rows.sortDescriptors : [], distinct: fetched.fromSeveralStores && plan.distinct,
      offset: request.fetchOffset, limit: request.fetchLimit, entity: entity)
  }

  /// `values` as the request's `Result`s.
  /// - Throws: ``ObjectGraphInvalidValueError`` when `Result` does not fit the result type.
  func results<Value, Result>(_ values: [Value], of request: NSFetchRequest<Result>) throws -> [Result] {
    if let results = values as? [Result] { return results }
    let what =
      switch request.resultType {
      case .managedObjectResultType: "managed objects"
      case .managedObjectIDResultType: "ManagedObjectIDs"
      case .dictionaryResultType: "dictionaries (NSDictionary or [String: Any])"
      case .countResultType: "one NSNumber"
      default: "nothing (it is not one of the four result types)"
      }
    throw resultTypeMismatch(request, returns: what)
  }

  /// The error for a result type that is none of Core Data's four (an option set lets code combine them).
  func unknownResultType<Result>(_ request: NSFetchRequest<Result>) -> ObjectGraphError {
    ObjectGraphError(
      .invalidValue,
      "NSFetchRequest<\(Result.self)> for \(request.entityName) has resultType \(request.resultType.name), which is none of .managedObjectResultType, .managedObjectIDResultType, .dictionaryResultType and .countResultType. Set one of them; they are not combined."
    )
  }

  func resultTypeMismatch<Result>(_ request: NSFetchRequest<Result>, returns what: String) -> ObjectGraphError {
    ObjectGraphError(
      .invalidValue,
      "NSFetchRequest<\(Result.self)> for \(request.entityName) has resultType .\(request.resultType.name), which returns \(what), not \(Result.self)s. Declare the request with the type its result type returns (NSFetchRequest<NSManagedObjectID> for IDs, NSFetchRequest<NSDictionary> for dictionaries, NSFetchRequest<NSNumber> for a count), or leave resultType as the request's type sets it."
    )
  }
}

extension StoreDictionaryRows {
  /// The rows of several stores as one result: ordered by `descriptors` (each must name a fetched column),
  /// without repeated rows when `distinct`, then cut by `offset` and `limit` (0: no limit).
  /// - Throws: ``ObjectGraphUnknownKeyError`` for a sort key that is not among the fetched columns: rows from
  ///   several stores are ordered by what they hold.
  func merged(
    sortedBy descriptors: [FetchSortDescriptor], distinct: Bool, offset: Int, limit: Int, entity: NSEntityDescription
  ) throws -> StoreDictionaryRows {
    let width = names.count
    var rows = (0..<count).map { Array(values[$0 * width..<($0 + 1) * width]) }
    if distinct {
      var seen = Set<[AnyHashable?]>()
      rows = rows.filter { row in seen.insert(row.map { $0?.swiftValue as? AnyHashable }).inserted }
    }
    if !descriptors.isEmpty {
      let columns = try descriptors.map { descriptor -> Int in
        guard let column = names.firstIndex(of: descriptor.key) else {
          throw ObjectGraphError(
            .unknownKey,
            "A dictionary fetch of \(entity.entityName) from several stores is sorted by '\(descriptor.key)', which is not among its properties to fetch (\(names.joined(separator: ", "))): the rows of several stores are ordered by what they hold. Fetch '\(descriptor.key)' too, or set affectedStores to one store."
          )
        }
        return column
      }
      rows = rows.enumerated().sorted { lhs, rhs in
        for (descriptor, column) in zip(descriptors, columns) {
          let order = InMemorySort.compare(
            NSManagedObject.predicateValue(lhs.element[column]), NSManagedObject.predicateValue(rhs.element[column]),
            descriptor.comparison)
          if order != 0 { return descriptor.ascending ? order < 0 : order > 0 }
        }
        return lhs.offset < rhs.offset
      }.map(\.element)
    }
    let window = rows.dropFirst(offset).prefix(limit > 0 ? limit : Int.max)
    return StoreDictionaryRows(names: names, values: window.flatMap { $0 })
  }

  /// A dictionary value as Core Data hands it out: numbers as `NSNumber`, a to-one as its object's ID.
  private static func boxed(_ value: StoredValue) -> Any? {
    guard let value else { return nil }
    return if case .objectID(let id) = value { id } else { value.boxedValue }
  }

  /// The rows as Swift dictionaries. Each starts as a copy of one dictionary that already holds every key,
  /// whose values are then replaced through the template's indexes: no key is hashed for a row. A `nil`
  /// value leaves its key out.
  func dictionaries() -> [[String: Any]] {
    var template: [String: Any] = [:]
    template.reserveCapacity(names.count)
    for name in names { template[name] = 0 }
    var result: [[String: Any]] = []
    result.reserveCapacity(count)
    guard template.count == names.count else {
      // A name given twice: set key by key, so the last column of a name wins.
      for row in 0..<count {
        var dictionary: [String: Any] = [:]
        for column in names.indices { dictionary[names[column]] = Self.boxed(values[row * names.count + column]) }
        result.append(dictionary)
      }
      return result
    }
    let positions = names.map { template.index(forKey: $0) }
    var missing: [String] = []
    for row in 0..<count {
      var dictionary = template
      for column in names.indices {
        if let value = Self.boxed(values[row * names.count + column]), let position = positions[column] {
          dictionary.values[position] = value
        } else {
          missing.append(names[column])
        }
      }
      // Removing a key may move others, so the keys of nil values go once every value is set.
      for name in missing { dictionary[name] = nil }
      missing.removeAll(keepingCapacity: true)
      result.append(dictionary)
    }
    return result
  }

  /// The rows as `NSDictionary`s, as Core Data's dictionary results are. The keys are made `NSString`s once
  /// for every row.
  ///
  /// A row of strings, numbers and dates (the usual kinds) is handed to `NSDictionary`'s designated
  /// initializer as the objects Foundation would store for them (`NSString`, `NSNumber`, `NSDate`), made
  /// here: no array of `Any` to bridge value by value, which costs Foundation on Linux a third of the
  /// dictionary. A row holding any other kind (an object ID, data, a boxed value) is bridged by
  /// `NSDictionary(objects:forKeys:)` itself, as before; both give the same dictionary.
  func bridgedDictionaries() -> [NSDictionary] {
    let keys = names.map { NSString(string: $0) as NSObject }
    let width = names.count
    var result: [NSDictionary] = []
    result.reserveCapacity(count)
    var rowKeys: [NSObject] = []
    var rowObjects: [AnyObject] = []
    rowKeys.reserveCapacity(width)
    rowObjects.reserveCapacity(width)
    for row in 0..<count {
      rowKeys.removeAll(keepingCapacity: true)
      rowObjects.removeAll(keepingCapacity: true)
      var plain = true
      for column in 0..<width {
        guard let value = values[row * width + column] else { continue }
        guard let object = Self.foundationObject(value) else {
          plain = false
          break
        }
        rowKeys.append(keys[column])
        rowObjects.append(object)
      }
      if plain {
        let dictionary = rowObjects.withUnsafeBufferPointer { objects in
          rowKeys.withUnsafeBufferPointer { keys in
            NSDictionary(objects: objects.baseAddress, forKeys: keys.baseAddress, count: keys.count)
          }
        }
        result.append(dictionary)
        continue
      }
      var bridgedKeys: [NSObject] = []
      var bridgedValues: [Any] = []
      for column in 0..<width {
        guard let value = Self.boxed(values[row * width + column]) else { continue }
        bridgedKeys.append(keys[column])
        bridgedValues.append(value)
      }
      result.append(NSDictionary(objects: bridgedValues, forKeys: bridgedKeys))
    }
    return result
  }

  /// The object Foundation keeps in an `NSDictionary` for a value of the usual kinds, the same one
  /// ``boxed(_:)``'s value bridges to; `nil` for the other kinds.
  private static func foundationObject(_ value: SlotValue) -> AnyObject? {
    switch value {
    case .string(let string): NSString(string: string)
    case .int64, .int32, .int16, .double, .float, .bool: value.numberValue
    case .date(let date): NSDate(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
    default: nil
    }
  }
}
