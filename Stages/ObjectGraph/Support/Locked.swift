#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#else
  import Darwin
#endif

/// A value guarded by a lock: the one lock every shared mutable state in the engine goes through.
///
/// Named `Locked`, not `Mutex`, so that it never shadows the standard library's `Synchronization.Mutex`
/// in a file that imports both. `Locked` is a struct holding one reference: copies share the value and its
/// lock, so it can be captured by escaping closures, which the engine's callbacks need. The value and the
/// `pthread_mutex_t` live in a single allocation (a `ManagedBuffer`), whose address never moves.
///
/// Why not `Synchronization.Mutex`: on Linux it hands a contended lock from one thread to the next inside
/// the kernel (a priority-inheritance futex), where ThreadSanitizer cannot see it, so TSan reports the
/// values it guards as data races whenever two threads contend (a 20-line program with 8 threads shows it,
/// Swift 6.3). CI runs the concurrency suites under TSan and fails on any report, so the engine locks with
/// `pthread_mutex_lock`, which TSan intercepts and understands.
///
/// `Locked` is `Sendable` because every read and write of the value happens inside ``withLock(_:)``,
/// which holds the mutex for its whole duration, so no two threads ever touch the value at the same time.
struct Locked<Value>: @unchecked Sendable {
  private let storage: Storage

  init(_ value: Value) {
    storage = unsafeDowncast(Storage.create(minimumCapacity: 1) { _ in value }, to: Storage.self)
    storage.withUnsafeMutablePointerToElements { mutex in _ = pthread_mutex_init(mutex, nil) }
  }

  /// Runs `body` with exclusive access to the value.
  func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
    try storage.withUnsafeMutablePointers { value, mutex in
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      return try body(&value.pointee)
    }
  }

  /// The value (the header) and its mutex (the one element), in one allocation.
  private final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
    deinit {
      withUnsafeMutablePointerToElements { mutex in _ = pthread_mutex_destroy(mutex) }
    }
  }
}
