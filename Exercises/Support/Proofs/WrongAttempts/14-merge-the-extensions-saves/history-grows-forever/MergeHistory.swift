// Exercise 14: merge the share extension's saves.
// The task is in Exercises/14-merge-the-extensions-saves/README.md; hints in HINTS.md next to it.
import Foundation
import ObjectGraph

/// Brings what other processes (the app's share extension) saved to the store since `token` into `context`,
/// then deletes the history it has read.
///
/// The app calls it each time the store posts a remote change notification, passing the token the previous
/// call returned (`nil` the first time, to read all of the store's history).
///
/// - Parameters:
///   - context: the app's context, on the coordinator of the app's own stack (a private-queue context: use it
///     inside its `performAndWait`).
///   - token: where the previous call got to, or `nil`.
///   - author: the app's own transaction author: the app's saves are in the app's context already.
/// - Returns: the token to pass to the next call.
/// - Throws: the error of a history request that fails.
public func mergeHistory(
  into context: NSManagedObjectContext, after token: NSPersistentHistoryToken?, skipping author: String
) throws -> NSPersistentHistoryToken? {
  try context.performAndWait {
    let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
    let result = try context.execute(request) as? NSPersistentHistoryResult
    let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
    for transaction in transactions where transaction.author != author {
      context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
    }
    // The history is kept: the token is enough to know where we got to.
    return transactions.last?.token ?? token
  }
}
