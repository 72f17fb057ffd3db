import Foundation

/// Decodes the workshop's lists (`Stages/stages.json`, `Exercises/exercises.json`): a JSON array of
/// objects, one per entry. Every decoding error becomes a `WorkshopError.malformedManifest` that names
/// the file, the entry (by its position and its `nameKey`) and the key, in words a learner can act on.
struct JSONList {
  /// The file, relative to the workspace root, as error messages name it.
  let path: String
  /// What an entry looks like, for the message when the file is not an array: `{"id": …, "stage": …, …}`.
  let entryShape: String
  /// The key whose value names an entry in messages (`id` gives `entry 2 ("02-b")`).
  let nameKey: String
  /// The plural of what the list holds, for messages: "exercises".
  let contents: String

  /// Reads the file at `path` under `root`, or `nil` when it does not exist.
  func read(root: URL) throws -> Data? {
    let url = root.appendingPathComponent(path)
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    do {
      return try Data(contentsOf: url)
    } catch {
      throw WorkshopError.malformedManifest(path: path, problems: ["it cannot be read: \(error.localizedDescription)"])
    }
  }

  /// The entries, or the first problem found (JSON syntax, shape, a missing key, a wrong type).
  func decode<Entry: Decodable>(_ data: Data, as: Entry.Type = Entry.self) throws -> [Entry] {
    let json: Any
    do {
      json = try JSONSerialization.jsonObject(with: data)
    } catch {
      var detail = Self.describe(error)
      if let match = detail.firstMatch(of: #/around character (\d+)/#), let offset = Int(match.1) {
        let before = data.prefix(offset)
        let line = before.filter { $0 == UInt8(ascii: "\n") }.count + 1
        let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
        detail += " That is line \(line), column \(column)."
      }
      throw WorkshopError.malformedManifest(path: path, problems: ["it is not valid JSON (\(detail))"])
    }
    guard let entries = json as? [Any] else {
      throw WorkshopError.malformedManifest(path: path, problems: ["it should be a JSON array of \(contents): [\(entryShape), …]"])
    }
    let names = entries.map { ($0 as? [String: Any])?[nameKey].map { "\($0)" } }
    func entryName(_ codingPath: [any CodingKey]) -> String {
      guard let index = codingPath.first?.intValue else { return "the list" }
      if index < names.count, let name = names[index] { return "entry \(index + 1) (\"\(name)\")" }
      return "entry \(index + 1)"
    }
    func keyName(_ codingPath: [any CodingKey]) -> String {
      codingPath.dropFirst().map { $0.intValue.map { "[\($0)]" } ?? "\"\($0.stringValue)\"" }.joined(separator: " ")
    }

    do {
      return try JSONDecoder().decode([Entry].self, from: data)
    } catch let DecodingError.keyNotFound(key, context) {
      let name = entryName(context.codingPath + [key])
      throw WorkshopError.malformedManifest(path: path, problems: ["\(name) has no \"\(key.stringValue)\""])
    } catch let DecodingError.typeMismatch(type, context) {
      let wanted = Self.describe(type)
      let message =
        context.codingPath.count <= 1
        ? "\(entryName(context.codingPath)) should be an object ({\"\(nameKey)\": …})"
        : "\(entryName(context.codingPath)): \(keyName(context.codingPath)) should be \(wanted)"
      throw WorkshopError.malformedManifest(path: path, problems: [message])
    } catch let DecodingError.valueNotFound(type, context) {
      let message = "\(entryName(context.codingPath)): \(keyName(context.codingPath)) is null; it should be \(Self.describe(type))"
      throw WorkshopError.malformedManifest(path: path, problems: [message])
    } catch {
      throw WorkshopError.malformedManifest(path: path, problems: [Self.describe(error)])
    }
  }

  /// Whether `name` is a non-empty ASCII name of letters, digits and the characters of `extra`,
  /// starting with a letter or a digit.
  static func isSimpleName(_ name: String, allowing extra: String) -> Bool {
    guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || ("0"..."9").contains(first) else { return false }
    return name.unicodeScalars.allSatisfy {
      $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || extra.unicodeScalars.contains($0))
    }
  }

  /// Whether `path` stays inside the workspace: relative, and without `..`.
  static func isSafeRelativePath(_ path: String) -> Bool {
    !path.isEmpty && !path.hasPrefix("/") && !path.hasPrefix("~") && !path.split(separator: "/").contains("..")
  }

  private static func describe(_ type: Any.Type) -> String {
    switch type {
    case is Int.Type: return "a whole number"
    case is String.Type: return "a string"
    case is [String].Type: return "a list of strings"
    case is [Any].Type: return "a list"
    case is [String: Any].Type: return "an object"
    default: return "a \(type)"
    }
  }

  private static func describe(_ error: any Error) -> String {
    if case DecodingError.dataCorrupted(let context) = error { return context.debugDescription }
    let nsError = error as NSError
    if let detail = nsError.userInfo[NSDebugDescriptionErrorKey] as? String { return detail }
    return error.localizedDescription
  }
}
