import Foundation

/// A line-by-line comparison of two texts, printed as `diff -u` prints it: hunks of changed lines, each with
/// a few unchanged lines around it and a `@@ -a,b +c,d @@` header.
struct UnifiedDiff: Equatable {
  /// One line of the comparison: unchanged (`" "`), only in the old text (`"-"`) or only in the new one (`"+"`).
  struct Line: Equatable {
    var mark: Character
    var text: String
    /// Where the line is, or would be, in each text (0-based).
    var oldIndex: Int
    var newIndex: Int
  }

  /// A run of changes with its context.
  struct Hunk: Equatable {
    var header: String
    var lines: [Line]
  }

  let hunks: [Hunk]

  /// Compares `old` with `new`, keeping `context` unchanged lines around each change.
  init(old: [String], new: [String], context: Int = 3) {
    let script = Self.script(old: old, new: new)
    let changes = script.indices.filter { script[$0].mark != " " }
    var hunks: [Hunk] = []
    var index = 0
    while index < changes.count {
      // A hunk takes every change closer than twice the context to the one before it.
      var last = index
      while last + 1 < changes.count && changes[last + 1] - changes[last] <= 2 * context { last += 1 }
      let start = max(0, changes[index] - context)
      let end = min(script.count, changes[last] + context + 1)
      let lines = Array(script[start..<end])
      hunks.append(Hunk(header: Self.header(lines), lines: lines))
      index = last + 1
    }
    self.hunks = hunks
  }

  /// Whether the texts are the same.
  var isEmpty: Bool { hunks.isEmpty }

  /// Every line of both texts in order, each marked: the old text's lines that the new one lacks, then the
  /// new one's that the old lacks, wherever they differ (a shortest edit, from `CollectionDifference`).
  static func script(old: [String], new: [String]) -> [Line] {
    var removed = Set<Int>()
    var inserted = Set<Int>()
    for change in new.difference(from: old) {
      switch change {
      case .remove(let offset, _, _): removed.insert(offset)
      case .insert(let offset, _, _): inserted.insert(offset)
      }
    }
    var script: [Line] = []
    var i = 0
    var j = 0
    while i < old.count || j < new.count {
      if i < old.count && removed.contains(i) {
        script.append(Line(mark: "-", text: old[i], oldIndex: i, newIndex: j))
        i += 1
      } else if j < new.count && inserted.contains(j) {
        script.append(Line(mark: "+", text: new[j], oldIndex: i, newIndex: j))
        j += 1
      } else {
        script.append(Line(mark: " ", text: old[i], oldIndex: i, newIndex: j))
        i += 1
        j += 1
      }
    }
    return script
  }

  /// `@@ -start,count +start,count @@`, 1-based; an empty side names the line before it, as `diff -u` does.
  private static func header(_ lines: [Line]) -> String {
    let oldCount = lines.filter { $0.mark != "+" }.count
    let newCount = lines.filter { $0.mark != "-" }.count
    let oldStart = (lines.first?.oldIndex ?? 0) + (oldCount == 0 ? 0 : 1)
    let newStart = (lines.first?.newIndex ?? 0) + (newCount == 0 ? 0 : 1)
    return "@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@"
  }
}
