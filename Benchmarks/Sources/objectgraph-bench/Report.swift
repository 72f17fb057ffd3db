import Foundation

/// Wall-clock timing with the monotonic `ContinuousClock`.
enum Stopwatch {
  static func seconds(_ body: () throws -> Void) rethrows -> Double {
    let elapsed = try ContinuousClock().measure(body)
    let (seconds, attoseconds) = elapsed.components
    return Double(seconds) + Double(attoseconds) * 1e-18
  }
}

/// One benchmark's runs on both engines; the best (minimum) of each is what is reported.
struct BenchmarkResult {
  let name: String
  private(set) var objectGraphRuns: [Double] = []
  private(set) var grdbRuns: [Double] = []

  init(name: String) { self.name = name }

  mutating func record(objectGraph seconds: Double) { objectGraphRuns.append(seconds) }
  mutating func record(grdb seconds: Double) { grdbRuns.append(seconds) }

  var objectGraphBest: Double { objectGraphRuns.min() ?? .nan }
  var grdbBest: Double { grdbRuns.min() ?? .nan }
  /// ObjectGraph time / GRDB time: 1.0 is as fast as hand-written GRDB, 2.0 twice as slow.
  var ratio: Double { objectGraphBest / grdbBest }
}

enum Report {
  static func table(_ results: [BenchmarkResult], sides: (String, String) = ("ObjectGraph s", "GRDB s")) -> String {
    let header = ["benchmark", sides.0, sides.1, "ratio"]
    let rows = results.map { result in
      [result.name, format(result.objectGraphBest, digits: 4), format(result.grdbBest, digits: 4), format(result.ratio, digits: 2) + "x"]
    }
    return grid(header: header, rows: rows)
  }

  /// A table with a header and a rule: the first column left-aligned, the others right-aligned.
  static func grid(header: [String], rows: [[String]]) -> String {
    let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
    func line(_ cells: [String]) -> String {
      cells.enumerated().map { column, cell in
        column == 0 ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0) : leftPad(cell, widths[column])
      }.joined(separator: " | ")
    }
    let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "-|-")
    return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
  }

  static func verdict(_ results: [BenchmarkResult], target: Double, goal: Double) -> String {
    let worst = results.map(\.ratio).max() ?? .nan
    let targetText = results.allSatisfy { $0.ratio <= target } ? "yes" : "NO"
    let goalText = results.allSatisfy { $0.ratio <= goal } ? "yes" : "NO"
    return
      "worst ratio \(format(worst, digits: 2))x; every ratio <= \(format(target, digits: 1))x (target): \(targetText); every ratio <= \(format(goal, digits: 1))x (goal): \(goalText)"
  }

  static func format(_ value: Double, digits: Int) -> String {
    String(format: "%.\(digits)f", value)
  }

  /// `duration` in seconds, with `digits` decimals.
  static func format(_ duration: Duration, digits: Int) -> String {
    format(duration / .seconds(1), digits: digits)
  }

  /// `bytes` in whole mebibytes, without the unit.
  static func mebibytes(_ bytes: Int) -> String {
    String(Int((Double(bytes) / 1_048_576).rounded()))
  }

  private static func leftPad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
  }
}
