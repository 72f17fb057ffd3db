import Foundation

/// Reads the binary property list format (`bplist00`): a header, the objects, a table of their offsets
/// and a 32-byte trailer giving the sizes of offsets and object references, the object count, the top
/// object and where the offset table starts.
///
/// Every offset, count and reference is checked against the file before it is used, so a damaged or
/// hostile file is a thrown error, never a trap: a reference outside the object table, an object that
/// contains itself (directly or not), nesting deeper than ``maximumDepth``, a count larger than the bytes
/// left, a string that is not valid ASCII or UTF-16. Objects referenced from several places are read once.
struct BinaryPropertyList {
  /// What is wrong with a file, in words for an error message ("the offset table is outside the file").
  struct Malformed: Error, Sendable {
    let reason: String
  }

  /// Containers nested deeper than this are refused (the formats ObjectGraph reads nest a few dozen deep).
  static let maximumDepth = 256
  /// The 8 bytes every binary property list starts with.
  static let magic = Array("bplist00".utf8)

  private let bytes: [UInt8]
  private let offsets: [Int]
  private let referenceSize: Int
  private let topObject: Int
  /// Where the objects end (the offset table starts): no object may reach past it.
  private let objectsEnd: Int

  /// Whether `data` starts like a binary property list.
  static func isBinaryPropertyList(_ data: Data) -> Bool {
    data.count >= magic.count && Array(data.prefix(magic.count)) == magic
  }

  /// Reads the whole property list.
  /// - Throws: ``Malformed`` saying what is wrong.
  static func read(_ data: Data) throws -> PropertyListValue {
    try BinaryPropertyList(data).readTop()
  }

  private init(_ data: Data) throws {
    bytes = [UInt8](data)
    guard bytes.count >= Self.magic.count, Array(bytes[0..<Self.magic.count]) == Self.magic else {
      throw Malformed(reason: "it does not start with 'bplist00', so it is not a binary property list")
    }
    guard bytes.count >= Self.magic.count + 32 + 1 else {
      throw Malformed(reason: "it is \(bytes.count) bytes long, too short for a binary property list")
    }
    let trailer = bytes.count - 32
    let offsetSize = Int(bytes[trailer + 6])
    referenceSize = Int(bytes[trailer + 7])
    let objectCount = Self.bigEndian(bytes, at: trailer + 8, size: 8)
    let top = Self.bigEndian(bytes, at: trailer + 16, size: 8)
    let tableOffset = Self.bigEndian(bytes, at: trailer + 24, size: 8)
    guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
      throw Malformed(
        reason: "its trailer gives offsets of \(offsetSize) bytes and references of \(referenceSize) bytes (1 to 8 "
          + "expected)")
    }
    guard objectCount > 0, objectCount <= UInt64(trailer) else {
      throw Malformed(reason: "its trailer gives \(objectCount) objects, which the file cannot hold")
    }
    guard tableOffset >= UInt64(Self.magic.count), tableOffset <= UInt64(trailer),
      objectCount <= (UInt64(trailer) - tableOffset) / UInt64(offsetSize)
    else {
      throw Malformed(reason: "its offset table (at byte \(tableOffset), \(objectCount) entries) is outside the file")
    }
    guard top < objectCount else {
      throw Malformed(reason: "its top object (\(top)) is not one of its \(objectCount) objects")
    }
    let table = Int(tableOffset)
    var offsets: [Int] = []
    offsets.reserveCapacity(Int(objectCount))
    for index in 0..<Int(objectCount) {
      let offset = Self.bigEndian(bytes, at: table + index * offsetSize, size: offsetSize)
      guard offset >= UInt64(Self.magic.count), offset < tableOffset else {
        throw Malformed(reason: "object \(index) starts at byte \(offset), outside the objects")
      }
      offsets.append(Int(offset))
    }
    self.offsets = offsets
    topObject = Int(top)
    objectsEnd = table
  }

  private static func bigEndian(_ bytes: [UInt8], at start: Int, size: Int) -> UInt64 {
    var value: UInt64 = 0
    for byte in bytes[start..<start + size] { value = value << 8 | UInt64(byte) }
    return value
  }

  /// The objects read so far, by index, and those being read (to find an object that contains itself).
  private struct Progress {
    var done: [Int: PropertyListValue] = [:]
    var reading: Set<Int> = []
  }

  private func readTop() throws -> PropertyListValue {
    var progress = Progress()
    return try object(topObject, depth: 0, progress: &progress)
  }

  private func object(_ index: Int, depth: Int, progress: inout Progress) throws -> PropertyListValue {
    if let value = progress.done[index] { return value }
    guard depth < Self.maximumDepth else {
      throw Malformed(reason: "its objects are nested more than \(Self.maximumDepth) deep")
    }
    guard progress.reading.insert(index).inserted else {
      throw Malformed(reason: "object \(index) contains itself (a cycle of containers)")
    }
    let value = try parse(index, depth: depth, progress: &progress)
    progress.reading.remove(index)
    progress.done[index] = value
    return value
  }

  /// Checks that `count` items of `size` bytes from `start` lie within the objects.
  private func within(_ start: Int, count: Int, size: Int, of index: Int) throws {
    guard count >= 0, start <= objectsEnd, count <= (objectsEnd - start) / max(size, 1) else {
      throw Malformed(reason: "object \(index) claims \(count) items, more than the file holds")
    }
  }

  /// The count in a marker's low nibble, or the integer object after it when the nibble is 0xF; and where
  /// the contents start.
  private func count(_ nibble: Int, at position: Int, of index: Int) throws -> (count: Int, start: Int) {
    guard nibble == 0xF else { return (nibble, position) }
    try within(position, count: 1, size: 1, of: index)
    let marker = bytes[position]
    guard marker >> 4 == 0x1, marker & 0xF <= 3 else {
      throw Malformed(reason: "object \(index) has a length that is not an integer")
    }
    let size = 1 << Int(marker & 0xF)
    try within(position + 1, count: size, size: 1, of: index)
    let value = Self.bigEndian(bytes, at: position + 1, size: size)
    guard value <= UInt64(objectsEnd) else {
      throw Malformed(reason: "object \(index) claims \(value) items, more than the file holds")
    }
    return (Int(value), position + 1 + size)
  }

  private func references(_ count: Int, at start: Int, of index: Int) throws -> [Int] {
    try within(start, count: count, size: referenceSize, of: index)
    return try (0..<count).map { item in
      let reference = Self.bigEndian(bytes, at: start + item * referenceSize, size: referenceSize)
      guard reference < UInt64(offsets.count) else {
        throw Malformed(
          reason: "object \(index) refers to object \(reference), but there are only \(offsets.count) objects")
      }
      return Int(reference)
    }
  }

  private func parse(_ index: Int, depth: Int, progress: inout Progress) throws -> PropertyListValue {
    let start = offsets[index]
    let marker = bytes[start]
    let nibble = Int(marker & 0xF)
    switch marker >> 4 {
    case 0x0:
      switch marker {
      case 0x00: return .null
      case 0x08: return .bool(false)
      case 0x09: return .bool(true)
      default: throw Malformed(reason: "object \(index) has the unknown marker 0x\(String(marker, radix: 16))")
      }
    case 0x1:
      guard nibble <= 4 else { throw Malformed(reason: "object \(index) is an integer of 2^\(nibble) bytes") }
      let size = 1 << nibble
      try within(start + 1, count: size, size: 1, of: index)
      if size == 16 {
        // A 16-byte integer holds an unsigned 64-bit value in its low half.
        let high = Self.bigEndian(bytes, at: start + 1, size: 8)
        let low = Self.bigEndian(bytes, at: start + 9, size: 8)
        guard high == 0, low <= UInt64(Int64.max) else {
          throw Malformed(reason: "object \(index) is an integer too large for 64 bits")
        }
        return .integer(Int64(low))
      }
      let raw = Self.bigEndian(bytes, at: start + 1, size: size)
      // 1, 2 and 4-byte integers are unsigned; 8-byte ones are signed.
      return .integer(size == 8 ? Int64(bitPattern: raw) : Int64(raw))
    case 0x2:
      guard nibble == 2 || nibble == 3 else {
        throw Malformed(reason: "object \(index) is a real of 2^\(nibble) bytes (4 or 8 expected)")
      }
      let size = 1 << nibble
      try within(start + 1, count: size, size: 1, of: index)
      let raw = Self.bigEndian(bytes, at: start + 1, size: size)
      return .real(size == 8 ? Double(bitPattern: raw) : Double(Float(bitPattern: UInt32(raw))))
    case 0x3:
      guard marker == 0x33 else { throw Malformed(reason: "object \(index) is a date that is not 8 bytes") }
      try within(start + 1, count: 8, size: 1, of: index)
      let seconds = Double(bitPattern: Self.bigEndian(bytes, at: start + 1, size: 8))
      guard seconds.isFinite else { throw Malformed(reason: "object \(index) is a date that is not a number") }
      return .date(Date(timeIntervalSinceReferenceDate: seconds))
    case 0x4:
      let (length, contents) = try count(nibble, at: start + 1, of: index)
      try within(contents, count: length, size: 1, of: index)
      return .data(Data(bytes[contents..<contents + length]))
    case 0x5, 0x7:
      let (length, contents) = try count(nibble, at: start + 1, of: index)
      try within(contents, count: length, size: 1, of: index)
      let slice = bytes[contents..<contents + length]
      if marker >> 4 == 0x5, slice.contains(where: { $0 >= 0x80 }) {
        throw Malformed(reason: "object \(index) is an ASCII string with bytes that are not ASCII")
      }
      guard let text = String(validating: slice, as: UTF8.self) else {
        throw Malformed(reason: "object \(index) is a string that is not valid text")
      }
      return .string(text)
    case 0x6:
      let (length, contents) = try count(nibble, at: start + 1, of: index)
      try within(contents, count: length, size: 2, of: index)
      let units = (0..<length).map { UInt16(bytes[contents + 2 * $0]) << 8 | UInt16(bytes[contents + 2 * $0 + 1]) }
      guard let text = String(validating: units, as: UTF16.self) else {
        throw Malformed(reason: "object \(index) is a UTF-16 string that is not valid text")
      }
      return .string(text)
    case 0x8:
      let size = nibble + 1
      guard size <= 8 else { throw Malformed(reason: "object \(index) is a UID of \(size) bytes") }
      try within(start + 1, count: size, size: 1, of: index)
      return .uid(Self.bigEndian(bytes, at: start + 1, size: size))
    case 0xA, 0xB, 0xC:
      let (length, contents) = try count(nibble, at: start + 1, of: index)
      let members = try references(length, at: contents, of: index).map {
        try object($0, depth: depth + 1, progress: &progress)
      }
      return marker >> 4 == 0xA ? .array(members) : .set(members)
    case 0xD:
      let (length, contents) = try count(nibble, at: start + 1, of: index)
      let keys = try references(length, at: contents, of: index)
      let values = try references(length, at: contents + length * referenceSize, of: index)
      var entries: [String: PropertyListValue] = [:]
      for (key, value) in zip(keys, values) {
        guard case .string(let name) = try object(key, depth: depth + 1, progress: &progress) else {
          throw Malformed(reason: "object \(index) is a dictionary with a key that is not a string")
        }
        entries[name] = try object(value, depth: depth + 1, progress: &progress)
      }
      return .dictionary(entries)
    default:
      throw Malformed(reason: "object \(index) has the unknown marker 0x\(String(marker, radix: 16))")
    }
  }
}
