// A wrong attempt at exercise 03, kept so that .ci/check-exercises.sh proves its check names the mistake:
// everything runs inside context.perform { }, and a semaphore waits for it to answer. Called on the main queue
// with a main-queue context (a button's action), the wait blocks the very queue perform queued the block on,
// so the block never runs: the app freezes.
import Dispatch
import ExerciseKit
import Foundation
import ObjectGraph

@discardableResult
public func saveIfNeeded(_ context: NSManagedObjectContext) throws -> Bool {
  nonisolated(unsafe) var result: Result<Bool, any Error> = .success(false)
  let done = DispatchSemaphore(value: 0)
  context.perform {
    result = Result {
      guard context.hasChanges else { return false }
      try context.save()
      return true
    }
    done.signal()
  }
  done.wait()
  return try result.get()
}
