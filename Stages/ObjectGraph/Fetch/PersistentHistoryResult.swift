import Foundation

/// The result of an ``NSPersistentHistoryChangeRequest``.
public final class NSPersistentHistoryResult: NSPersistentStoreResult {
  /// The kind of ``result``.
  public let resultType: NSPersistentHistoryResultType
  /// `Bool`, `Int`, `[NSPersistentHistoryTransaction]` or `[NSPersistentHistoryChange]`, by ``resultType``.
  public let result: Any?

  init(resultType: NSPersistentHistoryResultType, result: Any?) {
    self.resultType = resultType
    self.result = result
  }
}
