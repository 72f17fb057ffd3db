import Foundation

/// A context's objects by ID: one object per ID (uniquing).
///
/// Two tables. Objects with a temporary ID sit in a dictionary whose keys carry the ID's hash beside the
/// ID, so growing it never reads the ID objects; when a save replaces every temporary ID the context
/// holds, the table is dropped in one step. Objects with a permanent ID sit in pages of 64 primary keys
/// of one table (``PermanentObjects``): a fetch, which reads rows in primary-key order, fills one page
/// after another instead of writing to a random place of a large hash table for each object.
struct ObjectRegistry {
  struct Key: Hashable {
    let id: ManagedObjectID
    let hash: Int

    init(_ id: ManagedObjectID) {
      self.id = id
      hash = id.keyHash
    }

    static func == (lhs: Key, rhs: Key) -> Bool { lhs.hash == rhs.hash && lhs.id == rhs.id }
    func hash(into hasher: inout Hasher) { hasher.combine(hash) }

    /// What the dictionary actually calls: the ID's hash, already well spread, mixed with the table's
    /// per-instance seed in two multiply-xorshift rounds, instead of a full `Hasher` run for every
    /// lookup, insertion and re-hash.
    func _rawHashValue(seed: Int) -> Int {
      SplitMix.mix(UInt64(bitPattern: Int64(hash ^ seed)))
    }
  }

  private var permanent = PermanentObjects()
  private var temporary: [Key: ManagedObject] = [:]

  subscript(id: ManagedObjectID) -> ManagedObject? {
    get {
      switch id.key {
      case .permanent(let store, let table, let primaryKey): permanent[store, table, primaryKey]
      case .temporary: temporary[Key(id)]
      }
    }
    set {
      switch id.key {
      case .permanent(let store, let table, let primaryKey): permanent[store, table, primaryKey] = newValue
      case .temporary: temporary[Key(id)] = newValue
      }
    }
  }

  /// The object of a fetched row, by its table and primary key (no ID object needed).
  subscript(source: RowSource, primaryKey: Int64) -> ManagedObject? {
    get { permanent[source.storeNumber, source.table, primaryKey] }
    set { permanent[source.storeNumber, source.table, primaryKey] = newValue }
  }

  var count: Int { permanent.count + temporary.count }
  var isEmpty: Bool { count == 0 }
  /// How many objects are registered under a temporary ID.
  var temporaryCount: Int { temporary.count }
  var objects: [ManagedObject] { permanent.objects + Array(temporary.values) }

  mutating func removeAll() {
    permanent = PermanentObjects()
    temporary = [:]
  }
  mutating func removeAllTemporary() { temporary = [:] }

  /// Makes room for `additional` more objects under temporary IDs, so a parent taking a child's inserts
  /// grows its table once rather than doubling it step by step. Grows at least twofold when it grows, so
  /// many small saves stay linear overall.
  mutating func reserveTemporaryCapacity(_ additional: Int) {
    let needed = temporary.count + additional
    guard needed > temporary.capacity else { return }
    temporary.reserveCapacity(max(needed, temporary.capacity * 2))
  }

  /// Removes the objects that only the registry references and that `isRemovable` accepts.
  mutating func removeAll(unreferencedWhere isRemovable: (ManagedObject) -> Bool) {
    permanent.removeAll(unreferencedWhere: isRemovable)
    var unreferenced: [Key] = []
    // Walking indexes by hand, not `temporary.indices`: that collection would hold a second reference to
    // the table's storage, and the first `isKnownUniquelyReferenced(&…)` would copy the whole table.
    var index = temporary.startIndex
    while index != temporary.endIndex {
      if isKnownUniquelyReferenced(&temporary.values[index]), isRemovable(temporary.values[index]) {
        unreferenced.append(temporary.keys[index])
      }
      index = temporary.index(after: index)
    }
    for key in unreferenced { temporary[key] = nil }
  }
}

/// Objects with permanent IDs, by store, table and primary key, in pages of 64 consecutive keys.
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

  /// A class, so that filling a slot changes the page in place. `@exclusivity(unchecked)`: a page is
  /// only touched by its registry, on its context's queue, one access at a time.
  private final class Page {
    @exclusivity(unchecked) var slots = [ManagedObject?](repeating: nil, count: PermanentObjects.pageSize)
    @exclusivity(unchecked) var used = 0
  }

  private static let pageSize = 64
  private var pages: [PageKey: Page] = [:]
  private(set) var count = 0
  /// The page last written to: rows arriving in key order land in it 63 times out of 64.
  private var recent: (key: PageKey, page: Page)?

  private func page(_ key: PageKey) -> Page? {
    if let recent, recent.key == key { return recent.page }
    return pages[key]
  }

  subscript(store: Int, table: Int64, primaryKey: Int64) -> ManagedObject? {
    get {
      page(PageKey(store: store, table: table, page: primaryKey >> 6))?.slots[Int(primaryKey & 63)]
    }
    set {
      let key = PageKey(store: store, table: table, page: primaryKey >> 6)
      let slot = Int(primaryKey & 63)
      if let page = page(key) {
        recent = (key, page)
        let wasUsed = page.slots[slot] != nil
        page.slots[slot] = newValue
        switch (wasUsed, newValue != nil) {
        case (false, true):
          page.used += 1
          count += 1
        case (true, false):
          page.used -= 1
          count -= 1
          if page.used == 0 {
            pages[key] = nil
            recent = nil
          }
        default:
          break
        }
      } else if let newValue {
        let page = Page()
        page.slots[slot] = newValue
        page.used = 1
        pages[key] = page
        recent = (key, page)
        count += 1
      }
    }
  }

  var objects: [ManagedObject] {
    var result: [ManagedObject] = []
    result.reserveCapacity(count)
    for page in pages.values {
      for case let object? in page.slots { result.append(object) }
    }
    return result
  }

  /// Removes the objects that only this table references and that `isRemovable` accepts.
  mutating func removeAll(unreferencedWhere isRemovable: (ManagedObject) -> Bool) {
    var emptied: [PageKey] = []
    for (key, page) in pages {
      for slot in page.slots.indices where page.slots[slot] != nil {
        guard isKnownUniquelyReferenced(&page.slots[slot]), let object = page.slots[slot], isRemovable(object) else { continue }
        page.slots[slot] = nil
        page.used -= 1
        count -= 1
      }
      if page.used == 0 { emptied.append(key) }
    }
    for key in emptied { pages[key] = nil }
    if !emptied.isEmpty { recent = nil }
  }
}
