import Foundation

/// Writes an `NSKeyedArchiver` archive as a binary property list (`bplist00`): the form ``KeyedArchive``
/// reads, and Foundation's `NSKeyedUnarchiver` too.
///
/// Foundation's own archiver is not used: it shares one archived object among all values it finds equal, and
/// `NSNumber(3)` equals `NSNumber(3.0)` (and `NSNumber(true)`), so an integer and a real of one value would
/// come back as the same type; on Linux it also stopped a test run archiving a store's rows (Swift's
/// "duplicate keys" trap in its table of shared objects). Here strings are shared (equal strings are the
/// same text) and every number is its own object, of its own type.
struct KeyedArchiveWriter {
  /// `$objects`: index 0 is `$null`, the reference of `nil`.
  private var objects: [PropertyListValue] = [.string("$null")]
  private var strings: [String: UInt64] = [:]
  private var classes: [String: UInt64] = [:]

  /// A reference to an archived object, to place in a container.
  typealias Reference = PropertyListValue

  /// Archives `value` (a string, a number, data: what a keyed archive holds as itself) and returns its
  /// reference; equal strings share one object.
  mutating func plain(_ value: PropertyListValue) -> Reference {
    if case .string(let text) = value, let known = strings[text] { return .uid(known) }
    objects.append(value)
    let index = UInt64(objects.count - 1)
    if case .string(let text) = value { strings[text] = index }
    return .uid(index)
  }

  /// Archives an `NSArray` of `members`.
  mutating func array(_ members: [Reference]) -> Reference {
    object("NSArray", ["NS.objects": .array(members)])
  }

  /// Archives an `NSDictionary` of `entries` (keys archived as strings).
  mutating func dictionary(_ entries: [(key: String, value: Reference)]) -> Reference {
    let keys = entries.map { plain(.string($0.key)) }
    return object("NSDictionary", ["NS.keys": .array(keys), "NS.objects": .array(entries.map(\.value))])
  }

  /// Archives `NSNull`.
  mutating func null() -> Reference { object("NSNull", [:]) }

  /// Archives an `NSDate`.
  mutating func date(_ date: Date) -> Reference {
    object("NSDate", ["NS.time": .real(date.timeIntervalSinceReferenceDate)])
  }

  /// Archives an object of class `name` (a subclass of `NSObject`) with its encoded `fields`.
  private mutating func object(_ name: String, _ fields: [String: PropertyListValue]) -> Reference {
    let classReference: UInt64
    if let known = classes[name] {
      classReference = known
    } else {
      objects.append(.dictionary(["$classname": .string(name), "$classes": .array([.string(name), .string("NSObject")])]))
      classReference = UInt64(objects.count - 1)
      classes[name] = classReference
    }
    var fields = fields
    fields["$class"] = .uid(classReference)
    objects.append(.dictionary(fields))
    return .uid(UInt64(objects.count - 1))
  }

  /// The archive with `root` as its root object, as a binary property list.
  func encoded(root: Reference) -> Data {
    BinaryPropertyListWriter.encode(
      .dictionary([
        "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000), "$top": .dictionary(["root": root]),
        "$objects": .array(objects),
      ]))
  }
}

/// Writes a ``PropertyListValue`` as a binary property list: the header, the objects (equal strings and
/// references shared), the table of their offsets and the 32-byte trailer.
enum BinaryPropertyListWriter {
  /// One object of the file: its bytes, or a container's marker and the indexes of its members.
  private enum Entry {
    case bytes([UInt8])
    case container(marker: UInt8, count: Int, references: [Int])
  }

  private struct Flattener {
    var entries: [Entry] = []
    var strings: [String: Int] = [:]
    var uids: [UInt64: Int] = [:]

    mutating func add(_ value: PropertyListValue) -> Int {
      switch value {
      case .string(let text):
        if let known = strings[text] { return known }
        let index = append(.bytes(BinaryPropertyListWriter.string(text)))
        strings[text] = index
        return index
      case .uid(let reference):
        if let known = uids[reference] { return known }
        let index = append(.bytes(BinaryPropertyListWriter.uid(reference)))
        uids[reference] = index
        return index
      case .array(let members), .set(let members):
        let index = append(.bytes([]))
        let references = members.map { add($0) }
        let marker: UInt8 = if case .set = value { 0xC0 } else { 0xA0 }
        entries[index] = .container(marker: marker, count: members.count, references: references)
        return index
      case .dictionary(let entries):
        let index = append(.bytes([]))
        let sorted = entries.sorted { $0.key < $1.key }
        let references = sorted.map { add(.string($0.key)) } + sorted.map { add($0.value) }
        self.entries[index] = .container(marker: 0xD0, count: sorted.count, references: references)
        return index
      default:
        return append(.bytes(BinaryPropertyListWriter.scalar(value)))
      }
    }

    private mutating func append(_ entry: Entry) -> Int {
      entries.append(entry)
      return entries.count - 1
    }
  }

  /// The binary property list of `value`.
  static func encode(_ value: PropertyListValue) -> Data {
    var flattener = Flattener()
    let top = flattener.add(value)
    let referenceSize = byteCount(UInt64(flattener.entries.count))
    var bytes = Array("bplist00".utf8)
    var offsets: [Int] = []
    offsets.reserveCapacity(flattener.entries.count)
    for entry in flattener.entries {
      offsets.append(bytes.count)
      switch entry {
      case .bytes(let encoded): bytes += encoded
      case .container(let marker, let count, let references):
        bytes += header(marker, count)
        for reference in references { bytes += bigEndian(UInt64(reference), size: referenceSize) }
      }
    }
    let tableOffset = bytes.count
    let offsetSize = byteCount(UInt64(tableOffset))
    for offset in offsets { bytes += bigEndian(UInt64(offset), size: offsetSize) }
    bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
    bytes += bigEndian(UInt64(flattener.entries.count), size: 8)
    bytes += bigEndian(UInt64(top), size: 8)
    bytes += bigEndian(UInt64(tableOffset), size: 8)
    return Data(bytes)
  }

  /// The bytes of a value that is not a container, a string or a reference.
  fileprivate static func scalar(_ value: PropertyListValue) -> [UInt8] {
    switch value {
    case .null: [0x00]
    case .bool(let flag): [flag ? 0x09 : 0x08]
    case .integer(let number): integer(number)
    case .real(let number): [0x23] + bigEndian(number.bitPattern, size: 8)
    case .date(let date): [0x33] + bigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8)
    case .data(let data): header(0x40, data.count) + [UInt8](data)
    default: []
    }
  }

  /// An integer: 1, 2 or 4 bytes for small non-negative values (read as unsigned), 8 bytes otherwise.
  private static func integer(_ number: Int64) -> [UInt8] {
    switch number {
    case 0...0xFF: [0x10] + bigEndian(UInt64(number), size: 1)
    case 0...0xFFFF: [0x11] + bigEndian(UInt64(number), size: 2)
    case 0...0xFFFF_FFFF: [0x12] + bigEndian(UInt64(number), size: 4)
    default: [0x13] + bigEndian(UInt64(bitPattern: number), size: 8)
    }
  }

  /// A string: ASCII when it is, UTF-16 (big-endian) otherwise.
  fileprivate static func string(_ text: String) -> [UInt8] {
    if text.utf8.allSatisfy({ $0 < 0x80 }) { return header(0x50, text.utf8.count) + Array(text.utf8) }
    let units = Array(text.utf16)
    return header(0x60, units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
  }

  /// A keyed archive's object reference.
  fileprivate static func uid(_ reference: UInt64) -> [UInt8] {
    let size = byteCount(reference)
    return [0x80 | UInt8(size - 1)] + bigEndian(reference, size: size)
  }

  /// A marker with its count: in the low nibble, or after it as an integer object when 15 or more.
  private static func header(_ marker: UInt8, _ count: Int) -> [UInt8] {
    count < 15 ? [marker | UInt8(count)] : [marker | 0x0F] + integer(Int64(count))
  }

  /// The bytes (1, 2, 4 or 8) an unsigned value needs.
  private static func byteCount(_ value: UInt64) -> Int {
    switch value {
    case 0...0xFF: 1
    case 0...0xFFFF: 2
    case 0...0xFFFF_FFFF: 4
    default: 8
    }
  }

  private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
    (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
  }
}
