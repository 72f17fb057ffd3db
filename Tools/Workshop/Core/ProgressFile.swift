import Foundation

// `.workshop/progress.json` at the workspace root (the folder carries its own `.gitignore` of `*`, so
// git ignores it without touching the root's .gitignore):
//
//   {
//     "version": 1,
//     "exercises": {
//       "01-model-not-found": {
//         "starterHash": "…",        the sources' hash when first seen, if the manifest has no starterHash
//         "hintsShown": 1,           how many of HINTS.md's hints `workshop hint` has shown
//         "lastCheck": {             the last `workshop check` of this exercise
//           "passed": false, "sourceHash": "…", "date": "2026-01-01T10:00:00Z", "failures": 2
//         }
//       }
//     }
//   }

/// The result of one `workshop check` of one exercise.
struct CheckRecord: Codable, Equatable, Sendable {
  var passed: Bool
  /// The hash of the sources that were checked.
  var sourceHash: String
  var date: Date
  /// How many tests failed (0 when passed; 0 also when the sources did not compile).
  var failures: Int
}

/// What the workshop remembers about one exercise.
struct ExerciseProgress: Codable, Equatable, Sendable {
  var starterHash: String?
  var hintsShown: Int
  var lastCheck: CheckRecord?

  init(starterHash: String? = nil, hintsShown: Int = 0, lastCheck: CheckRecord? = nil) {
    self.starterHash = starterHash
    self.hintsShown = hintsShown
    self.lastCheck = lastCheck
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    starterHash = try container.decodeIfPresent(String.self, forKey: .starterHash)
    hintsShown = try container.decodeIfPresent(Int.self, forKey: .hintsShown) ?? 0
    lastCheck = try container.decodeIfPresent(CheckRecord.self, forKey: .lastCheck)
  }
}

/// The whole progress file.
struct WorkshopProgress: Codable, Equatable, Sendable {
  var version: Int = 1
  var exercises: [String: ExerciseProgress] = [:]

  subscript(id: String) -> ExerciseProgress {
    get { exercises[id] ?? ExerciseProgress() }
    set { exercises[id] = newValue }
  }

  /// Records the current hash as the starter's for exercises whose manifest entry has no starterHash and
  /// that have no baseline yet. Returns whether anything changed.
  mutating func recordBaselines(for exercises: [Exercise], hashes: [String: String]) -> Bool {
    var changed = false
    for exercise in exercises where exercise.starterHash == nil && self[exercise.id].starterHash == nil {
      if let hash = hashes[exercise.id] {
        self[exercise.id].starterHash = hash
        changed = true
      }
    }
    return changed
  }
}

/// Reads and writes `.workshop/progress.json`.
struct ProgressStore: Sendable {
  static let relativePath = ".workshop/progress.json"
  let root: URL

  var fileURL: URL { root.appendingPathComponent(Self.relativePath) }

  /// The saved progress; a missing file is a fresh start, an unreadable one too, with a warning.
  func load() -> (progress: WorkshopProgress, warning: String?) {
    guard FileManager.default.fileExists(atPath: fileURL.path) else { return (WorkshopProgress(), nil) }
    do {
      let decoder = JSONDecoder()
      decoder.dateDecodingStrategy = .iso8601
      return (try decoder.decode(WorkshopProgress.self, from: Data(contentsOf: fileURL)), nil)
    } catch {
      let warning = "\(Self.relativePath) could not be read, so the workshop starts afresh (it will be rewritten)."
      return (WorkshopProgress(), warning)
    }
  }

  func save(_ progress: WorkshopProgress) throws {
    let folder = fileURL.deletingLastPathComponent()
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let ignore = folder.appendingPathComponent(".gitignore")
      if !FileManager.default.fileExists(atPath: ignore.path) {
        try Data("# The workshop's record of your progress: yours alone, never committed.\n*\n".utf8).write(to: ignore)
      }
      let encoder = JSONEncoder()
      encoder.dateEncodingStrategy = .iso8601
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      try encoder.encode(progress).write(to: fileURL, options: .atomic)
    } catch {
      throw WorkshopError.progressNotSaved(path: Self.relativePath, reason: error.localizedDescription)
    }
  }
}
