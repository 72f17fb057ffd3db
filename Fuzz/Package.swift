// swift-tools-version: 6.1
// libFuzzer targets for ObjectGraph, built with the fuzzer sanitizer (Docs/ObjectGraph.md, "Reliability: trying to lose data"):
//
//   cd Fuzz && swift build -c release -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library
//   .build/release/objectgraph-fuzz -max_total_time=600 corpus/
//
// A package of its own, as Benchmarks is: its executable has no `main` (libFuzzer brings one), so it
// builds only with those flags, and `swift build` at the root never sees it.
import PackageDescription

let package = Package(
  name: "ObjectGraphFuzz",
  platforms: [.macOS(.v15)],
  // Without the engine's `ManagedMacro` trait: the fuzzer sanitizer would be linked into the macro's plugin,
  // a program with a `main` of its own; the fuzz targets declare no managed properties.
  dependencies: [.package(name: "CoreDataStackWorkshop", path: "..", traits: [])],
  targets: [
    .executableTarget(
      name: "objectgraph-fuzz",
      dependencies: [.product(name: "ObjectGraph", package: "CoreDataStackWorkshop")],
      path: "Sources/objectgraph-fuzz"
    )
  ],
  swiftLanguageModes: [.v6]
)
