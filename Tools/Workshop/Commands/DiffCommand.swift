import ArgumentParser
import Foundation

struct DiffCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "diff",
    abstract: "Show what a stage changes in the stage before it: the stage's code against the earlier one's.",
    discussion: """
      `swift run workshop diff 3` compares stage 3 with stage 2. Where a stage renames what the stage before \
      called otherwise (stage 3's PersistenceController was stage 2's CoreDataManager), the earlier code is \
      read under the new names, so what the diff shows is the lesson, not the rename. The demos (Demo/) are \
      left out.
      """
  )

  @OptionGroup var common: CommonOptions

  @Argument(help: "The stage whose changes to show (1 to the last).")
  var stage: Int

  @Option(help: "The stage to compare with; the one before by default.")
  var from: Int?

  func run() throws {
    try withWorkshopEnvironment { environment in
      let root = try common.workspaceRoot(environment)
      let catalog = try StageCatalog.load(root: root)
      let new = try StageCatalog.stage(stage, in: catalog)
      let old = try StageCatalog.stage(from ?? stage - 1, in: catalog)
      let stages = StageAvailability.survey(root: root, stages: catalog)
      for wanted in [old, new] where stages.contains(where: { $0.stage == wanted && !$0.isPresent }) {
        throw WorkshopError.stageNotInCheckout(wanted, available: stages.filter(\.isPresent).map(\.stage))
      }
      let comparison = StageComparison(
        old: old, new: new, root: root, renames: StageComparison.renames(from: old.number, to: new.number, in: catalog))
      comparison.print(to: environment.output, style: environment.style)
    }
  }
}
