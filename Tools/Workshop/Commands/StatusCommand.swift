import ArgumentParser
import Foundation

struct StatusCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "status",
    abstract: "Show the stages in this checkout, your exercises' state, and what to do next."
  )

  @OptionGroup var common: CommonOptions

  func run() throws {
    try withWorkshopEnvironment { environment in
      let root = try common.workspaceRoot(environment)
      let report = StatusReport.compute(root: root)
      // Remembering the starter's hash is a convenience: a read-only checkout still gets its status.
      if let updated = report.updatedProgress { try? ProgressStore(root: root).save(updated) }
      for line in report.render(style: environment.style) { environment.output.line(line) }
      if case .malformed = report.exercises { throw ExitCode.failure }
    }
  }
}
