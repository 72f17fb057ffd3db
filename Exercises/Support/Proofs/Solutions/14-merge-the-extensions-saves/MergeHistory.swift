// The reference solution of exercise 14, with the starter's API. The checks run against it when
// WORKSHOP_SOLUTIONS=1, which proves that they can pass.
import Foundation
import ObjectGraph

/// Brings what other processes saved to the store since `token` into `context`, skipping `author`'s own
/// transactions, then deletes the history it has read. Returns the token to pass next time.
public func mergeHistory(
  into context: NSManagedObjectContext, after token: NSPersistentHistoryToken?, skipping author: String
) throws -> NSPersistentHistoryToken? {
  try context.performAndWait {
    // Everything written since the last call, oldest first.
    let request = NSPersistentHistoryChangeRequest.fetchHistory(after: token)
    let result = try context.execute(request) as? NSPersistentHistoryResult
    let transactions = result?.result as? [NSPersistentHistoryTransaction] ?? []
    // The app's own saves are in its context already: only the others' are merged.
    for transaction in transactions where transaction.author != author {
      context.mergeChanges(fromContextDidSave: transaction.objectIDNotification())
    }
    guard let last = transactions.last else { return token }
    // The app is the only reader of this store's history: what it has read can go.
    _ = try context.execute(NSPersistentHistoryChangeRequest.deleteHistory(before: last.token))
    return last.token
  }
}
