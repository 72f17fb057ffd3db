import Foundation
import ObjectGraph

// One libFuzzer entry point for four inputs, chosen by the first byte modulo 4: 0 feeds the rest to the
// predicate parser as a format (with one string argument per specifier), 1 to the Xcode model loader as a
// `contents` file, 2 to the compiled model loader as a `.mom` file (a binary property list holding a keyed
// archive), 3 to the mapping model reader (`NSMappingModel(contentsOf:)`) as a compiled `.cdm` file when it starts
// like a binary property list, else as the `xcmapping.xml` of a `.xcmappingmodel` folder. Bytes 0, 1 and 2 keep
// the meaning they had when the choice was even/odd and then modulo 3 (CI's seeds start with them).
// Every input must end in a result or a thrown ObjectGraphError; anything else (a crash, a hang) is what
// libFuzzer reports.

/// The model a parsed predicate is checked against: a note with a title, a rating and tags.
private let model: NSManagedObjectModel? = {
  let note = NSEntityDescription(
    name: "Note",
    properties: [
      NSAttributeDescription(name: "title", type: .string),
      NSAttributeDescription(name: "rating", type: .integer64),
      NSRelationshipDescription(name: "tags", destination: "Tag", inverse: "notes", toMany: true),
    ])
  let tag = NSEntityDescription(
    name: "Tag",
    properties: [
      NSAttributeDescription(name: "name", type: .string),
      NSRelationshipDescription(name: "notes", destination: "Note", inverse: "tags", toMany: true),
    ])
  return try? NSManagedObjectModel(entities: [note, tag])
}()

private let context: NSManagedObjectContext? = {
  guard let model else { return nil }
  let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
  guard (try? coordinator.addPersistentStore(type: .inMemory, at: URL(fileURLWithPath: "/dev/null"))) != nil else { return nil }
  let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
  context.persistentStoreCoordinator = coordinator
  return context
}()

/// The file each compiled model input is written to.
private let compiledModelFile: URL? = {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-fuzz-\(getpid())")
  guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil else { return nil }
  return folder.appendingPathComponent("Fuzz.mom")
}()

/// The model version folder each model input is written into, as `contents`.
private let modelFolder: URL? = {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-fuzz-\(getpid())/Fuzz.xcdatamodel")
  return (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) == nil ? nil : folder
}()

/// The files each mapping model input is written to: a `.cdm`, or a `.xcmappingmodel` folder's `xcmapping.xml`.
private let mappingFiles: (compiled: URL, xcode: URL)? = {
  let folder = FileManager.default.temporaryDirectory.appendingPathComponent("objectgraph-fuzz-\(getpid())")
  let xcode = folder.appendingPathComponent("Fuzz.xcmappingmodel", isDirectory: true)
  guard (try? FileManager.default.createDirectory(at: xcode, withIntermediateDirectories: true)) != nil else { return nil }
  return (folder.appendingPathComponent("Fuzz.cdm"), xcode.appendingPathComponent("xcmapping.xml"))
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let bytes = Data(UnsafeRawBufferPointer(start: start, count: count))
  guard let selector = bytes.first else { return 0 }
  let rest = bytes.dropFirst()
  switch selector % 4 {
  case 0:
    let format = String(decoding: rest, as: UTF8.self)
    let specifiers = format.components(separatedBy: "%").count - 1
    let arguments: [any Sendable] = Array(repeating: "a", count: min(specifiers, 8))
    let predicate = NSPredicate(format: format, argumentArray: arguments)
    guard let context else { return 0 }
    context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
      request.predicate = predicate
      _ = try? context.fetch(request)
    }
  case 1:
    guard let modelFolder else { return 0 }
    guard (try? Data(rest).write(to: modelFolder.appendingPathComponent("contents"))) != nil else { return 0 }
    _ = NSManagedObjectModel(contentsOf: modelFolder)
  case 2:
    guard let compiledModelFile else { return 0 }
    guard (try? Data(rest).write(to: compiledModelFile)) != nil else { return 0 }
    _ = NSManagedObjectModel(contentsOf: compiledModelFile)
  default:
    // Read against the predicate's model, so that the whole file is read before its entity names are checked
    // (a mapping model alone would look for its models beside it first).
    guard let mappingFiles, let model else { return 0 }
    let compiled = rest.starts(with: Array("bplist".utf8))
    guard (try? Data(rest).write(to: compiled ? mappingFiles.compiled : mappingFiles.xcode)) != nil else { return 0 }
    let url = compiled ? mappingFiles.compiled : mappingFiles.xcode.deletingLastPathComponent()
    _ = try? NSMappingModel(contentsOf: url, sourceModel: model, destinationModel: model)
  }
  return 0
}

/// libFuzzer's driver, which its own `main` would run.
@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
  _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ callback: @convention(c) (UnsafeRawPointer, Int) -> CInt
) -> CInt

/// The executable's entry point: SwiftPM links an executable's `main` to this symbol, so it hands the
/// command line to libFuzzer.
@_cdecl("objectgraph_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  var count = argc
  var arguments = argv
  return runDriver(&count, &arguments) { start, length in fuzz(start, length) }
}
