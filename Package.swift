// swift-tools-version: 6.0
// The Core Data stack workshop: the ObjectGraph engine, the stages, and the `workshop` command.
import PackageDescription

let package = Package(
  name: "CoreDataStackWorkshop",
  platforms: [.macOS(.v13)],
  products: [
    .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
    .executable(name: "workshop", targets: ["Workshop"]),
  ],
  dependencies: [
    .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0")
  ],
  targets: [
    .target(
      name: "ObjectGraph",
      dependencies: [.product(name: "GRDB", package: "GRDB.swift")],
      path: "Stages/ObjectGraph"
    ),
    .executableTarget(
      name: "Workshop",
      path: "Stages/Workshop"
    ),
    .testTarget(
      name: "ObjectGraphTests",
      dependencies: ["ObjectGraph", .product(name: "GRDB", package: "GRDB.swift")],
      path: "Tests/ObjectGraphTests"
    ),
  ],
  swiftLanguageModes: [.v6]
)
