import DemoSupport
import Foundation

/// The rows both engines insert: deterministic (a fixed-seed generator), built before any timing starts.
///
/// - `name`: `"item-"` + 8 random hex digits + `"-"` + the row number, so names are unique (a total
///   order for `ORDER BY name`) and not in insertion order (the sort has work to do).
/// - `count`: uniform in 0..<100_000 whatever the row count, so the predicate `count >= 50000 AND
///   score < 0.5` keeps about a quarter of the rows at any `--count`.
/// - `score`: uniform in [0, 1).
/// - `createdAt`: one row every 1.5 s from 2023-03-07; exactly representable, so it reads back bit for bit.
struct Dataset: Sendable {
  let names: [String]
  let counts: [Int64]
  let scores: [Double]
  let dates: [Date]

  var count: Int { names.count }

  /// The predicate's constants, shared by both engines.
  static let minimumCount = 50_000
  static let maximumScore = 0.5

  init(count: Int) {
    var generator = SeededGenerator(seed: 0x0B1E_C76A)
    var names: [String] = []
    var counts: [Int64] = []
    var scores: [Double] = []
    var dates: [Date] = []
    names.reserveCapacity(count)
    counts.reserveCapacity(count)
    scores.reserveCapacity(count)
    dates.reserveCapacity(count)
    for index in 0..<count {
      let hex = String(generator.next() & 0xFFFF_FFFF, radix: 16)
      names.append("item-" + String(repeating: "0", count: 8 - hex.count) + hex + "-\(index)")
      counts.append(Int64(generator.next() % 100_000))
      scores.append(Double(generator.next() >> 11) * 0x1p-53)
      dates.append(Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index) * 1.5))
    }
    self.names = names
    self.counts = counts
    self.scores = scores
    self.dates = dates
  }

  static func matchesPredicate(count: Int64, score: Double) -> Bool {
    count >= Int64(minimumCount) && score < maximumScore
  }

  /// The checksum a correct read of the rows `isIncluded` keeps must give.
  func checksum(where isIncluded: (_ count: Int64, _ score: Double) -> Bool) -> Checksum {
    var sum = Checksum()
    for index in 0..<count where isIncluded(counts[index], scores[index]) {
      sum.add(name: names[index], count: counts[index], score: scores[index], createdAt: dates[index])
    }
    return sum
  }
}

/// What a benchmark accumulates from the values it reads, so that the reads cannot be optimised away and
/// both engines can be checked to have read the same data. Order-independent (sums and XORs), since the
/// unsorted fetches need not agree on order.
struct Checksum: Sendable, Equatable, CustomStringConvertible {
  var rows = 0
  var nameBytes = 0
  var countSum: Int64 = 0
  var scoreBits: UInt64 = 0
  var dateBits: UInt64 = 0

  mutating func add(name: String, count: Int64, score: Double, createdAt: Date) {
    rows += 1
    nameBytes &+= name.utf8.count
    countSum &+= count
    scoreBits ^= score.bitPattern
    dateBits ^= createdAt.timeIntervalSinceReferenceDate.bitPattern
  }

  var description: String {
    "\(rows) rows (name bytes \(nameBytes), count sum \(countSum), score bits \(String(scoreBits, radix: 16)), date bits \(String(dateBits, radix: 16)))"
  }
}
