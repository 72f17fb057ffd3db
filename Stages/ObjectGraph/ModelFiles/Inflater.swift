import Foundation

/// Decompresses raw DEFLATE data (RFC 1951, no zlib or gzip header), as Core Data stores its compiled model
/// in a store's `Z_MODELCACHE`: stored blocks, blocks with the fixed Huffman codes, and blocks with codes of
/// their own (dynamic).
///
/// Written in Swift so that the engine links no compression library. Every input ends in a result or a
/// thrown ``Malformed``, never a trap or a hang: each step consumes input or produces output, every length,
/// code and distance is checked before it is used (a back-reference before the start of the output, a code
/// that is oversubscribed or absent, a stored block whose length check fails, input that ends inside a
/// block), and the output is refused beyond a limit (``defaultLimit``), so a small hostile input cannot make
/// the engine allocate without bound. Bytes after the final block are ignored, as zlib's raw inflate does.
struct Inflater {
  /// What is wrong with the compressed data, in words for an error message ("the input ends inside a block").
  struct Malformed: Error, Sendable {
    let reason: String
  }

  /// The largest output produced by default: 64 MiB, far beyond any model (Core Data's caches inflate to a
  /// few kilobytes), small enough that a hostile input cannot exhaust memory.
  static let defaultLimit = 64 << 20

  /// Decompresses `data`.
  /// - Parameters:
  ///   - data: raw DEFLATE data.
  ///   - limit: the most bytes the output may have.
  /// - Throws: ``Malformed`` saying what is wrong.
  static func inflate(_ data: Data, limit: Int = defaultLimit) throws -> Data {
    var inflater = Inflater(input: [UInt8](data), limit: limit)
    try inflater.run()
    return Data(inflater.output)
  }

  // MARK: - The format's tables (RFC 1951, section 3.2.5)

  /// The base length of length symbols 257...285, and how many extra bits follow each.
  private static let lengthBase: [Int] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
  ]
  private static let lengthExtra: [Int] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
  ]
  /// The base distance of distance symbols 0...29, and how many extra bits follow each.
  private static let distanceBase: [Int] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
    6145, 8193, 12289, 16385, 24577,
  ]
  private static let distanceExtra: [Int] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
  ]
  /// The order in which a dynamic block gives the code lengths of the code-length alphabet.
  private static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
  /// The longest Huffman code DEFLATE allows.
  private static let maximumCodeLength = 15

  /// The fixed literal/length code (section 3.2.6).
  private static let fixedLiterals: HuffmanCode = {
    let lengths =
      Array(repeating: 8, count: 144) + Array(repeating: 9, count: 112) + Array(repeating: 7, count: 24)
      + Array(repeating: 8, count: 8)
    return HuffmanCode.make(lengths: lengths).code
  }()
  /// The fixed distance code: 30 symbols of 5 bits (and the two unused ones, which decode to an error).
  private static let fixedDistances = HuffmanCode.make(lengths: Array(repeating: 5, count: 32)).code

  // MARK: - State

  private let input: [UInt8]
  private let limit: Int
  private var output: [UInt8] = []
  /// The next input byte not yet in `bitBuffer`.
  private var position = 0
  /// Bits read from the input and not yet used, the next one lowest.
  private var bitBuffer: UInt32 = 0
  private var bitCount = 0

  private init(input: [UInt8], limit: Int) {
    self.input = input
    self.limit = max(0, limit)
    output.reserveCapacity(min(self.limit, input.count * 4))
  }

  private mutating func run() throws {
    var isFinal = false
    var block = 0
    while !isFinal {
      block += 1
      isFinal = try bits(1) == 1
      switch try bits(2) {
      case 0: try storedBlock(block)
      case 1: try huffmanBlock(literals: Self.fixedLiterals, distances: Self.fixedDistances, block)
      case 2:
        let (literals, distances) = try dynamicCodes(block)
        try huffmanBlock(literals: literals, distances: distances, block)
      default: throw Malformed(reason: "block \(block) has type 3, which DEFLATE does not define")
      }
    }
  }

  // MARK: - Bits

  /// The next `count` bits (at most 16), the first one lowest.
  private mutating func bits(_ count: Int) throws -> Int {
    while bitCount < count {
      guard position < input.count else {
        throw Malformed(reason: "the data ends inside a block, after \(input.count) bytes: it is cut short")
      }
      bitBuffer |= UInt32(input[position]) << UInt32(bitCount)
      position += 1
      bitCount += 8
    }
    let value = Int(bitBuffer & ((1 << UInt32(count)) - 1))
    bitBuffer >>= UInt32(count)
    bitCount -= count
    return value
  }

  /// Decodes one symbol of `code`, reading its bits one at a time (canonical codes: each length's codes are
  /// consecutive, shorter codes first).
  private mutating func symbol(_ code: HuffmanCode, _ what: String, _ block: Int) throws -> Int {
    var value = 0
    var first = 0
    var index = 0
    for length in 1...Self.maximumCodeLength {
      value |= try bits(1)
      let count = code.counts[length]
      if value - first < count { return code.symbols[index + value - first] }
      index += count
      first = (first + count) << 1
      value <<= 1
    }
    throw Malformed(reason: "block \(block) has a \(what) code its Huffman table does not define")
  }

  // MARK: - Blocks

  /// A stored block: the rest of the current byte is skipped, then `LEN`, its one's complement `NLEN`, and
  /// `LEN` bytes copied as they are.
  private mutating func storedBlock(_ block: Int) throws {
    bitBuffer = 0
    bitCount = 0
    guard position + 4 <= input.count else {
      throw Malformed(reason: "the data ends inside the header of stored block \(block): it is cut short")
    }
    let length = Int(input[position]) | Int(input[position + 1]) << 8
    let check = Int(input[position + 2]) | Int(input[position + 3]) << 8
    position += 4
    guard length == check ^ 0xFFFF else {
      throw Malformed(reason: "stored block \(block) gives its length as \(length) and its check as \(check), which disagree")
    }
    guard length <= input.count - position else {
      throw Malformed(
        reason: "stored block \(block) holds \(length) bytes but only \(input.count - position) are left: it is cut short")
    }
    try reserve(length)
    output.append(contentsOf: input[position..<(position + length)])
    position += length
  }

  /// A block of literals and back-references in the given codes, up to its end-of-block symbol (256).
  private mutating func huffmanBlock(literals: HuffmanCode, distances: HuffmanCode, _ block: Int) throws {
    while true {
      let literal = try symbol(literals, "literal/length", block)
      if literal < 256 {
        try reserve(1)
        output.append(UInt8(literal))
        continue
      }
      if literal == 256 { return }
      let lengthIndex = literal - 257
      guard lengthIndex < Self.lengthBase.count else {
        throw Malformed(reason: "block \(block) uses length symbol \(literal), which DEFLATE does not define")
      }
      let length = Self.lengthBase[lengthIndex] + (try bits(Self.lengthExtra[lengthIndex]))
      let distanceSymbol = try symbol(distances, "distance", block)
      guard distanceSymbol < Self.distanceBase.count else {
        throw Malformed(reason: "block \(block) uses distance symbol \(distanceSymbol), which DEFLATE does not define")
      }
      let distance = Self.distanceBase[distanceSymbol] + (try bits(Self.distanceExtra[distanceSymbol]))
      guard distance <= output.count else {
        throw Malformed(
          reason: "block \(block) refers back \(distance) bytes when only \(output.count) have been produced: a reference "
            + "before the start of the data")
      }
      try reserve(length)
      // Byte by byte: a copy may overlap what it writes (a distance shorter than the length repeats).
      let start = output.count - distance
      for offset in 0..<length { output.append(output[start + offset]) }
    }
  }

  /// Reads a dynamic block's header: its literal/length and distance codes, given as code lengths that are
  /// themselves Huffman-coded.
  private mutating func dynamicCodes(_ block: Int) throws -> (HuffmanCode, HuffmanCode) {
    let literalCount = try bits(5) + 257
    let distanceCount = try bits(5) + 1
    let codeLengthCount = try bits(4) + 4
    guard literalCount <= 286, distanceCount <= 30 else {
      throw Malformed(
        reason: "block \(block) declares \(literalCount) literal/length and \(distanceCount) distance codes (at most 286 and 30)")
    }
    var codeLengthLengths = Array(repeating: 0, count: 19)
    for index in 0..<codeLengthCount { codeLengthLengths[Self.codeLengthOrder[index]] = try bits(3) }
    let (codeLengthCode, codeLengthState) = HuffmanCode.make(lengths: codeLengthLengths)
    guard codeLengthState == .complete else {
      throw Malformed(reason: "block \(block) has a code-length code that is \(codeLengthState)")
    }
    var lengths: [Int] = []
    lengths.reserveCapacity(literalCount + distanceCount)
    while lengths.count < literalCount + distanceCount {
      let symbol = try symbol(codeLengthCode, "code-length", block)
      let repeated: Int
      let count: Int
      switch symbol {
      case 0...15:
        lengths.append(symbol)
        continue
      case 16:
        guard let previous = lengths.last else {
          throw Malformed(reason: "block \(block) repeats a previous code length before giving any")
        }
        repeated = previous
        count = 3 + (try bits(2))
      case 17:
        repeated = 0
        count = 3 + (try bits(3))
      default:
        repeated = 0
        count = 11 + (try bits(7))
      }
      guard lengths.count + count <= literalCount + distanceCount else {
        throw Malformed(reason: "block \(block) gives more code lengths than the \(literalCount + distanceCount) it declares")
      }
      lengths.append(contentsOf: repeatElement(repeated, count: count))
    }
    guard lengths[256] != 0 else {
      throw Malformed(reason: "block \(block) has no code for its end-of-block symbol, so it could never end")
    }
    let (literals, literalState) = HuffmanCode.make(lengths: Array(lengths[0..<literalCount]))
    // An incomplete code is allowed only as a single code of one bit (what zlib writes for one symbol).
    guard literalState == .complete || (literalState == .incomplete && literals.isSingleOneBitCode) else {
      throw Malformed(reason: "block \(block) has a literal/length code that is \(literalState)")
    }
    let (distances, distanceState) = HuffmanCode.make(lengths: Array(lengths[literalCount...]))
    guard distanceState != .oversubscribed, distanceState != .incomplete || distances.isSingleOneBitCode || distances.isEmpty else {
      throw Malformed(reason: "block \(block) has a distance code that is \(distanceState)")
    }
    return (literals, distances)
  }

  /// Refuses to grow the output past the limit.
  private func reserve(_ count: Int) throws {
    guard count <= limit - output.count else {
      throw Malformed(reason: "it inflates to more than \(limit) bytes, more than any model could need")
    }
  }

  // MARK: - Huffman codes

  /// A canonical Huffman code, as DEFLATE defines it by its code lengths: how many codes each length has,
  /// and the symbols in code order.
  private struct HuffmanCode {
    /// Whether the lengths make a complete code (every bit string decodes), too few codes, or too many.
    enum State: CustomStringConvertible {
      case complete, incomplete, oversubscribed

      var description: String {
        switch self {
        case .complete: "complete"
        case .incomplete: "incomplete (some bit strings decode to nothing)"
        case .oversubscribed: "oversubscribed (more codes than bit strings)"
        }
      }
    }

    /// `counts[n]`: how many symbols have a code of `n` bits (index 0: symbols without a code).
    var counts = Array(repeating: 0, count: Inflater.maximumCodeLength + 1)
    /// The symbols that have a code, shortest codes first, then by symbol.
    var symbols: [Int] = []

    /// Whether no symbol has a code.
    var isEmpty: Bool { symbols.isEmpty }
    /// Whether the code is one symbol of one bit.
    var isSingleOneBitCode: Bool { symbols.count == 1 && counts[1] == 1 }

    /// Builds the code for `lengths` (each 0...15; 0: no code) and says whether it is complete.
    static func make(lengths: [Int]) -> (code: HuffmanCode, state: State) {
      var code = HuffmanCode()
      for length in lengths { code.counts[length] += 1 }
      var left = 1
      for length in 1...Inflater.maximumCodeLength {
        left = (left << 1) - code.counts[length]
        if left < 0 { return (code, .oversubscribed) }
      }
      var offsets = Array(repeating: 0, count: Inflater.maximumCodeLength + 1)
      for length in 1..<Inflater.maximumCodeLength { offsets[length + 1] = offsets[length] + code.counts[length] }
      code.symbols = Array(repeating: 0, count: lengths.count - code.counts[0])
      for (symbol, length) in lengths.enumerated() where length != 0 {
        code.symbols[offsets[length]] = symbol
        offsets[length] += 1
      }
      code.counts[0] = 0
      return (code, left == 0 ? .complete : .incomplete)
    }
  }
}
