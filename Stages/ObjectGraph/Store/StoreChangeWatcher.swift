import Dispatch
import Foundation
internal import GRDB

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Watches a SQLite store file for committed writes by any connection: this process's stores, other
/// coordinators on the same file, other processes. What posts Core Data's remote change notification
/// (``NSPersistentStoreRemoteChangeNotificationPostOptionKey``).
///
/// A commit is told by SQLite itself: the watcher keeps a connection of its own to the file, which writes
/// nothing, and asks it `PRAGMA data_version`, whose value changes when any other connection has committed.
/// When to ask: on Linux, the kernel says when a file of the store's folder changes (inotify: the store, its
/// `-wal`, its `-journal`); as a commit becomes visible to readers only after its last write (the WAL index is
/// shared memory, which raises no event), each event is followed by a look at once and two more a little
/// later. A slow look every second catches anything else (and is the only way elsewhere). Several commits
/// close together may be told as one change: a reader fetches the history after its last token anyway.
///
/// `onChange` runs on the watcher's private queue with the store's last history transaction number (`nil`
/// when the store keeps no history). ``stop()`` ends the watching; it also ends when the watcher is released.
final class StoreChangeWatcher: Sendable {
  /// How long after an event of the folder the file is looked at again, in milliseconds.
  static let settleLooks = [0, 25, 250]
  /// How often the file is looked at without an event.
  static let interval: DispatchTimeInterval = .seconds(1)

  private let queue: DispatchQueue
  private let connection: DatabaseQueue
  private let readsHistory: Bool
  private let onChange: @Sendable (Int64?) -> Void
  private let state = Locked(State())

  private struct State {
    var dataVersion: Int64?
    var sources: [any DispatchSourceProtocol] = []
    var stopped = false
  }

  /// Starts watching the SQLite file at `url`. Throws when the file cannot be opened for reading.
  init(url: URL, readsHistory: Bool, onChange: @escaping @Sendable (Int64?) -> Void) throws {
    var configuration = Configuration()
    configuration.label = "ObjectGraph.remoteChange"
    configuration.busyMode = .timeout(1)
    configuration.readonly = false  // never writes: a read-only connection cannot read a WAL file's new frames
    connection = try DatabaseQueue(path: url.path, configuration: configuration)
    queue = DispatchQueue(label: "ObjectGraph.remoteChange")
    self.readsHistory = readsHistory
    self.onChange = onChange
    let version = try connection.inDatabase { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") }
    state.withLock { $0.dataVersion = version }

    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
    timer.setEventHandler { [weak self] in self?.look() }
    var sources: [any DispatchSourceProtocol] = [timer]
    #if canImport(Glibc) || canImport(Musl)
      if let events = Self.folderEvents(of: url, queue: queue, handler: { [weak self] in self?.settle() }) {
        sources.append(events)
      }
    #endif
    state.withLock { $0.sources = sources }
    for source in sources { source.resume() }
  }

  deinit { stop() }

  /// Stops watching; no `onChange` call starts after it returns (one already running finishes).
  func stop() {
    let sources = state.withLock { state -> [any DispatchSourceProtocol] in
      state.stopped = true
      defer { state.sources = [] }
      return state.sources
    }
    for source in sources { source.cancel() }
  }

  /// Looks now and a little later: the commit an event belongs to may become visible only after it.
  private func settle() {
    for delay in Self.settleLooks {
      queue.asyncAfter(deadline: .now() + .milliseconds(delay)) { [weak self] in self?.look() }
    }
  }

  /// Asks SQLite whether anyone committed since the last look, and says so.
  private func look() {
    guard !state.withLock({ $0.stopped }) else { return }
    let read = try? connection.inDatabase { db -> (Int64?, Int64?) in
      let version = try Int64.fetchOne(db, sql: "PRAGMA data_version")
      guard readsHistory, try db.tableExists("ATRANSACTION") else { return (version, nil) }
      return (version, try Int64.fetchOne(db, sql: "SELECT MAX(Z_PK) FROM ATRANSACTION"))
    }
    guard let (version, lastTransaction) = read, let version else { return }
    let changed = state.withLock { state -> Bool in
      guard !state.stopped, state.dataVersion != version else { return false }
      state.dataVersion = version
      return true
    }
    if changed { onChange(lastTransaction) }
  }

  #if canImport(Glibc) || canImport(Musl)
    /// A source that calls `handler` when a file of the store's folder that belongs to the store is written,
    /// created, moved in or deleted; `nil` when the kernel will not watch the folder (the slow look remains).
    private static func folderEvents(of url: URL, queue: DispatchQueue, handler: @escaping @Sendable () -> Void)
      -> (any DispatchSourceProtocol)?
    {
      let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
      guard descriptor >= 0 else { return nil }
      let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_TO)
      guard inotify_add_watch(descriptor, url.deletingLastPathComponent().path, mask) >= 0 else {
        close(descriptor)
        return nil
      }
      let names = Set(["", "-wal", "-journal"].map { url.lastPathComponent + $0 })
      let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
      source.setEventHandler {
        if Self.drain(descriptor).contains(where: names.contains) { handler() }
      }
      source.setCancelHandler { close(descriptor) }
      return source
    }

    /// Reads every waiting event of an inotify descriptor and returns the names of the files they are about.
    private static func drain(_ descriptor: Int32) -> [String] {
      var names: [String] = []
      let capacity = 16 * 1024
      let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: MemoryLayout<inotify_event>.alignment)
      defer { buffer.deallocate() }
      while true {
        let count = read(descriptor, buffer, capacity)
        guard count > 0 else { break }
        var offset = 0
        while offset + MemoryLayout<inotify_event>.size <= count {
          let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
          let nameStart = offset + MemoryLayout<inotify_event>.size
          if event.len > 0 {
            let bytes = UnsafeRawBufferPointer(start: buffer + nameStart, count: Int(event.len))
            names.append(String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self))
          }
          offset = nameStart + Int(event.len)
        }
      }
      return names
    }
  #endif
}
