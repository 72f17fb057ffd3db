import ArgumentParser
import DemoSupport

/// stage2-demo's command line: the demos' options, and what `--help` says about this one.
struct Stage2Demo: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "stage2-demo",
    abstract: "The same app as stage 1's, with the disk write moved off the main queue.",
    discussion: """
      Proves that the main context's save stops at its private parent, then saves --count notes through \
      stage 1's stack and stage 2's in turn while a 60 Hz "UI" ticks, and reports each one's main-queue \
      stall. The stores go in Stage1/ and Stage2/ inside the store folder.
      """)

  @OptionGroup var options: DemoOptions<ImportSize>
}
