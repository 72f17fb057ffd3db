import Foundation

/// Prints a predicate back in format-string form, as Core Data's `predicateFormat` does:
/// `title == "a" AND (rating > 3 OR NOT done == TRUE)`.
///
/// Parsing the text again gives the same tree for anything the parser produces, except for values the
/// language has no literal for (data, UUIDs and URLs print as Core Data shows them, or as strings).
extension PredicateNode: CustomStringConvertible {
  /// The predicate in format-string form.
  var predicateFormat: String {
    switch self {
    case .constant(let value):
      return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
    case .not(let operand):
      return "NOT " + operand.parenthesizedIfCompound
    case .and(let operands):
      return Self.join(operands, with: " AND ", empty: "TRUEPREDICATE")
    case .or(let operands):
      return Self.join(operands, with: " OR ", empty: "FALSEPREDICATE")
    case .comparison(let comparison):
      return comparison.predicateFormat
    }
  }

  var description: String { predicateFormat }

  /// Whether this is an AND or OR of two or more predicates, which needs parentheses inside another.
  private var isCompound: Bool {
    switch self {
    case .and(let operands), .or(let operands): operands.count > 1
    default: false
    }
  }

  private var parenthesizedIfCompound: String {
    isCompound ? "(\(predicateFormat))" : predicateFormat
  }

  private static func join(_ operands: [PredicateNode], with separator: String, empty: String) -> String {
    switch operands.count {
    case 0: empty
    case 1: operands[0].predicateFormat
    default: operands.map(\.parenthesizedIfCompound).joined(separator: separator)
    }
  }
}

extension PredicateComparison {
  /// The comparison in format-string form: `ANY tags.name ==[c] "x"`.
  var predicateFormat: String {
    var text = ""
    switch modifier {
    case .direct: break
    case .any: text = "ANY "
    case .all: text = "ALL "
    case .none: text = "NONE "
    }
    text += lhs.predicateFormat + " " + op.rawValue
    if !options.isEmpty {
      text += "["
      if options.contains(.caseInsensitive) { text += "c" }
      if options.contains(.diacriticInsensitive) { text += "d" }
      text += "]"
    }
    return text + " " + rhs.predicateFormat
  }
}

extension PredicateExpression {
  /// The expression in format-string form: a key path (`SELF` when empty, reserved words escaped with
  /// `#`), a literal, or `{…}`.
  var predicateFormat: String {
    switch self {
    case .keyPath(let path):
      guard !path.isEmpty else { return "SELF" }
      return path.map(Self.formatKey).joined(separator: ".")
    case .constant(let value):
      return value.predicateFormat
    case .aggregate(let items):
      return "{" + items.map(\.predicateFormat).joined(separator: ", ") + "}"
    case .variable(let name, let path):
      return (["$" + name] + path.map(Self.formatKey)).joined(separator: ".")
    case .arithmetic(let op, let lhs, let rhs):
      return lhs.operandFormat + " " + op.rawValue + " " + rhs.operandFormat
    case .subqueryCount(let subquery):
      return "SUBQUERY(\(subquery.collection.predicateFormat), $\(subquery.variable), \(subquery.predicate.predicateFormat)).@count"
    }
  }

  /// The expression as an operand of arithmetic: parenthesized when it is arithmetic itself, so that the
  /// text parses back to the same tree.
  private var operandFormat: String {
    if case .arithmetic = self { return "(" + predicateFormat + ")" }
    return predicateFormat
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
    case .entity(let name): return "<EntityDescription \(name)>"
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
