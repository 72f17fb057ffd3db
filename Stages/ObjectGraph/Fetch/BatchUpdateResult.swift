import Foundation

/// The result of a ``BatchUpdateRequest`` (Core Data's `NSBatchUpdateResult`).
public final class BatchUpdateResult: PersistentStoreResult {
  /// The kind of ``result``.
  public let resultType: BatchUpdateRequestResultType
  /// `Bool`, `[ManagedObjectID]` or `Int`, by ``resultType``.
  public let result: Any?

  init(resultType: BatchUpdateRequestResultType, result: Any?) {
    self.resultType = resultType
    self.result = result
  }
}
