import ArgumentParser
import DemoSupport

/// stage4-demo's command line: the demos' options, the batch size, and what `--help` says about this one.
struct Stage4Demo: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "stage4-demo",
    abstract: "An import on worker contexts while the UI keeps ticking, in both worker shapes, against stage 1.",
    discussion: """
      Imports --count notes in batches of --batch-size, each batch on a worker context of its own, while a \
      60 Hz "UI" ticks on the main queue and a list in the main context counts the notes as the workers' \
      saves land. It does so once with workers that are children of the main context and once with workers \
      beside it (children of the writer), each into a store of its own, printing the longest main-queue \
      stall, the frames missed, when the first and the last note became visible, when everything was on \
      disk, and the resident memory as the import went on. Then it saves the same notes through stage 1's \
      manager, on the main queue, for comparison. The stores go in Stage4-child-of-main/, \
      Stage4-beside-main/ and Stage1/ inside the store folder. The targets are measured with a release \
      build: swift run -c release stage4-demo --count 100000. With --merge-policies it does none of this and \
      shows, instead, what each of the five merge policies does when the user and a worker edit the same note. \
      With --share it runs an app and its share extension as two processes on one store, the app merging \
      what the extension saves through persistent history and remote change notifications.
      """)

  @OptionGroup var options: DemoOptions<ImportSize>

  @Option(
    name: .customLong("batch-size"),
    help: ArgumentHelp("Notes per worker and save (default: 1000).", valueName: "n"),
    transform: { text in
      guard let size = Int(text), size > 0 else { throw ValidationError("--batch-size needs a whole number above zero") }
      return size
    })
  var batchSize = 1_000

  @Flag(help: "Show what each merge policy does when the user and a worker edit the same note, instead of the import.")
  var mergePolicies = false

  @Flag(help: "Run an app and its share extension as two processes on one store, instead of the import.")
  var share = false

  /// The share extension's side of --share, started by the app's side: `add` or `edit`.
  @Option(name: .customLong("as-share-extension"), help: .hidden)
  var shareExtensionStep: String?
}
