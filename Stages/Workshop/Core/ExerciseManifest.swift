import Foundation

// The exercise manifest: `Exercises/exercises.json`, a JSON array with one object per exercise, in the
// order a learner should do them. Paths are relative to the workspace root.
//
//   [
//     {
//       "id": "01-model-not-found",                          required: the folder-style name learners type
//       "stage": 1,                                          required: 0…4, the stage the exercise belongs to
//       "title": "Find the model",                           required: one line
//       "testTarget": "Exercise01Tests",                     required: the test target in Exercises/Package.swift
//       "sources": ["Exercises/01-model-not-found/Sources"], required: the files or folders the learner edits
//       "readme": "Exercises/01-model-not-found/README.md",  optional, this is the default
//       "hints": "Exercises/01-model-not-found/HINTS.md",    optional, this is the default
//       "solution": "Exercises/Solutions/01-model-not-found",optional, this is the default
//       "starterHash": "…64 hex digits…"                     optional: `swift run workshop starter-hashes` prints it
//     }
//   ]
//
// `starterHash` is the hash of the untouched starter sources (see SourceHasher). With it, status knows
// for certain whether an exercise has been started; without it, the workshop records the hash the first
// time it sees the exercise. Unknown keys are ignored. `workshop check` runs
// `swift test --package-path Exercises --filter '^<testTarget>\.'`; a compile error in an exercise's
// sources, in `Exercises/<id>/` or in `Exercises/Tests/<id>/` is reported as that exercise's.

/// One exercise, as the manifest describes it.
struct Exercise: Sendable, Equatable, Decodable {
  var id: String
  var stage: Int
  var title: String
  var testTarget: String
  var sources: [String]
  var readme: String?
  var hints: String?
  var solution: String?
  var starterHash: String?

  init(
    id: String, stage: Int, title: String, testTarget: String, sources: [String], readme: String? = nil, hints: String? = nil,
    solution: String? = nil, starterHash: String? = nil
  ) {
    self.id = id
    self.stage = stage
    self.title = title
    self.testTarget = testTarget
    self.sources = sources
    self.readme = readme
    self.hints = hints
    self.solution = solution
    self.starterHash = starterHash
  }

  var readmePath: String { readme ?? "Exercises/\(id)/README.md" }
  var hintsPath: String { hints ?? "Exercises/\(id)/HINTS.md" }
  var solutionPath: String { solution ?? "Exercises/Solutions/\(id)" }
  /// The folder the exercise lives in (its README and hints, and its sources unless the manifest says otherwise).
  var folder: String { "Exercises/\(id)" }
  /// Where the exercise's checks live.
  var testsFolder: String { "Exercises/Tests/\(id)" }

  /// The `--filter` for `swift test`: the test target's tests and no other target's.
  var testFilter: String { "^" + NSRegularExpression.escapedPattern(for: testTarget) + "\\." }

  /// Whether a file (relative to the root) belongs to this exercise: its sources, its folder, its checks
  /// (a compile error in the checks usually means the learner changed the function's signature).
  func owns(_ relativePath: String) -> Bool {
    (sources + [folder, testsFolder]).contains { relativePath == $0 || relativePath.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }
  }
}

/// Reads and checks `Exercises/exercises.json`.
enum ExerciseManifest {
  static let path = "Exercises/exercises.json"
  static let packagePath = "Exercises/Package.swift"

  /// The exercises, or `nil` when this checkout has no manifest yet (which is not an error).
  static func load(root: URL) throws -> [Exercise]? {
    let url = root.appendingPathComponent(path)
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw WorkshopError.malformedManifest(path: path, problems: ["it cannot be read: \(error.localizedDescription)"])
    }
    return try parse(data)
  }

  /// Parses and validates a manifest; every problem found is in the thrown error.
  static func parse(_ data: Data) throws -> [Exercise] {
    let json: Any
    do {
      json = try JSONSerialization.jsonObject(with: data)
    } catch {
      var detail = describe(error)
      if let match = detail.firstMatch(of: #/around character (\d+)/#), let offset = Int(match.1) {
        let before = data.prefix(offset)
        let line = before.filter { $0 == UInt8(ascii: "\n") }.count + 1
        let column = offset - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
        detail += " That is line \(line), column \(column)."
      }
      throw WorkshopError.malformedManifest(path: path, problems: ["it is not valid JSON (\(detail))"])
    }
    guard let entries = json as? [Any] else {
      throw WorkshopError.malformedManifest(
        path: path, problems: ["it should be a JSON array of exercises: [{\"id\": …, \"stage\": …, …}, …]"])
    }
    let ids = entries.map { ($0 as? [String: Any])?["id"] as? String }
    func entryName(_ codingPath: [any CodingKey]) -> String {
      guard let index = codingPath.first?.intValue else { return "the manifest" }
      if index < ids.count, let id = ids[index] { return "entry \(index + 1) (\"\(id)\")" }
      return "entry \(index + 1)"
    }
    func keyName(_ codingPath: [any CodingKey]) -> String {
      codingPath.dropFirst().map { $0.intValue.map { "[\($0)]" } ?? "\"\($0.stringValue)\"" }.joined(separator: " ")
    }

    let exercises: [Exercise]
    do {
      exercises = try JSONDecoder().decode([Exercise].self, from: data)
    } catch let DecodingError.keyNotFound(key, context) {
      let name = entryName(context.codingPath + [key])
      throw WorkshopError.malformedManifest(path: path, problems: ["\(name) has no \"\(key.stringValue)\""])
    } catch let DecodingError.typeMismatch(type, context) {
      let wanted = describe(type)
      let message =
        context.codingPath.count <= 1
        ? "\(entryName(context.codingPath)) should be an object ({\"id\": …})"
        : "\(entryName(context.codingPath)): \(keyName(context.codingPath)) should be \(wanted)"
      throw WorkshopError.malformedManifest(path: path, problems: [message])
    } catch let DecodingError.valueNotFound(type, context) {
      let message = "\(entryName(context.codingPath)): \(keyName(context.codingPath)) is null; it should be \(describe(type))"
      throw WorkshopError.malformedManifest(path: path, problems: [message])
    } catch {
      throw WorkshopError.malformedManifest(path: path, problems: [describe(error)])
    }

    let problems = validate(exercises)
    guard problems.isEmpty else { throw WorkshopError.malformedManifest(path: path, problems: problems) }
    return exercises
  }

  /// What is wrong with well-formed entries: empty or duplicate names, stages out of range, unsafe paths.
  static func validate(_ exercises: [Exercise]) -> [String] {
    var problems: [String] = []
    var seenIDs: Set<String> = []
    var seenTargets: Set<String> = []
    let stageNumbers = StageCatalog.all.map(\.number)
    for (index, exercise) in exercises.enumerated() {
      let name = exercise.id.isEmpty ? "entry \(index + 1)" : "entry \(index + 1) (\"\(exercise.id)\")"
      if !isSimpleName(exercise.id, allowing: "-_.") {
        problems.append("\(name): \"id\" should be a non-empty name of letters, digits, '-', '_' or '.' (it names a folder)")
      } else if !seenIDs.insert(exercise.id).inserted {
        problems.append("\(name): the id \"\(exercise.id)\" is used twice")
      }
      if !stageNumbers.contains(exercise.stage) {
        problems.append(
          "\(name): \"stage\" is \(exercise.stage); it should be one of \(stageNumbers.map(String.init).joined(separator: ", "))")
      }
      if exercise.title.trimmingCharacters(in: .whitespaces).isEmpty {
        problems.append("\(name): \"title\" is empty")
      }
      if !isSimpleName(exercise.testTarget, allowing: "_") {
        problems.append("\(name): \"testTarget\" should be the name of a test target, like \"Exercise01Tests\"")
      } else if !seenTargets.insert(exercise.testTarget).inserted {
        problems.append("\(name): the test target \"\(exercise.testTarget)\" belongs to another exercise too")
      }
      if exercise.sources.isEmpty {
        problems.append("\(name): \"sources\" is empty; list the files or folders the learner edits")
      }
      let paths = exercise.sources + [exercise.readme, exercise.hints, exercise.solution].compactMap { $0 }
      for path in paths where !isSafeRelativePath(path) {
        problems.append("\(name): \"\(path)\" should be a path relative to the workspace root, without \"..\"")
      }
      if let hash = exercise.starterHash, hash.count != 64 || !hash.allSatisfy(\.isHexDigit) {
        problems.append("\(name): \"starterHash\" should be 64 hex digits (`swift run workshop starter-hashes` prints it)")
      }
    }
    return problems
  }

  private static func isSimpleName(_ name: String, allowing extra: String) -> Bool {
    guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || ("0"..."9").contains(first) else { return false }
    return name.unicodeScalars.allSatisfy {
      $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || extra.unicodeScalars.contains($0))
    }
  }

  private static func isSafeRelativePath(_ path: String) -> Bool {
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

  /// Finds an exercise by id, by number ("1" or "01" for "01-…"), or by an unambiguous prefix of its id.
  static func select(_ name: String, from exercises: [Exercise]) throws -> Exercise {
    if let exact = exercises.first(where: { $0.id == name }) { return exact }
    var matches = exercises.filter { $0.id.hasPrefix(name) }
    if matches.isEmpty, let number = Int(name) {
      matches = exercises.filter { Int($0.id.prefix { $0.isNumber }) == number }
    }
    switch matches.count {
    case 1: return matches[0]
    case 0: throw WorkshopError.unknownExercise(name, known: exercises.map(\.id))
    default: throw WorkshopError.ambiguousExercise(name, matches: matches.map(\.id))
    }
  }
}
