import Foundation

/// The result of a ``PersistentHistoryChangeRequest`` (Core Data's `NSPersistentHistoryResult`).
public final class PersistentHistoryResult: PersistentStoreResult {
  /// The kind of ``result``.
  public let resultType: PersistentHistoryResultType
  /// `Bool`, `Int`, `[PersistentHistoryTransaction]` or `[PersistentHistoryChange]`, by ``resultType``.
  public let result: Any?

  init(resultType: PersistentHistoryResultType, result: Any?) {
    self.resultType = resultType
    self.result = result
  }
}
