import Foundation

/// One stage of the workshop: a folder under `Stages/` and, once written, a `stageN-demo` executable.
struct Stage: Sendable, Equatable {
  let number: Int
  let title: String
  let folder: String
  let lesson: String

  /// The executable product of the stage's demo.
  var demoProduct: String { "stage\(number)-demo" }
}

/// The stages, in order, whether or not this checkout has them yet.
enum StageCatalog {
  static let all: [Stage] = [
    Stage(number: 0, title: "The engine: ObjectGraph", folder: "Stages/ObjectGraph", lesson: "model, store, coordinator, contexts"),
    Stage(number: 1, title: "Single context", folder: "Stages/Stage1-SingleContext", lesson: "a stack of your own, errors not abort()"),
    Stage(
      number: 2, title: "Private parent, main child", folder: "Stages/Stage2-PrivateParent", lesson: "saving to disk off the main queue"),
    Stage(number: 3, title: "Asynchronous loading", folder: "Stages/Stage3-AsyncLoading", lesson: "a callback when the stack is ready"),
    Stage(
      number: 4, title: "Workers and injection", folder: "Stages/Stage4-WorkersAndInjection",
      lesson: "worker contexts, merging, no singletons"),
  ]

  static func stage(_ number: Int) -> Stage? {
    all.first { $0.number == number }
  }
}

/// What a checkout has of one stage.
struct StageAvailability: Sendable, Equatable {
  let stage: Stage
  /// The stage's folder is in this checkout.
  let isPresent: Bool
  /// The root Package.swift declares the stage's demo product.
  let hasDemo: Bool

  /// Looks at the checkout (folders and Package.swift's text only: nothing is built).
  static func survey(root: URL) -> [StageAvailability] {
    let manifest = (try? String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)) ?? ""
    return StageCatalog.all.map { stage in
      var isDirectory: ObjCBool = false
      let present =
        FileManager.default.fileExists(atPath: root.appendingPathComponent(stage.folder).path, isDirectory: &isDirectory)
        && isDirectory.boolValue
      return StageAvailability(stage: stage, isPresent: present, hasDemo: present && manifest.contains("\"\(stage.demoProduct)\""))
    }
  }
}
