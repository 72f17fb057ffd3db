import Foundation

/// The result of an ``NSBatchUpdateRequest``.
public final class NSBatchUpdateResult: NSPersistentStoreResult {
  /// The kind of ``result``.
  public let resultType: NSBatchUpdateRequestResultType
  /// `Bool`, `[NSManagedObjectID]` or `Int`, by ``resultType``.
  public let result: Any?

  init(resultType: NSBatchUpdateRequestResultType, result: Any?) {
    self.resultType = resultType
    self.result = result
  }
}
