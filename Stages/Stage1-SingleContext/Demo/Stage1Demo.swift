import ArgumentParser
import DemoSupport

/// stage1-demo's command line: the demos' options, and what `--help` says about this one.
struct Stage1Demo: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "stage1-demo",
    abstract: "The life of an app whose only context is on the main queue.",
    discussion: """
      Launches (saves a notebook with a few tagged notes), relaunches (finds them on disk), then imports \
      --count notes on the main queue while a 60 Hz "UI" ticks, and reports how long the main queue stalled.
      """)

  @OptionGroup var options: DemoOptions<ImportSize>
}
