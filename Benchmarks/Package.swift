// swift-tools-version: 6.0
// ObjectGraph vs raw GRDB: insert, fetch-all and predicate-fetch timings, and a migration against the same
// change in hand-written SQL; the stages' main-queue stalls side by side; a paged fetch's time and memory. Run from this folder with `swift run -c release objectgraph-bench` (see README.md).
import PackageDescription

let package = Package(
  name: "ObjectGraphBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "CoreDataStackWorkshop", path: ".."),
    // The baseline talks to GRDB directly, at the exact version the engine is built on.
    .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
  ],
  targets: [
    .executableTarget(
      name: "objectgraph-bench",
      dependencies: [
        .product(name: "ObjectGraph", package: "CoreDataStackWorkshop"),
        .product(name: "NotesModel", package: "CoreDataStackWorkshop"),
        .product(name: "Stage1", package: "CoreDataStackWorkshop"),
        .product(name: "Stage2", package: "CoreDataStackWorkshop"),
        .product(name: "Stage3", package: "CoreDataStackWorkshop"),
        .product(name: "Stage4", package: "CoreDataStackWorkshop"),
        // The demos' 60 Hz "UI", which measures the main queue's stalls.
        .product(name: "DemoSupport", package: "CoreDataStackWorkshop"),
        .product(name: "GRDB", package: "GRDB.swift"),
      ],
      path: "Sources/objectgraph-bench"
    )
  ],
  swiftLanguageModes: [.v6]
)
