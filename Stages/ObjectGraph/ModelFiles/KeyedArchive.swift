import Foundation

/// An `NSKeyedArchiver` archive read from a binary property list: the form of Apple's compiled models
/// (`.mom`) and mapping models (`.cdm`).
///
/// The archive is a dictionary with `$archiver` (`NSKeyedArchiver`), `$top` (the root object's reference
/// under the key `root`) and `$objects`: a flat table where object 0 is `$null` and every object that is
/// not a plain string, number or data is a dictionary of its encoded keys, with `$class` referring to a
/// class description (`$classname`, `$classes`: the class and its superclasses). References are UIDs:
/// indexes into `$objects`, checked here before they are followed. Collections are `NS.objects` (arrays and
/// sets) and `NS.keys` + `NS.objects` (dictionaries).
struct KeyedArchive {
  /// What is wrong with an archive, in words for an error message.
  struct Malformed: Error, Sendable {
    let reason: String
  }

  /// One object of `$objects` that is a dictionary of encoded keys.
  struct Object {
    /// Its index in `$objects`.
    let index: Int
    /// Its encoded keys and values (references stay UIDs).
    let fields: [String: PropertyListValue]
    /// Its class and superclasses, most derived first (`["NSEntityDescription", "NSObject"]`).
    let classes: [String]

    /// The object's class name.
    var className: String { classes.first ?? "?" }

    /// Whether the object is of class `name` or a subclass of it.
    func isKind(of name: String) -> Bool { classes.contains(name) }
  }

  /// Plain values nested deeper than this (user info, default values, expressions) are refused.
  static let maximumDepth = 128
  /// Decoding one plain value or expression visits at most this many objects: an archive whose objects share
  /// parts many times over (a list holding one list twice, that list holding another twice, …) is refused
  /// rather than decoded in exponential time.
  static let maximumSteps = 100_000

  let objects: [PropertyListValue]
  /// The index of the root object.
  let rootIndex: Int

  /// Reads the archive structure from a property list.
  /// - Throws: ``Malformed`` when the property list is not a keyed archive.
  init(_ plist: PropertyListValue) throws {
    guard let top = plist.dictionary, case .array(let objects)? = top["$objects"] else {
      throw Malformed(reason: "it is a property list, but not a keyed archive (no $objects table)")
    }
    guard top["$archiver"]?.string == "NSKeyedArchiver" else {
      throw Malformed(reason: "it is not an NSKeyedArchiver archive ($archiver is not 'NSKeyedArchiver')")
    }
    guard case .uid(let root)? = top["$top"]?.dictionary?["root"] else {
      throw Malformed(reason: "the archive has no root object ($top has no 'root' reference)")
    }
    self.objects = objects
    guard root < UInt64(objects.count), root > 0 else {
      throw Malformed(reason: "the archive's root refers to object \(root), outside its \(objects.count) objects")
    }
    rootIndex = Int(root)
  }

  /// The index a reference names, `nil` for `$null` (index 0) or a missing value.
  /// - Throws: ``Malformed`` when the value is not a reference or names no object.
  func index(_ value: PropertyListValue?, _ what: String) throws -> Int? {
    guard let value else { return nil }
    guard let index = checkedIndex(value) else { throw badReference(value, what) }
    return index == 0 ? nil : index
  }

  /// The index `value` names when it is a reference inside `$objects` (0 for `$null`), or `nil`: the check of
  /// ``index(_:_:)`` without its wording, for a caller whose description is built only for an error.
  private func checkedIndex(_ value: PropertyListValue) -> Int? {
    guard case .uid(let reference) = value, reference < UInt64(objects.count) else { return nil }
    return Int(reference)
  }

  /// Why `value`, which ``checkedIndex(_:)`` refused, is not a reference to an object.
  private func badReference(_ value: PropertyListValue, _ what: String) -> Malformed {
    guard case .uid(let reference) = value else { return Malformed(reason: "\(what) is not an object reference") }
    return Malformed(
      reason: "\(what) refers to object \(reference), but the archive has only \(objects.count) objects (a UID "
        + "out of range)")
  }

  /// The value a reference names, or `nil` for `$null`. Values written inline (not as references) are
  /// returned as they are.
  func resolve(_ value: PropertyListValue?, _ what: String) throws -> PropertyListValue? {
    guard let value else { return nil }
    guard case .uid = value else { return value }
    return try index(value, what).map { objects[$0] }
  }

  /// The object a reference names, with its class; `nil` for `$null`.
  /// - Throws: ``Malformed`` when it names something that is not an archived object.
  func object(_ value: PropertyListValue?, _ what: String) throws -> Object? {
    guard let index = try index(value, what) else { return nil }
    return try object(at: index, what)
  }

  /// The archived object at `index`.
  func object(at index: Int, _ what: String) throws -> Object {
    guard let fields = objects[index].dictionary else {
      throw Malformed(reason: "\(what) (object \(index)) is not an archived object")
    }
    var classIndex: Int?
    if let reference = fields["$class"] {
      // The description of the class is worded only when its reference is bad.
      guard let found = checkedIndex(reference) else { throw badReference(reference, "the class of \(what)") }
      classIndex = found == 0 ? nil : found
    }
    guard let classIndex, let classFields = objects[classIndex].dictionary
    else {
      throw Malformed(reason: "\(what) (object \(index)) has no class")
    }
    let names = classFields["$classes"]?.elements?.compactMap(\.string) ?? []
    let name = classFields["$classname"]?.string
    guard let name else {
      throw Malformed(reason: "the class of \(what) (object \(classIndex)) has no $classname")
    }
    return Object(index: index, fields: fields, classes: names.isEmpty ? [name] : names)
  }

  /// The string a reference names, `nil` for `$null`.
  func string(_ value: PropertyListValue?, _ what: String) throws -> String? {
    guard let resolved = try resolve(value, what) else { return nil }
    if let text = resolved.string { return text }
    // An NSMutableString is archived as an object with NS.string.
    if let fields = resolved.dictionary, let text = try resolve(fields["NS.string"], what)?.string { return text }
    throw Malformed(reason: "\(what) is not a string")
  }

  /// The member references of an archived array or set (`NS.objects`); empty for `$null`.
  func members(_ value: PropertyListValue?, _ what: String) throws -> [PropertyListValue] {
    guard let resolved = try resolve(value, what) else { return [] }
    if let inline = resolved.elements { return inline }
    guard let fields = resolved.dictionary, let members = fields["NS.objects"]?.elements else {
      throw Malformed(reason: "\(what) is not an array or set")
    }
    return members
  }

  /// The key and value references of an archived dictionary (`NS.keys`, `NS.objects`); empty for `$null`.
  /// Also reads the `NSKnownKeysDictionary1` that Core Data's model cache archives a model's entities as.
  func entries(_ value: PropertyListValue?, _ what: String) throws
    -> [(key: PropertyListValue, value: PropertyListValue)]
  {
    guard let resolved = try resolve(value, what) else { return [] }
    if let fields = resolved.dictionary, fields["NS.keys"] == nil, let mapping = fields["searchMapping"] {
      return try knownKeysEntries(fields, mapping: mapping, what)
    }
    guard let fields = resolved.dictionary, let keys = fields["NS.keys"]?.elements,
      let values = fields["NS.objects"]?.elements
    else {
      throw Malformed(reason: "\(what) is not a dictionary")
    }
    guard keys.count == values.count else {
      throw Malformed(reason: "\(what) has \(keys.count) keys but \(values.count) values")
    }
    return Array(zip(keys, values)).map { (key: $0.0, value: $0.1) }
  }

  /// The entries of an `NSKnownKeysDictionary1` (what a store's `Z_MODELCACHE` holds for `NSEntities`): the keys
  /// are the `keys` array of its `searchMapping` object, the values its `values` array in the same order, and a
  /// value that is the dictionary's `emptyToken` string marks a key without a value.
  private func knownKeysEntries(_ fields: [String: PropertyListValue], mapping: PropertyListValue, _ what: String) throws
    -> [(key: PropertyListValue, value: PropertyListValue)]
  {
    let mappingFields = try resolve(mapping, "the key mapping of \(what)")?.dictionary
    let keys = try members(mappingFields?["keys"], "the keys of \(what)")
    let values = try members(fields["values"], "the values of \(what)")
    guard keys.count == values.count else {
      throw Malformed(reason: "\(what) has \(keys.count) keys but \(values.count) values")
    }
    let emptyToken = try resolve(fields["emptyToken"], "the empty-slot token of \(what)")?.string
    var entries: [(key: PropertyListValue, value: PropertyListValue)] = []
    for (key, value) in zip(keys, values) {
      if let emptyToken, try resolve(value, "a value of \(what)")?.string == emptyToken { continue }
      entries.append((key: key, value: value))
    }
    return entries
  }

  /// A dictionary of strings (an entity's or property's user info); values that are not strings are
  /// written as text.
  func stringDictionary(_ value: PropertyListValue?, _ what: String) throws -> [String: String] {
    var result: [String: String] = [:]
    for (key, entry) in try entries(value, what) {
      guard let name = try string(key, "a key of \(what)") else { continue }
      let plain = try plainValue(entry, "the value of '\(name)' in \(what)")
      result[name] = plain.map { "\($0)" } ?? ""
    }
    return result
  }

  /// A plain Foundation value, decoded: strings, numbers, Booleans, data, dates (`NSDate`), UUIDs (`NSUUID`),
  /// URLs (`NSURL`), decimals (`NSDecimalNumber`), arrays, sets and dictionaries of them; `nil` for
  /// `$null`.
  /// - Throws: ``Malformed`` for a UID out of range, a container that contains itself, nesting deeper than
  ///   ``maximumDepth``, or an object of another class.
  func plainValue(_ value: PropertyListValue?, _ what: String) throws -> (any Sendable)? {
    var visiting: Set<Int> = []
    var steps = 0
    return try plainValue(value, what, depth: 0, visiting: &visiting, steps: &steps)
  }

  private func plainValue(
    _ value: PropertyListValue?, _ what: String, depth: Int, visiting: inout Set<Int>, steps: inout Int
  ) throws -> (any Sendable)? {
    guard depth < Self.maximumDepth else {
      throw Malformed(reason: "\(what) is nested more than \(Self.maximumDepth) deep")
    }
    steps += 1
    guard steps <= Self.maximumSteps else {
      throw Malformed(reason: "\(what) is larger than \(Self.maximumSteps) objects (shared parts repeated)")
    }
    guard let value else { return nil }
    var index: Int?
    if case .uid = value {
      guard let found = try self.index(value, what) else { return nil }
      guard visiting.insert(found).inserted else {
        throw Malformed(reason: "\(what) contains itself (object \(found) is part of a cycle)")
      }
      index = found
    }
    defer { if let index { visiting.remove(index) } }
    let resolved = index.map { objects[$0] } ?? value
    switch resolved {
    case .null: return nil
    case .bool(let flag): return flag
    case .integer(let number): return number
    case .real(let number): return number
    case .date(let date): return date
    case .data(let data): return data
    case .string(let text): return text
    case .uid: throw Malformed(reason: "\(what) is a reference to a reference")
    case .array(let values), .set(let values):
      return try values.map { try plainValue($0, what, depth: depth + 1, visiting: &visiting, steps: &steps) }
    case .dictionary:
      guard let index else { throw Malformed(reason: "\(what) is not an archived object") }
      let object = try object(at: index, what)
      return try decodeObject(object, what, depth: depth, visiting: &visiting, steps: &steps)
    }
  }

  private func decodeObject(
    _ object: Object, _ what: String, depth: Int, visiting: inout Set<Int>, steps: inout Int
  ) throws -> (any Sendable)? {
    let fields = object.fields
    if object.isKind(of: "NSDecimalNumber") {
      return try decimal(fields, what)
    }
    if object.isKind(of: "NSDate"), case .real(let seconds)? = fields["NS.time"] {
      return Date(timeIntervalSinceReferenceDate: seconds)
    }
    if object.isKind(of: "NSUUID"), case .data(let bytes)? = fields["NS.uuidbytes"], bytes.count == 16 {
      let b = [UInt8](bytes)
      return UUID(
        uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
    if object.isKind(of: "NSURL") {
      guard let relative = try string(fields["NS.relative"], what) else { return nil }
      let base = try string(fields["NS.base"], what).flatMap { URL(string: $0) }
      return URL(string: relative, relativeTo: base)?.absoluteURL
    }
    if object.isKind(of: "NSData"), case .data(let data)? = try resolve(fields["NS.data"], what) {
      return data
    }
    if object.isKind(of: "NSString") {
      return try string(.uid(UInt64(object.index)), what)
    }
    if object.isKind(of: "NSDictionary") {
      var result: [String: any Sendable] = [:]
      for (key, entry) in try entries(.uid(UInt64(object.index)), what) {
        let name = try plainValue(key, what, depth: depth + 1, visiting: &visiting, steps: &steps).map { "\($0)" } ?? ""
        result[name] = try plainValue(entry, what, depth: depth + 1, visiting: &visiting, steps: &steps) ?? NSNull()
      }
      return result
    }
    if object.isKind(of: "NSArray") || object.isKind(of: "NSSet") || object.isKind(of: "NSOrderedSet") {
      return try (fields["NS.objects"]?.elements ?? []).map {
        try plainValue($0, what, depth: depth + 1, visiting: &visiting, steps: &steps) ?? NSNull()
      }
    }
    throw Malformed(reason: "\(what) is an object of class \(object.className), which is not a plain value")
  }

  /// An `NSDecimalNumber`: `NS.mantissa` (little-endian bytes), `NS.exponent`, `NS.negative`.
  private func decimal(_ fields: [String: PropertyListValue], _ what: String) throws -> Decimal {
    guard case .data(let bytes)? = fields["NS.mantissa"] else {
      throw Malformed(reason: "\(what) is a decimal number without a mantissa")
    }
    var mantissa: UInt64 = 0
    for (position, byte) in bytes.enumerated() where byte != 0 {
      guard position < 8 else { throw Malformed(reason: "\(what) is a decimal number too large to read") }
      mantissa |= UInt64(byte) << (8 * UInt64(position))
    }
    let exponent = fields["NS.exponent"]?.integer ?? 0
    guard (-128...127).contains(exponent) else {
      throw Malformed(reason: "\(what) is a decimal number with exponent \(exponent)")
    }
    let negative = fields["NS.negative"]?.bool ?? false
    return Decimal(sign: negative ? .minus : .plus, exponent: Int(exponent), significand: Decimal(mantissa))
  }
}
