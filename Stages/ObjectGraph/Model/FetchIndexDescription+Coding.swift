import Foundation

/// Fetch indexes archive themselves, as Core Data's do (`NSFetchIndexDescription` and
/// `NSFetchIndexElementDescription` are `NSCoding`), under the keys Core Data's compiled models use
/// (`NSIndexName`, `NSIndexElements`; an element's `NSPropertyName`, `NSAscending`, `NSFetchIndexElementType`).
/// An index archived alone comes back belonging to no entity; inside its entity's archive it comes back in
/// that entity's ``NSEntityDescription/indexes``. A partial index's predicate is archived as its format
/// (Linux's Foundation cannot archive a predicate) and parsed again when a store uses it.
///
/// ```swift
/// let data = try NSKeyedArchiver.archivedData(withRootObject: index, requiringSecureCoding: true)
/// let copy = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSFetchIndexDescription.self, from: data)
/// ```
extension NSFetchIndexDescription: NSSecureCoding {
  private enum Key {
    static let name = "NSIndexName"
    static let elements = "NSIndexElements"
    static let partialIndexPredicate = "NSPartialIndexPredicateFormat"
  }

  /// `true`: indexes decode with `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`.
  public static var supportsSecureCoding: Bool { true }

  /// Archives the index: its name, its elements (each an element's archive) and its partial index
  /// predicate's format.
  public func encode(with coder: NSCoder) {
    let state = state.value
    coder.encodeText(state.name, forKey: Key.name)
    coder.encode(NSArray(array: state.elements), forKey: Key.elements)
    coder.encodeText(state.partialIndexPredicate?.formatText, forKey: Key.partialIndexPredicate)
  }

  /// Reads an index back from an archive made by ``encode(with:)``; `nil` (and the unarchiver's error) when
  /// the archive is not an index's.
  public convenience init?(coder: NSCoder) {
    guard let name = coder.decodeText(forKey: Key.name) else {
      coder.failDecoding("a fetch index", "it has no name (\(Key.name))")
      return nil
    }
    guard let elements = coder.decodeArchivedObjects(of: NSFetchIndexElementDescription.self, forKey: Key.elements)
    else {
      coder.failDecoding("fetch index \(name)", "its elements are not index elements")
      return nil
    }
    self.init(name: name, elements: elements)
    if let format = coder.decodeText(forKey: Key.partialIndexPredicate) {
      partialIndexPredicate = ArchivedPredicate(format: format)
    }
  }
}

extension NSFetchIndexElementDescription: NSSecureCoding {
  private enum Key {
    static let propertyName = "NSPropertyName"
    static let isAscending = "NSAscending"
    static let collationType = "NSFetchIndexElementType"
  }

  /// `true`: index elements decode with `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`.
  public static var supportsSecureCoding: Bool { true }

  /// Archives the element: its property's name, its order and its kind. The property itself is not
  /// archived: an element read back finds it by name in its index's entity.
  public func encode(with coder: NSCoder) {
    let state = state.value
    coder.encodeText(state.propertyName, forKey: Key.propertyName)
    coder.encode(state.isAscending, forKey: Key.isAscending)
    coder.encode(Int(state.collationType.rawValue), forKey: Key.collationType)
  }

  /// Reads an element back from an archive made by ``encode(with:)``; `nil` (and the unarchiver's error)
  /// when the archive is not an element's.
  public convenience init?(coder: NSCoder) {
    guard let propertyName = coder.decodeText(forKey: Key.propertyName) else {
      coder.failDecoding("a fetch index element", "it names no property (\(Key.propertyName))")
      return nil
    }
    let rawType = coder.decodeInteger(forKey: Key.collationType)
    guard let collationType = UInt(exactly: rawType).flatMap(NSFetchIndexElementType.init(rawValue:)) else {
      coder.failDecoding(
        "the fetch index element of \(propertyName)", "its type is \(rawType) (0 binary or 1 R-tree expected)")
      return nil
    }
    let isAscending = coder.containsValue(forKey: Key.isAscending) ? coder.decodeBool(forKey: Key.isAscending) : true
    self.init(propertyName: propertyName, isAscending: isAscending, collationType: collationType)
  }
}
