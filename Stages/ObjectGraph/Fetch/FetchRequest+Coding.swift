import Foundation

/// Fetch requests archive themselves, as Core Data's do (`NSFetchRequest` is `NSSecureCoding`): the entity name,
/// predicate, sort descriptors, limit, offset, batch size, result type, flags, properties to fetch and to group by
/// (by name), having predicate and relationship key paths for prefetching.
///
/// On Linux, Foundation's `NSPredicate` and `NSSortDescriptor` are not `NSCoding`, so a predicate is kept as its format text and parsed again with the engine's parser when the request is
/// unarchived, and a sort descriptor as its key, direction and selector name. Not archived: a sort descriptor
/// without a key (one made with a comparator), an `NSExpressionDescription` among the properties to fetch or group
/// by (the names of attributes, relationships and key paths are kept), the entity object (its name is) and the
/// stores the request is limited to.
///
/// Linux's `NSKeyedArchiver` cannot name a generic class, so a request is archived under one plain class's name
/// and unarchives as an `NSFetchRequest<any NSFetchRequestResult>` (Core Data's untyped request, as a model's
/// templates are), whatever its `Result` was; its ``resultType`` says what it fetches:
///
/// ```swift
/// let data = try NSKeyedArchiver.archivedData(withRootObject: request, requiringSecureCoding: true)
/// let copy = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSFetchRequest<any NSFetchRequestResult>.self, from: data)
/// ```
///
/// The name is tied to that class when the first request or context is made; an app that unarchives a request
/// before making either makes one first.
extension NSFetchRequest: NSSecureCoding {
  /// `true`: requests decode with `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`.
  public static var supportsSecureCoding: Bool { true }

  /// Archives the request's settings (see the extension's discussion for what is kept).
  public func encode(with coder: NSCoder) {
    FetchRequestArchiving.register()
    coder.encodeText(entityName, forKey: FetchRequestArchiveKey.entityName)
    coder.encodeText(predicate?.formatText, forKey: FetchRequestArchiveKey.predicate)
    coder.encodeText(havingPredicate?.formatText, forKey: FetchRequestArchiveKey.havingPredicate)
    if let sortDescriptors {
      let keyed = sortDescriptors.compactMap { descriptor in descriptor.key.map { (descriptor, $0) } }
      coder.encodeTexts(keyed.map(\.1), forKey: FetchRequestArchiveKey.sortKeys)
      coder.encode(NSArray(array: keyed.map { NSNumber(value: $0.0.ascending) }), forKey: FetchRequestArchiveKey.sortAscending)
      coder.encodeTexts(keyed.map { $0.0.selector?.name ?? "" }, forKey: FetchRequestArchiveKey.sortSelectors)
    }
    coder.encode(Int64(fetchLimit), forKey: FetchRequestArchiveKey.fetchLimit)
    coder.encode(Int64(fetchOffset), forKey: FetchRequestArchiveKey.fetchOffset)
    coder.encode(Int64(fetchBatchSize), forKey: FetchRequestArchiveKey.fetchBatchSize)
    coder.encode(Int64(resultType.rawValue), forKey: FetchRequestArchiveKey.resultType)
    coder.encode(NSArray(array: flags.map { NSNumber(value: $0) }), forKey: FetchRequestArchiveKey.flags)
    if let propertiesToFetch { coder.encodeTexts(Self.names(of: propertiesToFetch), forKey: FetchRequestArchiveKey.propertiesToFetch) }
    if let propertiesToGroupBy {
      coder.encodeTexts(Self.names(of: propertiesToGroupBy), forKey: FetchRequestArchiveKey.propertiesToGroupBy)
    }
    coder.encodeTexts(relationshipKeyPathsForPrefetching, forKey: FetchRequestArchiveKey.prefetching)
  }

  /// Reads a request back from an archive made by ``encode(with:)``, its predicates parsed again; `nil` (and the
  /// unarchiver's error) when the archive is not a request's.
  public convenience init?(coder: NSCoder) {
    guard let entityName = coder.decodeText(forKey: FetchRequestArchiveKey.entityName) else {
      coder.failDecoding("a fetch request", "it has no entity name (\(FetchRequestArchiveKey.entityName))")
      return nil
    }
    let what = "the fetch request for \(entityName)"
    guard let flags = (coder.decodeValue(forKey: FetchRequestArchiveKey.flags) as? [NSNumber])?.map(\.boolValue), flags.count == 6,
      let sortKeys = coder.decodeTexts(forKey: FetchRequestArchiveKey.sortKeys),
      let sortSelectors = coder.decodeTexts(forKey: FetchRequestArchiveKey.sortSelectors),
      let prefetching = coder.decodeTexts(forKey: FetchRequestArchiveKey.prefetching),
      let toFetch = coder.decodeTexts(forKey: FetchRequestArchiveKey.propertiesToFetch),
      let toGroupBy = coder.decodeTexts(forKey: FetchRequestArchiveKey.propertiesToGroupBy)
    else {
      coder.failDecoding(what, "its flags, sort descriptors or property names are malformed")
      return nil
    }
    let ascending = (coder.decodeValue(forKey: FetchRequestArchiveKey.sortAscending) as? [NSNumber])?.map(\.boolValue) ?? []
    guard ascending.count == sortKeys.count, sortSelectors.count == sortKeys.count else {
      coder.failDecoding(what, "its sort keys, directions and selectors do not match")
      return nil
    }
    self.init(entityName: entityName)
    predicate = coder.decodeText(forKey: FetchRequestArchiveKey.predicate).map { NSPredicate(format: $0, argumentArray: []) }
    havingPredicate = coder.decodeText(forKey: FetchRequestArchiveKey.havingPredicate).map { NSPredicate(format: $0, argumentArray: []) }
    if coder.containsValue(forKey: FetchRequestArchiveKey.sortKeys) {
      sortDescriptors = sortKeys.indices.map { index in
        NSSortDescriptor(
          key: sortKeys[index], ascending: ascending[index],
          selector: sortSelectors[index].isEmpty ? nil : Selector(sortSelectors[index]))
      }
    }
    fetchLimit = Int(clamping: coder.decodeInt64(forKey: FetchRequestArchiveKey.fetchLimit))
    fetchOffset = Int(clamping: coder.decodeInt64(forKey: FetchRequestArchiveKey.fetchOffset))
    fetchBatchSize = Int(clamping: coder.decodeInt64(forKey: FetchRequestArchiveKey.fetchBatchSize))
    if coder.containsValue(forKey: FetchRequestArchiveKey.resultType) {
      resultType = NSFetchRequestResultType(rawValue: UInt(clamping: coder.decodeInt64(forKey: FetchRequestArchiveKey.resultType)))
    }
    includesSubentities = flags[0]
    includesPendingChanges = flags[1]
    includesPropertyValues = flags[2]
    returnsObjectsAsFaults = flags[3]
    returnsDistinctResults = flags[4]
    shouldRefreshRefetchedObjects = flags[5]
    if coder.containsValue(forKey: FetchRequestArchiveKey.propertiesToFetch) { propertiesToFetch = toFetch }
    if coder.containsValue(forKey: FetchRequestArchiveKey.propertiesToGroupBy) { propertiesToGroupBy = toGroupBy }
    relationshipKeyPathsForPrefetching = prefetching
  }

  /// The request's flags, in a fixed order.
  private var flags: [Bool] {
    [
      includesSubentities, includesPendingChanges, includesPropertyValues, returnsObjectsAsFaults,
      returnsDistinctResults, shouldRefreshRefetchedObjects,
    ]
  }

  /// The names of the key-path columns among `properties` (an expression description's column is left out).
  private static func names(of properties: [any FetchPropertySpecifier]) -> [String] {
    properties.compactMap { property in
      if case .keyPath(let path) = property.fetchColumn.kind { return path }
      return nil
    }
  }
}

/// The keys of a fetch request's archive.
private enum FetchRequestArchiveKey {
  static let entityName = "NSEntityName"
  static let predicate = "NSPredicateFormat"
  static let sortKeys = "NSSortKeys"
  static let sortAscending = "NSSortAscending"
  static let sortSelectors = "NSSortSelectors"
  static let fetchLimit = "NSFetchLimit"
  static let fetchOffset = "NSFetchOffset"
  static let fetchBatchSize = "NSBatchSize"
  static let resultType = "NSResultType"
  static let flags = "ObjectGraphFlags"
  static let propertiesToFetch = "NSPropertiesToFetch"
  static let propertiesToGroupBy = "NSPropertiesToGroupBy"
  static let havingPredicate = "NSHavingPredicateFormat"
  static let prefetching = "NSRelationshipKeyPathsForPrefetching"
}

/// The class whose name an archived fetch request carries; never made.
final class ArchivedFetchRequest: NSObject {}

/// Ties the archived name to `NSFetchRequest<any NSFetchRequestResult>` for `NSKeyedUnarchiver`.
enum FetchRequestArchiving {
  private static let registration: Void = {
    NSKeyedUnarchiver.setClass(
      NSFetchRequest<any NSFetchRequestResult>.self, forClassName: NSStringFromClass(ArchivedFetchRequest.self))
  }()

  /// Registers the name, once.
  static func register() { registration }
}
