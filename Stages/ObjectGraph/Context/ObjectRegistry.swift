import Foundation

/// A context's objects by ID: one object per ID (uniquing).
///
/// Two tables of pages of 64 consecutive keys (``PermanentObjects``). Objects with a permanent ID sit in
/// pages of primary keys of one table: a fetch, which reads rows in primary-key order, fills one page
/// after another instead of writing to a random place of a large hash table for each object. Objects with
/// a temporary ID sit in pages of the IDs' numbers, which the process hands out in order: a context's
/// inserts, and a parent taking a child's inserts, fill pages one after another too. When a save replaces
/// every temporary ID the context holds, that table is dropped in one step.
struct ObjectRegistry {
  private var permanent = PermanentObjects()
  private var temporary = PermanentObjects()
  /// Set only while the context's coordinator has a store that observes registrations (an
  /// `NSIncrementalStore`): every permanent ID gained or lost is noted there. `nil` otherwise, so that other
  /// contexts pay one test per change.
  var log: StoreRegistrationLog?

  subscript(id: NSManagedObjectID) -> NSManagedObject? {
    get {
      switch id.key {
      case .permanent(let store, let table, let primaryKey): permanent[store, table, primaryKey]
      case .temporary(let number): temporary[0, 0, Int64(bitPattern: number)]
      }
    }
    set {
      switch id.key {
      case .permanent(let store, let table, let primaryKey):
        permanent[store, table, primaryKey] = newValue
        if let log {
          if newValue != nil { log.noteRegistered(id) } else { log.noteUnregistered(id) }
        }
      case .temporary(let number): temporary[0, 0, Int64(bitPattern: number)] = newValue
      }
    }
  }

  /// The object of a fetched row, by its table and primary key (no ID object needed).
  subscript(source: RowSource, primaryKey: Int64) -> NSManagedObject? {
    get { permanent[source.storeNumber, source.table, primaryKey] }
    set {
      permanent[source.storeNumber, source.table, primaryKey] = newValue
      if let log, log.observes(store: source.storeNumber) {
        let id = source.makeID(primaryKey: primaryKey)
        if newValue != nil { log.noteRegistered(id) } else { log.noteUnregistered(id) }
      }
    }
  }

  var count: Int { permanent.count + temporary.count }
  var isEmpty: Bool { count == 0 }
  /// How many objects are registered under a temporary ID.
  var temporaryCount: Int { temporary.count }
  var objects: [NSManagedObject] { permanent.objects + temporary.objects }

  mutating func removeAll() {
    permanent = PermanentObjects()
    temporary = PermanentObjects()
    log?.noteAllUnregistered()
  }
  mutating func removeAllTemporary() { temporary = PermanentObjects() }

  /// Removes the objects that only the registry references and that `isRemovable` accepts.
  mutating func removeAll(unreferencedWhere isRemovable: (NSManagedObject) -> Bool) {
    guard let log else {
      permanent.removeAll(unreferencedWhere: isRemovable)
      temporary.removeAll(unreferencedWhere: isRemovable)
      return
    }
    // Each object let go is noted, and the store told once at the end.
    log.batch {
      permanent.removeAll(unreferencedWhere: { object in
        guard isRemovable(object) else { return false }
        log.noteUnregistered(object.objectID)
        return true
      })
    }
    temporary.removeAll(unreferencedWhere: isRemovable)
  }

  /// Starts writing down the pages that objects registered from now on open (a fetch's).
  mutating func beginRecordingPages() {
    permanent.isRecordingPages = true
    temporary.isRecordingPages = true
  }

  /// Stops writing down pages; the pages written down stay until ``removeAll(inRecordedPagesWhere:)``.
  mutating func endRecordingPages() {
    permanent.isRecordingPages = false
    temporary.isRecordingPages = false
  }

  /// Removes, from the pages written down since the last call only, the objects that only the registry
  /// references and that `isRemovable` accepts; forgets the pages. Returns how many objects it removed.
  @discardableResult
  mutating func removeAll(inRecordedPagesWhere isRemovable: (NSManagedObject) -> Bool) -> Int {
    let before = count
    if let log {
      log.batch {
        permanent.removeAll(inRecordedPagesWhere: { object in
          guard isRemovable(object) else { return false }
          log.noteUnregistered(object.objectID)
          return true
        })
      }
    } else {
      permanent.removeAll(inRecordedPagesWhere: isRemovable)
    }
    temporary.removeAll(inRecordedPagesWhere: isRemovable)
    return before - count
  }

  /// Forgets the pages written down, without looking at them (a full purge has just looked at everything).
  mutating func forgetRecordedPages() {
    permanent.forgetRecordedPages()
    temporary.forgetRecordedPages()
  }
}

/// Objects with permanent IDs, by store, table and primary key, in pages of 64 consecutive keys (the
/// registry keeps objects with temporary IDs in one too, by the IDs' numbers, as store 0, table 0).
///
/// Primary keys are handed out in order, so the objects of a table crowd into few pages; the page table
/// is small enough to stay in the processor's cache, and a page is filled slot after slot when rows
/// arrive in key order. A page with nothing left in it is dropped.
struct PermanentObjects {
  private struct PageKey: Hashable {
    let store: Int
    let table: Int64
    let page: Int64

    /// Three integers mixed with the table's seed (``SplitMix``), cheaper than a `Hasher` run.
    func _rawHashValue(seed: Int) -> Int {
      SplitMix.mix(
        (UInt64(bitPattern: page) &+ UInt64(truncatingIfNeeded: table) &* 0x9E37_79B9_7F4A_7C15)
          ^ UInt64(truncatingIfNeeded: store) &* 0xC2B2_AE3D_27D4_EB4F ^ UInt64(bitPattern: Int64(seed)))
    }
  }

  /// A class, so that filling a slot changes the page in place. Its 64 slots are one fixed allocation of
  /// strong references, read and written through a pointer: no array to check for uniqueness, and telling
  /// whether a slot is used reads its bits without retaining the object there.
  /// `@exclusivity(unchecked)`: a page is only touched by its registry, on its context's queue, one access
  /// at a time.
  private final class Page {
    let slots = UnsafeMutablePointer<NSManagedObject?>.allocate(capacity: PermanentObjects.pageSize)
    @exclusivity(unchecked) var used = 0

    init() { slots.initialize(repeating: nil, count: PermanentObjects.pageSize) }

    deinit {
      slots.deinitialize(count: PermanentObjects.pageSize)
      slots.deallocate()
    }

    /// Whether a slot holds an object (its reference is not zero).
    @inline(__always)
    func isUsed(_ slot: Int) -> Bool {
      UnsafeRawPointer(slots + slot).load(as: UInt.self) != 0
    }
  }

  private static let pageSize = 64
  private var pages: [PageKey: Page] = [:]
  private(set) var count = 0
  /// The page last written to: rows arriving in key order land in it 63 times out of 64. Unowned: the
  /// page is kept by `pages`, and this is cleared whenever a page leaves it.
  private var recentKey: PageKey?
  private var recentPage: Unmanaged<Page>?
  /// While set, each page made is written down in `recorded`: the pages a fetch opened, which the next
  /// fetch looks at first. Only new pages, so the rows of a fetch cost nothing more (a page is made once
  /// per 64 keys); objects a fetch adds to pages that were there before are left to the full purge.
  var isRecordingPages = false
  /// The pages written down.
  private var recorded: [PageKey] = []

  /// What setting a slot of an existing page did, or that there is no page for it.
  private enum SlotChange {
    case noPage, filled, emptied, emptiedPage, replaced
  }

  private mutating func forgetRecent() {
    recentKey = nil
    recentPage = nil
  }

  /// Runs `body` with the page of `key`, or `nil`, without retaining it.
  @inline(__always)
  private func withPage<T>(_ key: PageKey, _ body: (Page?) -> T) -> T {
    if let recentPage, recentKey == key { return recentPage._withUnsafeGuaranteedRef { body($0) } }
    return body(pages[key])
  }

  subscript(store: Int, table: Int64, primaryKey: Int64) -> NSManagedObject? {
    get {
      withPage(PageKey(store: store, table: table, page: primaryKey >> 6)) { $0?.slots[Int(primaryKey & 63)] }
    }
    set {
      let key = PageKey(store: store, table: table, page: primaryKey >> 6)
      let slot = Int(primaryKey & 63)
      let change = withPage(key) { page -> SlotChange in
        guard let page else { return .noPage }
        let wasUsed = page.isUsed(slot)
        page.slots[slot] = newValue
        switch (wasUsed, newValue != nil) {
        case (false, true):
          page.used += 1
          return .filled
        case (true, false):
          page.used -= 1
          return page.used == 0 ? .emptiedPage : .emptied
        default:
          return .replaced
        }
      }
      switch change {
      case .filled, .emptied, .replaced:
        if change == .filled { count += 1 }
        if change == .emptied { count -= 1 }
        if recentKey != key {
          recentKey = key
          recentPage = pages[key].map(Unmanaged.passUnretained)
        }
      case .emptiedPage:
        count -= 1
        pages[key] = nil
        forgetRecent()
      case .noPage:
        guard let newValue else { return }
        let page = Page()
        page.slots[slot] = newValue
        page.used = 1
        pages[key] = page
        if isRecordingPages { recorded.append(key) }
        recentKey = key
        recentPage = Unmanaged.passUnretained(page)
        count += 1
      }
    }
  }

  var objects: [NSManagedObject] {
    var result: [NSManagedObject] = []
    result.reserveCapacity(count)
    for page in pages.values {
      for slot in 0..<Self.pageSize { if let object = page.slots[slot] { result.append(object) } }
    }
    return result
  }

  /// Removes the objects that only this table references and that `isRemovable` accepts.
  mutating func removeAll(unreferencedWhere isRemovable: (NSManagedObject) -> Bool) {
    var emptied: [PageKey] = []
    for (key, page) in pages {
      removeAll(in: page, where: isRemovable)
      if page.used == 0 { emptied.append(key) }
    }
    for key in emptied { pages[key] = nil }
    if !emptied.isEmpty { forgetRecent() }
  }

  /// The same, in the pages written down only (see ``isRecordingPages``), which it then forgets.
  mutating func removeAll(inRecordedPagesWhere isRemovable: (NSManagedObject) -> Bool) {
    guard !recorded.isEmpty else { return }
    var emptied = false
    for key in recorded {
      guard let page = pages[key] else { continue }  // emptied since
      removeAll(in: page, where: isRemovable)
      if page.used == 0 {
        pages[key] = nil
        emptied = true
      }
    }
    recorded.removeAll(keepingCapacity: true)
    if emptied { forgetRecent() }
  }

  mutating func forgetRecordedPages() { recorded.removeAll(keepingCapacity: true) }

  private mutating func removeAll(in page: Page, where isRemovable: (NSManagedObject) -> Bool) {
    for slot in 0..<Self.pageSize where page.isUsed(slot) {
      guard isKnownUniquelyReferenced(&page.slots[slot]), let object = page.slots[slot], isRemovable(object) else { continue }
      page.slots[slot] = nil
      page.used -= 1
      count -= 1
    }
  }
}
