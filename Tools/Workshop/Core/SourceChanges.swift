import Foundation

/// Notices that an exercise's files were saved, for `workshop watch`: each scan reads the modification
/// time and the size of the files its `sources` hold (the files SourceHasher hashes, a handful: cheap
/// once a second), and says a save is over once the files have changed since the last check and then
/// stayed the same for one scan. So one save runs one check, even from an editor that writes twice
/// (the file, then its attributes; or a backup, then the file), and a save during a check runs one more.
struct SourceChanges {
  /// What one scan saw: each file's modification time and size, by root-relative path.
  struct Snapshot: Equatable {
    var files: [String: Stamp]

    struct Stamp: Equatable {
      var modified: Date?
      var size: UInt64?
    }

    static func take(of sources: [String], root: URL) -> Snapshot {
      var files: [String: Stamp] = [:]
      for path in SourceHasher.files(of: sources, root: root) {
        let attributes = try? FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(path).path)
        files[path] = Stamp(modified: attributes?[.modificationDate] as? Date, size: (attributes?[.size] as? NSNumber)?.uint64Value)
      }
      return Snapshot(files: files)
    }

    /// The paths whose stamps differ from `other`'s, or that only one of the two has, sorted.
    func changedPaths(since other: Snapshot) -> [String] {
      Set(files.keys).union(other.files.keys).filter { files[$0] != other.files[$0] }.sorted()
    }
  }

  /// What a scan found.
  enum Scan: Equatable {
    /// The files are as they were when last checked.
    case unchanged
    /// They changed, and may still be changing (the next scan tells): scan again soon.
    case changing
    /// They changed and then stayed the same for a scan: check them. The files that changed, root-relative.
    case saved([String])
  }

  /// The files and folders watched, root-relative.
  private(set) var sources: [String]
  let root: URL
  /// The files as the last check saw them.
  private var checked: Snapshot
  /// A change seen by the last scan, waiting to settle.
  private var pending: Snapshot?

  /// Starts from the files as they are now: call it just before a check, so that a save during the check
  /// is a change.
  init(sources: [String], root: URL) {
    self.sources = sources
    self.root = root
    checked = Snapshot.take(of: sources, root: root)
  }

  /// Looks at the files once.
  mutating func scan() -> Scan {
    let now = Snapshot.take(of: sources, root: root)
    if now == checked {
      pending = nil
      return .unchanged
    }
    guard now == pending else {
      pending = now
      return .changing
    }
    let changed = now.changedPaths(since: checked)
    checked = now
    pending = nil
    return .saved(changed)
  }

  /// The files that differ now from what the last check saw, without waiting for them to settle.
  var changedSinceCheck: [String] {
    Snapshot.take(of: sources, root: root).changedPaths(since: checked)
  }

  /// Watches `more` files or folders too, from how they are now.
  mutating func include(_ more: [String]) {
    let added = more.filter { !sources.contains($0) }
    guard !added.isEmpty else { return }
    sources += added
    checked.files.merge(Snapshot.take(of: added, root: root).files) { current, _ in current }
    pending = nil
  }
}
