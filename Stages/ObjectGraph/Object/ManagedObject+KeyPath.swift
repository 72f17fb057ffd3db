import Foundation

extension NSManagedObject {
  // MARK: - Key paths (Foundation's key-value coding)

  /// The value at a dotted key path (Foundation's `value(forKeyPath:)`), read key by key with
  /// ``value(forKey:)``: `"notebook.name"` reads the note's notebook, then its name.
  ///
  /// As in Foundation's key-value coding:
  /// - A `nil` on the way gives `nil`.
  /// - A key path through a to-many gives the collection of the members' values: a `Set<AnyHashable>` for an
  ///   unordered to-many (`"notes.title"`: the titles, without `nil`s or repeats), an `NSOrderedSet` for an
  ///   ordered one. Each further key is read on every member, so `"notes.tags"` is a set of sets.
  /// - A collection operator applies to the collection on its left: `"notes.@count"`, `"notes.@sum.rating"`,
  ///   `"notes.@avg.rating"` (numbers as `NSNumber`, a missing value counted as 0), `"notes.@min.createdAt"`,
  ///   `"notes.@max.title"` (`nil`s left out; `nil` for an empty collection), and
  ///   `"notes.@distinctUnionOfObjects.title"` and `"notes.@unionOfObjects.title"` (arrays; `nil`s left out).
  /// - A composite attribute's dictionary is read by key (`"location.latitude"`).
  ///
  /// A key an object does not have behaves as in ``value(forKey:)``: ``value(forUndefinedKey:)`` is asked,
  /// and a key nobody answers stops the program with a message (Core Data raises). So do an unknown
  /// collection operator, an operator without the key path on its right (all but `@count` need one), `@sum`
  /// or `@avg` of values that are not numbers, and a key read on a value that is neither a managed object, a
  /// collection of them nor a dictionary (Foundation would ask that value; there is no Objective-C runtime
  /// here to do it).
  public func value(forKeyPath keyPath: String) -> Any? {
    ConcurrencyDebug.objectTouchedOffQueue(self, key: keyPath)
    return KeyValuePath.value(of: self, at: KeyValuePath.keys(of: keyPath)[...], keyPath: keyPath)
  }

  /// Sets the value at a dotted key path (Foundation's `setValue(_:forKeyPath:)`): the keys but the last are
  /// read as ``value(forKeyPath:)`` reads them, and the last is set with ``setValue(_:forKey:)`` on the object
  /// reached, or on each member of the to-many reached (as Foundation's sets do). A `nil` on the way sets
  /// nothing. Misuse stops the program as ``setValue(_:forKey:)`` does.
  public func setValue(_ value: Any?, forKeyPath keyPath: String) {
    ConcurrencyDebug.objectTouchedOffQueue(self, key: keyPath)
    let keys = KeyValuePath.keys(of: keyPath)
    guard let last = keys.last, keys.count > 1 else {
      setValue(value, forKey: keyPath)
      return
    }
    let target = KeyValuePath.value(of: self, at: keys.dropLast(), keyPath: keyPath)
    KeyValuePath.set(value, forKey: last, on: target, keyPath: keyPath)
  }
}

/// Foundation's key-value coding over what ``NSManagedObject/value(forKey:)`` returns: objects, their sets,
/// ordered sets, arrays and dictionaries.
enum KeyValuePath {
  static func keys(of keyPath: String) -> [String] {
    keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
  }

  /// A collection's kind decides the kind of the collection its members' values go into.
  private enum Kind { case set, ordered, array }

  static func value(of target: Any?, at keys: ArraySlice<String>, keyPath: String) -> Any? {
    guard let key = keys.first else { return target }
    let rest = keys.dropFirst()
    guard let target = unwrapped(target) else { return nil }
    if let object = target as? NSManagedObject {
      return value(of: object.value(forKey: key), at: rest, keyPath: keyPath)
    }
    if let (kind, members) = collection(target) {
      return collectionValue(kind, members, key: key, rest: rest, keyPath: keyPath)
    }
    if let dictionary = target as? [String: Any] {
      return value(of: dictionary[key], at: rest, keyPath: keyPath)
    }
    programmerError(
      "ObjectGraph: key path '\(keyPath)' reads '\(key)' of a \(type(of: target)), which is not a managed object, a collection of them or a dictionary. Read the value and use its own API from there."
    )
  }

  static func set(_ value: Any?, forKey key: String, on target: Any?, keyPath: String) {
    guard let target = unwrapped(target) else { return }
    if let object = target as? NSManagedObject {
      object.setValue(value, forKey: key)
    } else if let (_, members) = collection(target) {
      for member in members { set(value, forKey: key, on: member, keyPath: keyPath) }
    } else {
      programmerError(
        "ObjectGraph: key path '\(keyPath)' sets '\(key)' on a \(type(of: target)), which is not a managed object or a collection of them."
      )
    }
  }

  /// `nil` for `nil` and `NSNull` (what an array of values holds for a member without one).
  private static func unwrapped(_ value: Any?) -> Any? {
    guard let value, !(value is NSNull) else { return nil }
    return value
  }

  private static func collection(_ value: Any) -> (Kind, [Any])? {
    if let ordered = value as? NSOrderedSet { return (.ordered, ordered.array) }
    if let set = value as? Set<AnyHashable> { return (.set, set.map(\.base)) }
    if let array = value as? [Any] { return (.array, array) }
    return nil
  }

  private static func collectionValue(_ kind: Kind, _ members: [Any], key: String, rest: ArraySlice<String>, keyPath: String)
    -> Any?
  {
    guard key.hasPrefix("@") else {
      // Each member's value for the key, into a collection of the same kind; the rest of the path goes on
      // from that collection.
      let values = members.map { value(of: $0, at: [key], keyPath: keyPath) }
      let next: Any
      switch kind {
      case .set: next = Set(values.compactMap { unwrapped($0).flatMap(hashable) })
      case .ordered: next = NSOrderedSet(array: values.compactMap { unwrapped($0) })
      case .array: next = values.map { $0 ?? NSNull() }
      }
      return value(of: next, at: rest, keyPath: keyPath)
    }
    if key == "@count" { return NSNumber(value: members.count) }
    guard !rest.isEmpty else {
      programmerError(
        "ObjectGraph: collection operator \(key) in key path '\(keyPath)' needs the key path of the members' values on its right (\(key).rating)."
      )
    }
    let values = members.map { value(of: $0, at: rest, keyPath: keyPath) }
    switch key {
    case "@sum": return NSNumber(value: numbers(values, key: key, keyPath: keyPath).reduce(0, +))
    case "@avg":
      guard !values.isEmpty else { return nil }
      return NSNumber(value: numbers(values, key: key, keyPath: keyPath).reduce(0, +) / Double(values.count))
    case "@min", "@max":
      let present = values.compactMap { unwrapped($0) }
      return present.dropFirst().reduce(present.first) { best, next in
        guard let best else { return next }
        let ascending = isAscending(best, next, keyPath: keyPath)
        return key == "@min" ? (ascending ? best : next) : (ascending ? next : best)
      }
    case "@distinctUnionOfObjects":
      var seen = Set<AnyHashable>()
      return values.compactMap { unwrapped($0) }.filter { value in
        guard let hashable = hashable(value) else { return true }
        return seen.insert(hashable).inserted
      }
    case "@unionOfObjects":
      return values.compactMap { unwrapped($0) }
    default:
      programmerError(
        "ObjectGraph: key path '\(keyPath)' uses collection operator \(key), which is not supported. Use @count, @sum, @avg, @min, @max, @distinctUnionOfObjects or @unionOfObjects."
      )
    }
  }

  private static func hashable(_ value: Any) -> AnyHashable? {
    value as? AnyHashable
  }

  /// The values as numbers for `@sum` and `@avg`: `nil` counts as 0, as in Foundation.
  private static func numbers(_ values: [Any?], key: String, keyPath: String) -> [Double] {
    values.map { value in
      guard let value = unwrapped(value) else { return 0 }
      if let number = value as? NSNumber { return number.doubleValue }
      if let decimal = value as? Decimal { return NSDecimalNumber(decimal: decimal).doubleValue }
      programmerError(
        "ObjectGraph: \(key) in key path '\(keyPath)' adds numbers, and one value is a \(type(of: value)). Name a numeric attribute on its right."
      )
    }
  }

  /// Whether `lhs` comes before (or equals) `rhs`, for `@min` and `@max` (Foundation's `compare:`).
  private static func isAscending(_ lhs: Any, _ rhs: Any, keyPath: String) -> Bool {
    switch (lhs, rhs) {
    case (let l as NSNumber, let r as NSNumber): return l.compare(r) != .orderedDescending
    case (let l as String, let r as String): return l <= r
    case (let l as Date, let r as Date): return l <= r
    case (let l as Decimal, let r as Decimal): return l <= r
    case (let l as UUID, let r as UUID): return l.uuidString <= r.uuidString
    default:
      programmerError(
        "ObjectGraph: @min and @max in key path '\(keyPath)' compare values of one comparable type (numbers, strings, dates), not a \(type(of: lhs)) and a \(type(of: rhs))."
      )
    }
  }
}
