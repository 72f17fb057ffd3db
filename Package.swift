// swift-tools-version: 6.1
// The Core Data stack workshop: the ObjectGraph engine, the stages, and the `workshop` command.
import CompilerPluginSupport
import PackageDescription

let package = Package(
  name: "CoreDataStackWorkshop",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
    .library(name: "NotesModel", targets: ["NotesModel"]),
    .library(name: "Stage1", targets: ["Stage1"]),
    .executable(name: "stage1-demo", targets: ["Stage1Demo"]),
    .library(name: "Stage2", targets: ["Stage2"]),
    .executable(name: "stage2-demo", targets: ["Stage2Demo"]),
    .library(name: "Stage3", targets: ["Stage3"]),
    .executable(name: "stage3-demo", targets: ["Stage3Demo"]),
    .library(name: "Stage4", targets: ["Stage4"]),
    .executable(name: "stage4-demo", targets: ["Stage4Demo"]),
    .executable(name: "workshop", targets: ["Workshop"]),
    // The learner's own scratch program: Playground/README.md.
    .executable(name: "playground", targets: ["Playground"]),
    // The programs Docs/concurrency-rules.md quotes, each breaking one rule on purpose.
    .executable(name: "concurrency-rules", targets: ["ConcurrencyRules"]),
    // Harnesses that try to make the engine lose data (Docs/ObjectGraph.md, "Reliability: trying to lose data").
    .executable(name: "objectgraph-torture", targets: ["ObjectGraphTorture"]),
    // Looks inside a store, Core Data's or the engine's, through the engine (Docs/00-the-pieces.md).
    .executable(name: "objectgraph", targets: ["ObjectGraphCommand"]),
    // The demos' 60 Hz "UI", stall report and options, a product so that the benchmarks share it.
    .library(name: "DemoSupport", targets: ["DemoSupport"]),
    // The tests' scaffolding, a product so that the Exercises package's checks share it.
    .library(name: "TestSupport", targets: ["TestSupport"]),
    // The tests' engine-aware scaffolding (the tutorial's stack, version 1 stores), shared with the exercises' checks.
    .library(name: "EngineTestSupport", targets: ["EngineTestSupport"]),
  ],
  // `ManagedMacro` (on by default) builds `@ObjectGraphManaged`'s compiler plugin. The fuzzing package turns it
  // off: the fuzzer sanitizer it builds everything with cannot link a second program with a `main`.
  traits: [
    .trait(name: "ManagedMacro", description: "The @ObjectGraphManaged macro (Core Data's @NSManaged) and its plugin."),
    .default(enabledTraits: ["ManagedMacro"]),
  ],
  dependencies: [
    .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
  ],
  targets: [
    // SHA-256, shared by the engine (version hashes) and the workshop (exercise fingerprints).
    .target(
      name: "SHA256",
      path: "Stages/SHA256"
    ),
    // The compiler plugin behind `@ObjectGraphManaged` (Core Data's `@NSManaged`), speaking the compiler's
    // plugin protocol itself, without swift-syntax (Stages/ObjectGraphMacros/ObjectGraphMacros.swift says why).
    .macro(
      name: "ObjectGraphMacros",
      path: "Stages/ObjectGraphMacros"
    ),
    // Stage 0: the engine.
    .target(
      name: "ObjectGraph",
      dependencies: [
        "SHA256",
        .target(name: "ObjectGraphMacros", condition: .when(traits: ["ManagedMacro"])),
        .product(name: "GRDB", package: "GRDB.swift"),
        // SQLite's C interface, for the per-row loops of big saves and fetches (Store/RawStatement.swift).
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
      ],
      path: "Stages/ObjectGraph"
    ),
    // The tutorial's data model (an Xcode .xcdatamodeld) and its typed classes, shared by all stages.
    .target(
      name: "NotesModel",
      dependencies: ["ObjectGraph"],
      path: "Stages/NotesModel",
      resources: [.copy("DataModel.xcdatamodeld")]
    ),
    // What the demos share: the 60 Hz "UI" that measures main-queue stalls, and their command line.
    .target(
      name: "DemoSupport",
      dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")],
      path: "Tools/DemoSupport"
    ),
    // Stage 1: a single main-queue context.
    .target(
      name: "Stage1",
      dependencies: ["ObjectGraph", "NotesModel"],
      path: "Stages/Stage1-SingleContext",
      exclude: ["Demo"]
    ),
    .executableTarget(
      name: "Stage1Demo",
      dependencies: [
        "Stage1", "NotesModel", "ObjectGraph", "DemoSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Stages/Stage1-SingleContext/Demo"
    ),
    // Stage 2: a private parent context with the coordinator, and a main-queue child.
    .target(
      name: "Stage2",
      dependencies: ["ObjectGraph", "NotesModel"],
      path: "Stages/Stage2-PrivateParent",
      exclude: ["Demo"]
    ),
    .executableTarget(
      name: "Stage2Demo",
      dependencies: [
        "Stage2", "Stage1", "NotesModel", "ObjectGraph", "DemoSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Stages/Stage2-PrivateParent/Demo"
    ),
    // Stage 3: the same two contexts at once, the store added (and migrated) in the background, a callback.
    .target(
      name: "Stage3",
      dependencies: ["ObjectGraph", "NotesModel"],
      path: "Stages/Stage3-AsyncLoading",
      exclude: ["Demo"]
    ),
    .executableTarget(
      name: "Stage3Demo",
      dependencies: [
        "Stage3", "Stage2", "NotesModel", "ObjectGraph", "DemoSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Stages/Stage3-AsyncLoading/Demo"
    ),
    // Stage 4: worker contexts (two shapes), merging their saves, the master context saved at lifecycle
    // moments, and consumers that are handed the stack.
    .target(
      name: "Stage4",
      dependencies: ["ObjectGraph", "NotesModel"],
      path: "Stages/Stage4-WorkersAndInjection",
      exclude: ["Demo"]
    ),
    .executableTarget(
      name: "Stage4Demo",
      dependencies: [
        "Stage4", "Stage1", "NotesModel", "ObjectGraph", "DemoSupport",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Stages/Stage4-WorkersAndInjection/Demo"
    ),
    // Crash trials and the like: a child saving batches is killed, and the store it leaves is checked.
    .executableTarget(
      name: "ObjectGraphTorture",
      dependencies: [
        "ObjectGraph", "NotesModel", "DemoSupport", .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      path: "Tools/Torture"
    ),
    // `objectgraph inspect STORE [--model MODEL]`: a store's metadata, and with its model its objects, read-only.
    .executableTarget(
      name: "ObjectGraphCommand",
      dependencies: ["ObjectGraph", .product(name: "ArgumentParser", package: "swift-argument-parser")],
      path: "Tools/ObjectGraphCommand"
    ),
    // The programs Docs/concurrency-rules.md quotes (run by the docs tests).
    .executableTarget(
      name: "ConcurrencyRules",
      dependencies: ["ObjectGraph", "NotesModel", "Stage2"],
      path: "Tools/ConcurrencyRules"
    ),
    // A place to try what a chapter shows, with the engine and the tutorial's model. It can import every
    // stage's library (Playground/README.md has ideas for each chapter).
    .executableTarget(
      name: "Playground",
      dependencies: ["ObjectGraph", "NotesModel", "Stage1", "Stage2", "Stage3", "Stage4"],
      path: "Playground",
      exclude: ["README.md"]
    ),
    // The workshop's front door.
    .executableTarget(
      name: "Workshop",
      dependencies: ["SHA256", .product(name: "ArgumentParser", package: "swift-argument-parser")],
      path: "Tools/Workshop"
    ),
    // The engine's symbol graph for the site's reference (`workshop docs` runs it:
    // `swift package objectgraph-symbol-graph`).
    .plugin(
      name: "ObjectGraphSymbolGraph",
      capability: .command(
        intent: .custom(verb: "objectgraph-symbol-graph", description: "Write the engine's symbol graph for DocC")),
      path: "Tools/SymbolGraphPlugin"
    ),
    // What the tests share: temporary folders removed with their test, the child-process runner, the
    // build's products, the main-queue probe and the watchdog.
    .target(
      name: "TestSupport",
      path: "Tests/TestSupport"
    ),
    // What the tests share that knows the engine: the tutorial's model and a stack on it with any store,
    // version 1 tutorial stores as an earlier release left them, and the conflicting edit merge policies resolve.
    .target(
      name: "EngineTestSupport",
      dependencies: ["ObjectGraph", "NotesModel", "TestSupport"],
      path: "Tests/EngineTestSupport"
    ),
    .testTarget(
      name: "ObjectGraphTests",
      dependencies: [
        "ObjectGraph", "SHA256", "TestSupport", "EngineTestSupport", "DemoSupport",
        .product(name: "GRDB", package: "GRDB.swift"),
      ],
      path: "Tests/ObjectGraphTests",
      // Store files and a model that tests copy before opening (never opened in place).
      exclude: ["Fixtures"]
    ),
    .testTarget(
      name: "Stage1Tests",
      dependencies: ["Stage1", "NotesModel", "ObjectGraph", "TestSupport", "EngineTestSupport"],
      path: "Tests/Stage1Tests"
    ),
    .testTarget(
      name: "Stage2Tests",
      dependencies: ["Stage2", "NotesModel", "ObjectGraph", "TestSupport", "EngineTestSupport"],
      path: "Tests/Stage2Tests"
    ),
    .testTarget(
      name: "Stage3Tests",
      // GRDB: one test takes the model copy out of a store, as stores made before the copy existed lack it.
      dependencies: [
        "Stage3", "NotesModel", "ObjectGraph", "TestSupport", "EngineTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
      ],
      path: "Tests/Stage3Tests"
    ),
    .testTarget(
      name: "Stage4Tests",
      dependencies: ["Stage4", "NotesModel", "ObjectGraph", "TestSupport", "EngineTestSupport"],
      path: "Tests/Stage4Tests"
    ),
    // Core Data code written as for Apple's framework (issue 37): only the import and @ObjectGraphManaged differ.
    .testTarget(
      name: "CoreDataAsWrittenTests",
      dependencies: ["ObjectGraph", "TestSupport"],
      path: "Tests/CoreDataAsWrittenTests",
      resources: [.copy("Model.xcdatamodeld"), .copy("Library.xcdatamodeld")]
    ),
    .testTarget(
      name: "TestSupportTests",
      dependencies: ["TestSupport"],
      path: "Tests/TestSupportTests"
    ),
    .testTarget(
      name: "DemoSupportTests",
      dependencies: ["DemoSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")],
      path: "Tests/DemoSupportTests"
    ),
    .testTarget(
      name: "DocsTests",
      dependencies: ["TestSupport", .product(name: "GRDB", package: "GRDB.swift")],
      path: "Tests/DocsTests"
    ),
    // Runs the built `objectgraph` on a copy of Docs/Examples/CoreDataPlus's store, and on stores the tests make
    // with the engine, and checks what it prints.
    .testTarget(
      name: "ObjectGraphCommandTests",
      dependencies: ["TestSupport", "EngineTestSupport", "ObjectGraph"],
      path: "Tests/ObjectGraphCommandTests"
    ),
    .testTarget(
      name: "WorkshopTests",
      dependencies: ["Workshop", "SHA256"],
      path: "Tests/WorkshopTests"
    ),
  ],
  swiftLanguageModes: [.v6]
)
