import Foundation

/// A value guarded by a lock: the one small lock every shared mutable state in the engine goes through.
///
/// Named `Locked`, not `Mutex`, so that it never shadows the standard library's `Synchronization.Mutex`
/// (a non-copyable struct) in a file that imports both. `Locked` is a class: it can be captured by
/// escaping closures and shared by reference, which the engine's callbacks need.
///
/// `Locked` is `Sendable` because every read and write of `value` happens inside `withLock`, which holds
/// an `NSLock` for its whole duration, so no two threads ever see the value at the same time.
final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value.
  func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
