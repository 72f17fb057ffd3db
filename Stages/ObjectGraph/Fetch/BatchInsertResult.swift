import Foundation

/// The result of a ``BatchInsertRequest`` (Core Data's `NSBatchInsertResult`).
public final class BatchInsertResult: PersistentStoreResult {
  /// The kind of ``result``.
  public let resultType: BatchInsertRequestResultType
  /// `Bool`, `[ManagedObjectID]` or `Int`, by ``resultType``.
  public let result: Any?

  init(resultType: BatchInsertRequestResultType, result: Any?) {
    self.resultType = resultType
    self.result = result
  }
}
