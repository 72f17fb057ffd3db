import Foundation

/// Prints a predicate back in format-string form, as Core Data's `predicateFormat` does:
/// `title == "a" AND (rating > 3 OR NOT done == TRUE)`.
///
/// Parsing the text again gives the same tree for anything the parser produces, except for values the
/// language has no literal for (data, UUIDs and URLs print as Core Data shows them, or as strings).
extension PredicateNode: CustomStringConvertible {
  /// The predicate in format-string form.
  var predicateFormat: String { PredicateFormatWriter.write(.predicate(self)) }

  var description: String { predicateFormat }

  /// Whether this is an AND or OR of two or more predicates, which needs parentheses inside another.
  fileprivate var isCompound: Bool {
    switch self {
    case .and(let operands), .or(let operands): operands.count > 1
    default: false
    }
  }
}

/// Writes a predicate's text with a stack of its own instead of recursion, so that printing works on a
/// tree of any depth.
private enum PredicateFormatWriter {
  /// What is left to write: text as it is, or a part of the tree to expand.
  enum Piece {
    case text(String)
    case predicate(PredicateNode)
    /// A predicate inside `NOT`, `AND` or `OR`: parenthesized when it is a compound itself.
    case operand(PredicateNode)
    case expression(PredicateExpression)
    /// An expression inside arithmetic: parenthesized when it is arithmetic itself.
    case arithmeticOperand(PredicateExpression)
  }

  static func write(_ root: Piece) -> String {
    var text = ""
    var pending = [root]
    while let piece = pending.popLast() {
      // The pieces a part expands to, pushed in reverse so that the first is written first.
      let parts: [Piece]
      switch piece {
      case .text(let string):
        text += string
        continue
      case .predicate(let node): parts = expand(node)
      case .operand(let node): parts = node.isCompound ? [.text("("), .predicate(node), .text(")")] : [.predicate(node)]
      case .expression(let expression): parts = expand(expression)
      case .arithmeticOperand(let expression):
        if case .arithmetic = expression {
          parts = [.text("("), .expression(expression), .text(")")]
        } else {
          parts = [.expression(expression)]
        }
      }
      pending.append(contentsOf: parts.reversed())
    }
    return text
  }

  private static func expand(_ node: PredicateNode) -> [Piece] {
    switch node {
    case .constant(let value):
      return [.text(value ? "TRUEPREDICATE" : "FALSEPREDICATE")]
    case .not(let operand):
      return [.text("NOT "), .operand(operand)]
    case .and(let operands):
      return join(operands, with: " AND ", empty: "TRUEPREDICATE")
    case .or(let operands):
      return join(operands, with: " OR ", empty: "FALSEPREDICATE")
    case .comparison(let comparison):
      return [
        .text(comparison.modifierFormat), .expression(comparison.lhs), .text(comparison.operatorFormat),
        .expression(comparison.rhs),
      ]
    case .tooDeep:
      return [.text("<a predicate more than \(PredicateNode.maximumDepth) levels deep, not built>")]
    }
  }

  private static func join(_ operands: [PredicateNode], with separator: String, empty: String) -> [Piece] {
    switch operands.count {
    case 0: return [.text(empty)]
    case 1: return [.predicate(operands[0])]
    default:
      var parts: [Piece] = []
      for (index, operand) in operands.enumerated() {
        if index > 0 { parts.append(.text(separator)) }
        parts.append(.operand(operand))
      }
      return parts
    }
  }

  private static func expand(_ expression: PredicateExpression) -> [Piece] {
    switch expression {
    case .keyPath, .constant, .variable:
      return [.text(expression.leafFormat)]
    case .aggregate(let items):
      var parts: [Piece] = [.text("{")]
      for (index, item) in items.enumerated() {
        if index > 0 { parts.append(.text(", ")) }
        parts.append(.expression(item))
      }
      return parts + [.text("}")]
    case .arithmetic(let op, let lhs, let rhs):
      return [.arithmeticOperand(lhs), .text(" " + op.rawValue + " "), .arithmeticOperand(rhs)]
    case .subqueryCount(let subquery):
      return [
        .text("SUBQUERY("), .expression(subquery.collection), .text(", $\(subquery.variable), "),
        .predicate(subquery.predicate), .text(").@count"),
      ]
    case .function(let function, let arguments):
      var parts: [Piece] = [.text(function.rawValue + "(")]
      for (index, argument) in arguments.enumerated() {
        if index > 0 { parts.append(.text(", ")) }
        parts.append(.expression(argument))
      }
      return parts + [.text(")")]
    case .index(let collection, let index):
      return [.arithmeticOperand(collection), .text("[\(index.format)]")]
    }
  }
}

extension PredicateComparison {
  /// The comparison in format-string form: `ANY tags.name ==[c] "x"`.
  var predicateFormat: String { PredicateNode.comparison(self).predicateFormat }

  /// `ANY `, `ALL `, `NONE ` or nothing.
  fileprivate var modifierFormat: String {
    switch modifier {
    case .direct: ""
    case .any: "ANY "
    case .all: "ALL "
    case .none: "NONE "
    }
  }

  /// The operator with its options and a space on each side: ` ==[c] `.
  fileprivate var operatorFormat: String {
    var text = " " + op.rawValue
    if !options.isEmpty {
      text += "["
      if options.contains(.caseInsensitive) { text += "c" }
      if options.contains(.diacriticInsensitive) { text += "d" }
      if options.contains(.localized) { text += "l" }
      text += "]"
    }
    return text + " "
  }
}

extension PredicateExpression {
  /// The expression in format-string form: a key path (`SELF` when empty, reserved words escaped with
  /// `#`), a literal, `{…}`, arithmetic, a subquery or a function (`sqrt:(rating)`).
  var predicateFormat: String { PredicateFormatWriter.write(.expression(self)) }

  /// A key path, a literal or a variable in format-string form (an expression without parts).
  fileprivate var leafFormat: String {
    switch self {
    case .keyPath(let path):
      guard !path.isEmpty else { return "SELF" }
      return path.map(Self.formatKey).joined(separator: ".")
    case .constant(let value):
      return value.predicateFormat
    case .variable(let name, let path):
      return (["$" + name] + path.map(Self.formatKey)).joined(separator: ".")
    case .aggregate, .arithmetic, .subqueryCount, .function, .index:
      return predicateFormat
    }
  }

  /// One key of a key path, `#`-escaped when it is a reserved word.
  private static func formatKey(_ key: String) -> String {
    PredicateParser.reservedWords.contains(key.uppercased()) ? "#" + key : key
  }
}

extension PredicateValue {
  /// The value as a format-string literal (dates as Core Data prints them, `CAST(<seconds>, "NSDate")`).
  var predicateFormat: String {
    switch self {
    case .null: return "nil"
    case .string(let text): return Self.quote(text)
    case .integer(let number): return String(number)
    case .double(let number): return "\(number)"
    case .bool(let flag): return flag ? "TRUE" : "FALSE"
    case .date(let date): return "CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
    case .data(let data): return "<" + data.map { String(format: "%02x", $0) }.joined() + ">"
    case .uuid(let uuid): return Self.quote(uuid.uuidString)
    case .url(let url): return Self.quote(url.absoluteString)
    case .decimal(let number): return "\(number)"
    case .objectID(let id): return id.description
    case .entity(let name): return "<NSEntityDescription \(name)>"
    case .collection(let items): return "{" + items.map(\.predicateFormat).joined(separator: ", ") + "}"
    }
  }

  /// A double-quoted string literal the parser reads back as `text`.
  private static func quote(_ text: String) -> String {
    var result = "\""
    let scalars = Array(text.unicodeScalars)
    for (offset, scalar) in scalars.enumerated() {
      switch scalar {
      case "\"": result += "\\\""
      case "\\": result += "\\\\"
      case "\n": result += "\\n"
      case "\t": result += "\\t"
      case "\r": result += "\\r"
      case "\0": result += "\\0"
      case "%":
        // Inside quotes "%%" reads as one "%", so a run of two or more percent signs is doubled.
        let inRun =
          (offset > 0 && scalars[offset - 1] == "%") || (offset + 1 < scalars.count && scalars[offset + 1] == "%")
        result += inRun ? "%%" : "%"
      default:
        if scalar.value < 0x20 || scalar.value == 0x7F {
          result += "\\u{" + String(scalar.value, radix: 16) + "}"
        } else {
          result.unicodeScalars.append(scalar)
        }
      }
    }
    return result + "\""
  }
}
