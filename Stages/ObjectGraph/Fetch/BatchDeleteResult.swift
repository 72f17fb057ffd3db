import Foundation

/// The result of a ``BatchDeleteRequest`` (Core Data's `NSBatchDeleteResult`).
public final class BatchDeleteResult: PersistentStoreResult {
  /// The kind of ``result``.
  public let resultType: BatchDeleteRequestResultType
  /// `Bool`, `[ManagedObjectID]` or `Int`, by ``resultType``.
  public let result: Any?

  init(resultType: BatchDeleteRequestResultType, result: Any?) {
    self.resultType = resultType
    self.result = result
  }
}
