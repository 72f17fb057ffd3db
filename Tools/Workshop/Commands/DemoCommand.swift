import ArgumentParser
import Foundation

struct DemoCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "demo",
    abstract: "Run a stage's demo (`swift run stageN-demo`), passing any further arguments to it.",
    discussion: """
      With no arguments for the demo, it runs as the stage's chapter runs it: stages 3 and 4 in a release \
      build, at the chapter's size (Stages/stages.json, "demoBuild" and "demoArguments"). Arguments you give \
      replace the chapter's; the build stays the stage's.
      """
  )

  @OptionGroup var common: CommonOptions

  @Argument(help: "The stage, 1 to 4.")
  var stage: Int

  @Argument(parsing: .captureForPassthrough, help: "Arguments for the demo itself.")
  var arguments: [String] = []

  func run() throws {
    try withWorkshopEnvironment { environment in
      let root = try common.workspaceRoot(environment)
      let catalog = try StageCatalog.load(root: root)
      let wanted = try StageCatalog.stage(stage, in: catalog)
      let stages = StageAvailability.survey(root: root, stages: catalog)
      let withDemos = stages.filter(\.hasDemo).map(\.stage)
      guard let demo = wanted.demo, stages.contains(where: { $0.stage == wanted && $0.hasDemo }) else {
        if stages.contains(where: { $0.stage == wanted && !$0.isPresent }) {
          throw WorkshopError.stageNotInCheckout(wanted, available: withDemos)
        }
        throw WorkshopError.noDemo(wanted, available: withDemos)
      }
      try Prerequisites.require(environment)
      let swift = try ExecutableLocator.swift(in: environment)
      let swiftArguments = wanted.demoCommand(arguments: arguments) ?? ["run", demo] + arguments
      let output = environment.output
      var buildNote = "  (the first run builds it)"
      if wanted.demoIsRelease {
        // Said before the build starts, and only as long as the build will be (read from the build folder).
        output.line(
          "Stage \(wanted.number)'s demo shows its lesson at the chapter's size and at an app's speed, so it runs a release build.")
        let forecast = BuildForecast.release(demo: demo, root: root)
        forecast.announcement.forEach { output.line($0) }
        buildNote = forecast == .upToDate ? "" : "  (it builds first)"
      }
      output.line(environment.style.dim("▶ swift \(swiftArguments.joined(separator: " "))" + buildNote))
      let status = try environment.runner.runAttached(swift, arguments: swiftArguments, in: root)
      if status != 0 { throw ExitCode(status) }
    }
  }
}
