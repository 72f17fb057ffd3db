import Foundation

/// Lines too long for a column, wrapped for the site: a tutorial step's code pane and a chapter's code blocks
/// show a fixed number of characters and cut (or scroll) the rest.
///
/// Swift is wrapped as code: a comment is refilled under its own indentation and `//`, with the rest of the
/// same comment; a line of code breaks at a space or after an opening parenthesis, never inside a string
/// literal, and continues four spaces further in (a break inside a comment at the end of a line continues the
/// comment). Other text (a transcript, a shell command) breaks at a space and continues four spaces further
/// in. A line with nowhere to break stays whole.
enum CodeWrapping {
  /// `code` with every line longer than `columns` wrapped: a comment refilled word by word under its own
  /// indentation and `//` (or `///`), together with the lines of the same comment after it, a line of code broken at the last space (or after the last opening
  /// parenthesis) outside a string literal that fits, continuing four spaces further in. A line with no such
  /// place stays as it is.
  static func wrapped(_ code: String, columns: Int, swift: Bool = true) -> String {
    var output: [String] = []
    // Words a refilled comment line pushed on, waiting for the next line of the same comment.
    var carried: (prefix: String, words: [Substring])?
    for line in code.components(separatedBy: "\n") {
      let indentation = String(line.prefix { $0 == " " })
      let body = line.dropFirst(indentation.count)
      let marker = String(body.prefix { $0 == "/" })
      let prefix = indentation + marker + " "
      let words = body.dropFirst(marker.count).split(separator: " ")
      if let pending = carried {
        carried = nil
        if pending.prefix == prefix && !words.isEmpty {
          // The same comment goes on: refill it with the words carried over.
          carried = refill(pending.words + words, prefix: prefix, into: &output)
          continue
        }
        output += fill(pending.words, prefix: pending.prefix, columns: columns).map { pending.prefix + $0.joined(separator: " ") }
      }
      guard line.count > columns else {
        output.append(line)
        continue
      }
      if swift && marker.count >= 2 {
        carried = refill(words, prefix: prefix, into: &output)
        continue
      }
      var lines: [String] = []
      var rest = line
      var lead = indentation
      while rest.count > columns, let (cut, inComment) = breakPoint(in: rest, before: columns, swift: swift) {
        lines.append(String(rest[..<cut]))
        lead = lines.count == 1 ? indentation + "    " : lead
        // A break inside a comment at the end of a line continues the comment.
        rest = lead + (inComment ? "// " : "") + rest[cut...].drop { $0 == " " }
      }
      output += lines + [rest]
    }
    if let pending = carried {
      output += fill(pending.words, prefix: pending.prefix, columns: columns).map { pending.prefix + $0.joined(separator: " ") }
    }
    return output.joined(separator: "\n")

    /// Appends `words` refilled under `prefix` to `output`, all but the last line, whose words it returns to
    /// be filled up with the comment's next line (or written as they are when there is none).
    func refill(_ words: [Substring], prefix: String, into output: inout [String]) -> (prefix: String, words: [Substring])? {
      var lines = fill(words, prefix: prefix, columns: columns)
      let last = lines.removeLast()
      output += lines.map { prefix + $0.joined(separator: " ") }
      return (prefix, last)
    }
  }

  /// `words` in lines under `prefix`, each at most `columns` wide (a longer word alone on its line).
  private static func fill(_ words: [Substring], prefix: String, columns: Int) -> [[Substring]] {
    var lines: [[Substring]] = [[]]
    var width = prefix.count
    for word in words {
      if !lines[lines.count - 1].isEmpty && width + 1 + word.count > columns {
        lines.append([])
        width = prefix.count
      }
      width += (lines[lines.count - 1].isEmpty ? 0 : 1) + word.count
      lines[lines.count - 1].append(word)
    }
    return lines
  }

  /// Where to break `line` before column `limit`: at its last space, or just after its last opening
  /// parenthesis, outside a string literal and after its indentation; and whether that is inside a `//`
  /// comment. When there is none before the limit, the first such place after it. Nil when there is none.
  private static func breakPoint(in line: String, before limit: Int, swift: Bool) -> (String.Index, Bool)? {
    var inString = false
    var escaped = false
    var inComment = false
    var previous: Character?
    var best: (String.Index, Bool)?
    var column = 0
    var index = line.startIndex
    let indentation = line.prefix { $0 == " " }.count
    // Past the limit only while no place is found: a first word too long for the column goes alone on its line.
    while index < line.endIndex && (column < limit || best == nil) {
      let character = line[index]
      if !swift {
        if character == " " && column > indentation { best = (index, false) }
      } else if inString {
        if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
      } else if character == "\"" && !inComment {
        inString = true
      } else if character == "/" && previous == "/" {
        inComment = true
      } else if character == " " && column > indentation {
        best = (index, inComment)
      } else if character == "(" && !inComment && column > indentation {
        // After an opening parenthesis, so that a call's long string argument can start the next line.
        best = (line.index(after: index), false)
      }
      previous = character
      column += 1
      index = line.index(after: index)
    }
    return best
  }
}
