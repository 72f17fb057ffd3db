import Foundation

/// The result of an ``NSBatchInsertRequest``.
public final class NSBatchInsertResult: NSPersistentStoreResult {
  /// The kind of ``result``.
  public let resultType: NSBatchInsertRequestResultType
  /// `Bool`, `[NSManagedObjectID]` or `Int`, by ``resultType``.
  public let result: Any?

  init(resultType: NSBatchInsertRequestResultType, result: Any?) {
    self.resultType = resultType
    self.result = result
  }
}
