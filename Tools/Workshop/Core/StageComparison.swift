import Foundation

/// Stage `old`'s code against stage `new`'s, file by file, with the renames of the stages in between applied
/// to the old code.
struct StageComparison {
  let old: Stage
  let new: Stage
  let root: URL
  /// Old name to new name, for the types (and the files named after them) renamed on the way.
  let renames: [String: String]

  /// The renames of the stages after `from` up to `to`, composed (a name renamed twice maps to the last).
  static func renames(from: Int, to: Int, in catalog: [Stage]) -> [String: String] {
    var result: [String: String] = [:]
    for stage in catalog where stage.number > from && stage.number <= to {
      for (old, new) in stage.renames ?? [:] {
        for (key, value) in result where value == old { result[key] = new }
        if result[old] == nil { result[old] = new }
      }
    }
    return result
  }

  /// `text` with every whole-word use of a renamed name replaced by its new name.
  func renamed(_ text: String) -> String {
    renames.keys.sorted { $0.count > $1.count }.reduce(text) { text, oldName in
      text.replacingOccurrences(
        of: "\\b\(NSRegularExpression.escapedPattern(for: oldName))\\b", with: renames[oldName] ?? oldName, options: .regularExpression)
    }
  }

  /// The stage's Swift files outside `Demo/`, by path relative to its folder.
  func files(of stage: Stage) -> [String: String] {
    let folder = root.appendingPathComponent(stage.folder)
    let prefix = (stage.folder.hasSuffix("/") ? String(stage.folder.dropLast()) : stage.folder) + "/"
    var files: [String: String] = [:]
    for path in SourceHasher.files(of: [stage.folder], root: root) {
      let relative = String(path.dropFirst(prefix.count))
      guard relative.hasSuffix(".swift") && !relative.hasPrefix("Demo/") else { continue }
      files[relative] = (try? String(contentsOf: folder.appendingPathComponent(relative), encoding: .utf8)) ?? ""
    }
    return files
  }

  /// Prints the comparison: a line saying what is compared and renamed, then each file that differs.
  func print(to output: Output, style: Style) {
    var oldFiles: [String: (original: String, text: String)] = [:]
    for (path, text) in files(of: old) { oldFiles[renamed(path)] = (path, renamed(text)) }
    let newFiles = files(of: new)
    output.line(style.bold("Stage \(old.number) → stage \(new.number): what stage \(new.number) (\(new.title)) changes."))
    if !renames.isEmpty {
      let list = renames.sorted { $0.key < $1.key }.map { "\($0.key) is \($0.value)" }.joined(separator: ", ")
      output.line(
        "Stage \(old.number)'s code is read under stage \(new.number)'s names (\(list)), so the diff shows the lesson, not the rename.")
    }
    if let chapter = new.chapter { output.line("Why each change: \(chapter).") }
    var changed = 0
    for path in Set(oldFiles.keys).union(newFiles.keys).sorted() {
      let before = oldFiles[path]
      let after = newFiles[path]
      let diff = UnifiedDiff(old: lines(before?.text), new: lines(after))
      guard !diff.isEmpty else { continue }
      changed += 1
      output.line()
      let oldName =
        before.map { "stage \(old.number)/\($0.original)" + ($0.original == path ? "" : " (as \(path))") } ?? "(new in stage \(new.number))"
      output.line(style.bold("--- \(oldName)"))
      output.line(style.bold("+++ " + (after == nil ? "(gone in stage \(new.number))" : "stage \(new.number)/\(path)")))
      for hunk in diff.hunks {
        output.line(style.cyan(hunk.header))
        for line in hunk.lines {
          let text = "\(line.mark)\(line.text)"
          output.line(line.mark == "-" ? style.red(text) : line.mark == "+" ? style.green(text) : text)
        }
      }
    }
    output.line()
    output.line(
      changed == 0 ? "The two stages' code is the same." : "\(changed) file\(changed == 1 ? "" : "s") changed (the demos left out).")
  }

  private func lines(_ text: String?) -> [String] {
    guard let text, !text.isEmpty else { return [] }
    var lines = text.components(separatedBy: "\n")
    if lines.last == "" { lines.removeLast() }
    return lines
  }
}
