import Foundation

/// The result of an ``NSBatchDeleteRequest``.
public final class NSBatchDeleteResult: NSPersistentStoreResult {
  /// The kind of ``result``.
  public let resultType: NSBatchDeleteRequestResultType
  /// `Bool`, `[NSManagedObjectID]` or `Int`, by ``resultType``.
  public let result: Any?

  init(resultType: NSBatchDeleteRequestResultType, result: Any?) {
    self.resultType = resultType
    self.result = result
  }
}
