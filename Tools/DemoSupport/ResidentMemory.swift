import Foundation

/// How much memory the process holds in RAM right now (its resident set), read from Linux's
/// `/proc/self/status`; `nil` where that file does not exist (macOS).
///
/// A demo samples it while it works and prints the highest value it saw, to show that memory stays flat
/// as work goes on rather than growing with it.
public enum ResidentMemory {
  /// The resident set size in bytes (`VmRSS`), or `nil` when it cannot be read.
  public static func current() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count >= 2, let kilobytes = Int(fields[1]) else { return nil }
      return kilobytes * 1024
    }
    return nil
  }

  /// `bytes` in whole mebibytes, for printing: "43 MB".
  public static func megabytes(_ bytes: Int) -> String { "\(Int((Double(bytes) / 1_048_576).rounded())) MB" }
}

/// The highest ``ResidentMemory`` seen by the calls to ``sample()`` since it was made.
public struct PeakMemory: Sendable {
  /// The highest resident size sampled so far, in bytes (0 when it cannot be read).
  public private(set) var bytes = ResidentMemory.current() ?? 0

  /// Starts at the present resident size.
  public init() {}

  /// Reads the resident size and keeps it if it is the highest yet.
  public mutating func sample() {
    if let now = ResidentMemory.current() { bytes = max(bytes, now) }
  }
}
