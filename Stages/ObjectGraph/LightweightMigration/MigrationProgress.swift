/// How far a store's migration has come, as the closure set under ``ObjectGraphMigrationProgressOption`` reports it.
///
/// The units are rows (plus one unit per schema step): a migration that fills a new column of a
/// million-row table moves through a million units, so a progress bar moves with the real work.
public struct MigrationProgress: Sendable, Equatable, CustomStringConvertible {
  /// Units done so far.
  public let completedUnitCount: Int64
  /// Units the migration will do in all; never 0.
  public let totalUnitCount: Int64

  /// Makes a progress report.
  public init(completedUnitCount: Int64, totalUnitCount: Int64) {
    self.totalUnitCount = max(totalUnitCount, 1)
    self.completedUnitCount = min(max(completedUnitCount, 0), self.totalUnitCount)
  }

  /// `completedUnitCount / totalUnitCount`, from 0 to 1.
  public var fractionCompleted: Double { Double(completedUnitCount) / Double(totalUnitCount) }

  /// Whether the migration is done.
  public var isFinished: Bool { completedUnitCount == totalUnitCount }

  public var description: String {
    "\(Int((fractionCompleted * 100).rounded(.down)))% (\(completedUnitCount) of \(totalUnitCount))"
  }
}
