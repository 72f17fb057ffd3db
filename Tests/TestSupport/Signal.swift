import Synchronization

/// A value that threads share, behind a lock.
public final class Shared<Value: Sendable>: Sendable {
  private let value: Mutex<Value>

  public init(_ value: Value) { self.value = Mutex(value) }

  /// Runs `body` with the value, the lock held.
  public func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { value.withLock { body(&$0) } }
}

/// A value that arrives once, from any thread, and that any number of tasks may wait for.
public final class Signal<Value: Sendable>: Sendable {
  /// A signal that has not arrived yet.
  public init() {}

  private let state = Mutex<(value: Value?, waiters: [@Sendable (Value) -> Void])>((nil, []))

  /// Delivers `value` to the waiters, the first time only.
  public func fulfil(_ value: Value) {
    let waiters = state.withLock { state -> [@Sendable (Value) -> Void] in
      guard state.value == nil else { return [] }
      state.value = value
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter(value) }
  }

  /// The value, once it has arrived.
  public var value: Value? { state.withLock { $0.value } }

  /// Waits, suspended, for the value: 30 seconds at most, then throws ``WatchdogTimeout`` naming `what`.
  public func wait(_ what: String) async throws -> Value {
    try await Watchdog.callback(what) { done in
      let known = state.withLock { state -> Value? in
        if let value = state.value { return value }
        state.waiters.append(done)
        return nil
      }
      if let known { done(known) }
    }
  }
}
