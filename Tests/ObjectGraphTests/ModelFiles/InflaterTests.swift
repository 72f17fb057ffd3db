import Foundation
import SHA256
import TestSupport
import Testing

@testable import ObjectGraph

/// The raw DEFLATE decompressor (RFC 1951) that reads Core Data's model cache: every block type as Python's
/// zlib writes it (`Fixtures/Deflate/make.py`), and damaged or hostile input refused with a reason, never a
/// trap or a hang.
@Suite("Inflating raw DEFLATE data", .temporaryFolders)
struct InflaterTests {
  static let folder = TestFolders.fixtures.appendingPathComponent("Deflate", isDirectory: true)

  static func fixture(_ name: String) throws -> Data {
    try Data(contentsOf: folder.appendingPathComponent(name))
  }

  @Test(
    "What Python's zlib wrote inflates to the original: stored blocks, fixed codes, dynamic codes, and blocks of several kinds",
    arguments: ["stored.deflate", "fixed.deflate", "dynamic.deflate", "mixed.deflate"])
  func zlibOutput(name: String) throws {
    let plain = try Self.fixture("plain.bin")
    let compressed = try Self.fixture(name)
    // The first block's type (bits 1-2 of the first byte), so that each file covers the kind it is named for.
    let firstType = (compressed[compressed.startIndex] >> 1) & 3
    let expectedType: UInt8 = ["stored.deflate": 0, "fixed.deflate": 1, "dynamic.deflate": 2, "mixed.deflate": 1][name] ?? 9
    #expect(firstType == expectedType)
    #expect(try Inflater.inflate(compressed) == plain)
  }

  @Test("Core Data's model caches inflate to the archives Python's zlib gives (size and SHA-256)", .needsFixtures)
  func appleCaches() throws {
    let expected: [String: (count: Int, sha256: String)] = [
      "SampleModel_V1.sqlite": (5642, "677bd0c6350ada6c60e2a21fba5851c8a39c7b2d544471a61c6607600d8912db"),
      "SampleModel_V2.sqlite": (5572, "febda00c6baefb6924b90ccdc1b7bf9f5d05d2b94795474d6702ca9659fe091a"),
      "TestModel.sqlite": (2598, "fbee7dbeda72c190cba28be30eb26ea0f380d0c8aed9af41a4fd13835b0808af"),
      "Bookmarks_V2.sqlite": (4026, "9ae13fa8d50943ac8b4a6cc7faec3ebeca6a4a917a9016853337f73cef86a2f4"),
      "SyncMetadata_V3.sqlite": (3601, "2a1ac809d6af0ae49c80b6bb877b7e381091ac36ef8288729b626bd99c195bab"),
    ]
    for store in try ModelCacheTests.cachedStores() {
      let folder = try TemporaryFolder()
      let url = try ModelCacheTests.copy(store, into: folder)
      let compressed = try #require(try NSPersistentStore.inspect(url: url) { try StoreModelCache.stored(in: $0) })
      let archive = try Inflater.inflate(compressed)
      let want = try #require(expected[store.store], "\(store.store) has no expected archive")
      #expect(archive.count == want.count, "\(store.store)")
      #expect(SHA256.hash(archive).map { String(format: "%02x", $0) }.joined() == want.sha256, "\(store.store)")
    }
  }

  @Test("The output limit is kept: a small input that would inflate past it is refused, saying so")
  func limit() throws {
    let plain = try Self.fixture("plain.bin")
    #expect(try Inflater.inflate(Self.fixture("dynamic.deflate"), limit: plain.count) == plain)
    for name in ["stored.deflate", "dynamic.deflate"] {
      let error = #expect(throws: Inflater.Malformed.self) { try Inflater.inflate(Self.fixture(name), limit: plain.count - 1) }
      #expect(error?.reason.contains("more than \(plain.count - 1) bytes") == true, "\(error?.reason ?? "")")
    }
    // 16 KB of fixed-code input that gives 2,580,001 bytes: 'a', then 10,000 copies of 258 bytes, each
    // starting 1 byte back.
    var bomb = BitWriter()
    bomb.header(final: true, type: 1)
    bomb.fixedLiteral(0x61)
    for _ in 0..<10_000 {
      bomb.code(0b1100_0101, length: 8)  // length symbol 285: 258 bytes
      bomb.code(0, length: 5)  // distance symbol 0: 1 byte back
    }
    bomb.code(0, length: 7)  // end of block
    #expect(try Inflater.inflate(bomb.data).count == 2_580_001)
    let error = #expect(throws: Inflater.Malformed.self) { try Inflater.inflate(bomb.data, limit: 1 << 20) }
    #expect(error?.reason.contains("inflates to more than 1048576 bytes") == true)
  }

  @Test("Damaged input is refused with its reason")
  func malformed() throws {
    var backReference = BitWriter()
    backReference.header(final: true, type: 1)
    backReference.code(0b000_0001, length: 7)  // length symbol 257: 3 bytes
    backReference.code(0, length: 5)  // distance 1, with nothing produced yet
    backReference.code(0, length: 7)

    var undefinedDistance = BitWriter()
    undefinedDistance.header(final: true, type: 1)
    undefinedDistance.fixedLiteral(0x61)
    undefinedDistance.code(0b000_0001, length: 7)
    undefinedDistance.code(30, length: 5)  // distance symbol 30: not in DEFLATE

    var undefinedLength = BitWriter()
    undefinedLength.header(final: true, type: 1)
    undefinedLength.code(0b1100_0110, length: 8)  // length symbol 286: not in DEFLATE

    var oversubscribed = BitWriter()
    oversubscribed.header(final: true, type: 2)
    oversubscribed.bits(0, 5)
    oversubscribed.bits(0, 5)
    oversubscribed.bits(15, 4)  // 19 code-length codes
    for _ in 0..<19 { oversubscribed.bits(1, 3) }  // all of one bit: 19 codes for 2 bit strings

    var repeatFirst = BitWriter()
    repeatFirst.header(final: true, type: 2)
    repeatFirst.bits(0, 5)
    repeatFirst.bits(0, 5)
    repeatFirst.bits(0, 4)  // 4 code-length codes, for 16, 17, 18, 0
    for length in [1, 0, 0, 1] { repeatFirst.bits(length, 3) }  // 0 → bit 0, 16 → bit 1
    repeatFirst.code(1, length: 1)  // 16: repeat the previous length, of which there is none

    var noEnd = BitWriter()
    noEnd.header(final: true, type: 2)
    noEnd.bits(0, 5)  // 257 literal/length codes
    noEnd.bits(0, 5)  // 1 distance code
    noEnd.bits(0, 4)
    for length in [0, 1, 2, 2] { noEnd.bits(length, 3) }  // codes: 17 → 0, 0 → 10, 18 → 11
    noEnd.code(0b11, length: 2)
    noEnd.bits(138 - 11, 7)  // 138 zeros
    noEnd.code(0b11, length: 2)
    noEnd.bits(120 - 11, 7)  // 120 zeros: 258 lengths, all 0, so symbol 256 has no code

    let dynamic = try Self.fixture("dynamic.deflate")
    let cases: [(String, Data, String)] = [
      ("empty input", Data(), "cut short"),
      ("block type 3", Data([0x07]), "type 3"),
      ("stored length and check disagree", Data([0x01, 0x05, 0x00, 0x00, 0x00]), "disagree"),
      ("stored block cut short", Data([0x01, 0x05, 0x00, 0xFA, 0xFF, 0x61, 0x62]), "only 2 are left"),
      ("stored header cut short", Data([0x01, 0x05, 0x00]), "cut short"),
      ("a reference before the start", backReference.data, "before the start"),
      ("distance symbol 30", undefinedDistance.data, "distance symbol 30"),
      ("length symbol 286", undefinedLength.data, "length symbol 286"),
      ("an oversubscribed code", oversubscribed.data, "oversubscribed"),
      ("a repeat with nothing to repeat", repeatFirst.data, "before giving any"),
      ("no end-of-block code", noEnd.data, "end-of-block"),
      ("a dynamic block cut short", dynamic.prefix(dynamic.count / 2), "cut short"),
      ("a final block missing", Data([0x00, 0x00, 0x00, 0xFF, 0xFF]), "cut short"),
    ]
    for (what, input, reason) in cases {
      let error = #expect(throws: Inflater.Malformed.self, "\(what)") { try Inflater.inflate(input) }
      #expect(error?.reason.contains(reason) == true, "\(what): \(error?.reason ?? "no error")")
    }
  }

  @Test("Changed and random bytes end in a result or a thrown Malformed, never a trap or a hang")
  func hostile() throws {
    let dynamic = try Self.fixture("dynamic.deflate")
    var random = SeededGenerator(seed: 1951)
    for round in 0..<300 {
      var input = round < 200 ? dynamic : Data((0..<Int(random.next() % 600)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
      if round < 200 {
        for _ in 0..<(1 + round % 4) {
          let index = input.startIndex + Int(random.next() % UInt64(input.count))
          input[index] ^= UInt8(truncatingIfNeeded: random.next() | 1)
        }
      }
      do {
        _ = try Inflater.inflate(input, limit: 1 << 20)
      } catch is Inflater.Malformed {
      }
    }
  }
}

/// A repeatable stream of random numbers (SplitMix64), so that a failure of ``InflaterTests/hostile()`` can
/// be run again.
private struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    return UInt64(bitPattern: Int64(SplitMix.mix(state)))
  }
}

/// Writes DEFLATE bits for hand-made test inputs: header fields least significant bit first, Huffman codes
/// most significant bit first, as RFC 1951 packs them.
private struct BitWriter {
  private(set) var bytes: [UInt8] = []
  private var used = 8

  var data: Data { Data(bytes) }

  mutating func bits(_ value: Int, _ count: Int) {
    for bit in 0..<count {
      if used == 8 {
        bytes.append(0)
        used = 0
      }
      bytes[bytes.count - 1] |= UInt8((value >> bit) & 1) << UInt8(used)
      used += 1
    }
  }

  mutating func code(_ code: Int, length: Int) {
    for bit in (0..<length).reversed() { bits((code >> bit) & 1, 1) }
  }

  mutating func header(final: Bool, type: Int) {
    bits(final ? 1 : 0, 1)
    bits(type, 2)
  }

  /// A literal byte in the fixed code: 0-143 are the 8-bit codes 0x30..., 144-255 the 9-bit codes 0x190....
  mutating func fixedLiteral(_ byte: Int) {
    if byte < 144 { code(0x30 + byte, length: 8) } else { code(0x190 + byte - 144, length: 9) }
  }
}
