import Dispatch
import Foundation
import ObjectGraph

/// Hears of saves that failed when nobody was waiting for them: the controller's own saves of the master
/// context (after a worker's save, at a lifecycle moment) and a ``PersistenceController/saveChanges(completion:)``
/// called without a completion.
///
/// Called on the main queue. The changes are not lost: they stay in the context that failed to save and
/// the next save tries them again; the delegate decides what the user is told.
///
/// ```swift
/// final class AppModel: PersistenceControllerDelegate {
///   func persistenceController(_ controller: PersistenceController, didFailToSave error: PersistenceControllerError) {
///     banner = "Your latest changes are not saved yet: \(error.underlyingError?.localizedDescription ?? "\(error)")"
///   }
/// }
/// ```
@MainActor
public protocol PersistenceControllerDelegate: AnyObject, Sendable {
  /// A save failed; `error` is ``PersistenceControllerError/saveFailed(_:)`` (or the store's load
  /// failure, when the store never loaded).
  func persistenceController(_ controller: PersistenceController, didFailToSave error: PersistenceControllerError)

  /// Other processes' changes were merged into the main context after a remote change notification
  /// (``StoreSharing``), or their history could not be read (``PersistenceControllerError/historyNotMerged(_:)``).
  /// Optional: nothing happens by default, as the main context has merged already.
  func persistenceController(_ controller: PersistenceController, didMergeHistory result: Result<HistoryMerge, PersistenceControllerError>)
}

extension PersistenceControllerDelegate {
  /// Does nothing: the main context has merged already.
  public func persistenceController(
    _ controller: PersistenceController, didMergeHistory result: Result<HistoryMerge, PersistenceControllerError>
  ) {}
}

extension PersistenceController {
  // MARK: - The master context

  /// Writes the writer's changes (the master context's) to the store, on its queue, without waiting.
  ///
  /// The controller calls it after every worker's save; call it when the app wants what its workers and
  /// main context have handed up to be on disk. Before the store is ready it waits for the store, as
  /// ``saveChanges(completion:)`` does. It does not save the main context: use ``saveChanges(completion:)``
  /// for that.
  ///
  /// - Parameter completion: called once on the main queue with the outcome. Without one, a failure goes
  ///   to the ``delegate``.
  public func saveMasterContext(completion: (@Sendable (Result<Void, PersistenceControllerError>) -> Void)? = nil) {
    let privateContext = privateContext
    whenStoreLoaded { [self] loaded in
      guard case .success = loaded else {
        deliver(loaded, to: completion)
        return
      }
      privateContext.perform { [self] in
        let result = Result { () throws(PersistenceControllerError) in
          do {
            if privateContext.hasChanges { try privateContext.save() }
          } catch {
            throw .saveFailed(error as NSError)
          }
        }
        deliver(result, to: completion)
      }
    }
  }

  /// Saves the main context into the writer, then the writer to disk, and returns once it is on disk.
  ///
  /// For work that must know its changes are safe before it goes on (the end of an import, a test). The
  /// main context's part runs on the main queue; call it from a task, not from the main actor's own work
  /// while the main queue is needed.
  ///
  /// - Throws: ``PersistenceControllerError/saveFailed(_:)`` (the changes are kept for the next save), or
  ///   the store's load failure.
  public func writeToDisk() async throws(PersistenceControllerError) {
    let mainContext = mainContext
    do {
      try await mainContext.perform {
        if mainContext.hasChanges { try mainContext.save() }
      }
    } catch {
      throw .saveFailed(error as NSError)
    }
    let written = await withCheckedContinuation { continuation in
      saveMasterContext { continuation.resume(returning: $0) }
    }
    try written.get()
  }

  // MARK: - The app's lifecycle

  /// The app is about to be interrupted (a call, the app switcher): saves everything, without waiting.
  /// Failures go to the ``delegate``.
  @MainActor
  public func appWillResignActive() { saveEverything() }

  /// The app went to the background, where it may be stopped without warning: saves everything, without
  /// waiting. Failures go to the ``delegate``.
  @MainActor
  public func appDidEnterBackground() { saveEverything() }

  /// The app is about to quit: saves everything and returns when it is on disk (or has failed, which the
  /// ``delegate`` hears of before this returns), since nothing runs after the app has quit.
  ///
  /// If the store is still loading (a long migration at launch), the main context's changes go up into the
  /// writer, which writes them once the store is there, if the app still runs by then.
  @MainActor
  public func appWillTerminate() {
    var failure: PersistenceControllerError?
    do {
      if mainContext.hasChanges { try mainContext.save() }
    } catch {
      failure = .saveFailed(error as NSError)
    }
    if failure == nil, isStoreLoaded {
      let privateContext = privateContext
      failure = privateContext.performAndWait {
        do {
          if privateContext.hasChanges { try privateContext.save() }
          return nil
        } catch {
          return .saveFailed(error as NSError)
        }
      }
    } else if failure == nil {
      saveMasterContext()
    }
    if let failure { delegate?.persistenceController(self, didFailToSave: failure) }
  }

  /// The main context into the writer, now; the writer to disk, on its queue.
  @MainActor
  private func saveEverything() {
    do {
      try saveChanges()
    } catch {
      delegate?.persistenceController(self, didFailToSave: .saveFailed(error as NSError))
    }
  }

  // MARK: - Reporting

  /// Hands a failure nobody waits for to the delegate, on the main queue.
  func reportSaveFailure(_ error: PersistenceControllerError) {
    DispatchQueue.main.async { [self] in
      MainActor.assumeIsolated { delegate?.persistenceController(self, didFailToSave: error) }
    }
  }

  /// `result` to `completion` on the main queue when there is one; a failure to the delegate otherwise.
  private func deliver(
    _ result: Result<Void, PersistenceControllerError>,
    to completion: (@Sendable (Result<Void, PersistenceControllerError>) -> Void)?
  ) {
    if let completion {
      DispatchQueue.main.async { completion(result) }
    } else if case .failure(let error) = result {
      reportSaveFailure(error)
    }
  }
}
