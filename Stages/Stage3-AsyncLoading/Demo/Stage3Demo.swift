import ArgumentParser
import DemoSupport

/// stage3-demo's command line: the demos' options, and what `--help` says about this one.
struct Stage3Demo: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "stage3-demo",
    abstract: "A launch that migrates a big store in the background while the UI keeps ticking.",
    discussion: """
      Writes a store of --count notes with version 1 of the model, then opens it with stage 3's controller \
      under version 2 while a 60 Hz "UI" ticks: a placeholder and a progress bar while it migrates, then the \
      notes. A copy of the store is then opened with stage 2's manager, whose first mainContext access \
      migrates on the main queue. The stores go in Stage3/ and Stage2/ inside the store folder. The targets \
      are measured with a release build and a million notes: \
      swift run -c release stage3-demo --count 1000000. With --what-can-be-inferred it does none of this \
      and tries, instead, each kind of change a new model version makes on a small store of its own, printing \
      whether the engine migrated it or the error it refused it with. With --custom-stage it runs, instead, \
      a staged migration whose custom stage turns a priority kept as text into a number, then the same \
      migration on a store its handler cannot read.
      """)

  @OptionGroup var options: DemoOptions<StoreSize>

  @Flag(help: "Try each kind of model change on a small store and print what the engine says, instead of the launch.")
  var whatCanBeInferred = false

  @Flag(help: "Run a staged migration with a custom stage on a small store and print what it does, instead of the launch.")
  var customStage = false
}
