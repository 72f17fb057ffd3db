import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

#if canImport(Glibc)
  import Glibc
#endif

/// Model and mapping files that are not regular files. A named pipe is refused saying what it is, and never
/// opened: opening one for reading waits until another process writes to it, so a model path naming one
/// would hang the app's launch. The pipes are tried in a child process with a time limit, so a regression
/// fails the test instead of hanging the test runner.
@Suite("Model files that are not regular files: named pipes, devices, folders", .timeLimit(.minutes(2)), .temporaryFolders)
struct ModelFileTypeTests {
  /// How long the child may take for all the pipes before it is taken for hanging.
  static let seconds: UInt32 = 30

  @Test(
    "a named pipe as a .mom, a contents file, a .xccurrentversion, a VersionInfo.plist, a .cdm or an xcmapping.xml: refused naming it, never opened (in a child)"
  )
  func namedPipes() async throws {
    let folder = try TemporaryFolder()
    let fileManager = FileManager.default
    func pipe(_ path: String) throws -> String {
      let url = folder.appending(path)
      try fileManager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try #require(mkfifo(url.path, 0o600) == 0, "mkfifo \(url.path): \(String(cString: strerror(errno)))")
      return url.path
    }
    // Each case: a name, the path the loader is given, whether it is a mapping model, and the pipe.
    var cases: [(name: String, path: String, mapping: Bool, pipe: String)] = []
    let mom = try pipe("Pipe.mom")
    cases.append(("a .mom", mom, false, mom))
    cases.append(("a contents file", folder.appending("Pipe.xcdatamodel").path, false, try pipe("Pipe.xcdatamodel/contents")))
    let bare = try pipe("Pipe")
    cases.append(("a model path without an extension", bare, false, bare))
    let trips = folder.appending("Trips.xcdatamodeld")
    try fileManager.copyItem(at: TripsFixture.xcdatamodeld, to: trips)
    try fileManager.removeItem(at: trips.appendingPathComponent(".xccurrentversion"))
    cases.append(("a .xccurrentversion", trips.path, false, try pipe("Trips.xcdatamodeld/.xccurrentversion")))
    if Fixtures.areAvailable {
      let momd = folder.appending("SampleModel.momd")
      try fileManager.copyItem(at: try Fixtures.sampleModelFolder().appendingPathComponent("SampleModel.momd"), to: momd)
      try fileManager.removeItem(at: momd.appendingPathComponent("VersionInfo.plist"))
      cases.append(("a VersionInfo.plist", momd.path, false, try pipe("SampleModel.momd/VersionInfo.plist")))
    }
    let cdm = try pipe("Pipe.cdm")
    cases.append(("a .cdm", cdm, true, cdm))
    cases.append(
      ("an xcmapping.xml", folder.appending("Pipe.xcmappingmodel").path, true, try pipe("Pipe.xcmappingmodel/xcmapping.xml")))

    let list = cases.map { "\($0.path)\t\($0.mapping ? "mapping" : "model")" }.joined(separator: "\n")
    let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
      [list = list as String, seconds = Self.seconds as UInt32] in
      alarm(seconds)
      for line in list.split(separator: "\n") {
        let fields = line.split(separator: "\t").map(String.init)
        let url = URL(fileURLWithPath: fields[0])
        FileHandle.standardError.write(Data("start \(fields[0])\n".utf8))
        var said = "no error"
        do {
          if fields[1] == "mapping" {
            _ = try NSMappingModel(loadingContentsOf: url)
          } else {
            _ = try NSManagedObjectModel(loadingContentsOf: url)
          }
        } catch let error as ObjectGraphError {
          said = error.message
        } catch {
          said = "\(type(of: error)): \(error)"
        }
        FileHandle.standardError.write(Data("said \(said.replacingOccurrences(of: "\n", with: " "))\n".utf8))
      }
    }
    let lines = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self).split(separator: "\n")
    let messages = lines.filter { $0.hasPrefix("said ") }.map { String($0.dropFirst(5)) }
    #expect(messages.count == cases.count, "the child answered \(messages.count) of \(cases.count) cases: \(lines)")
    for (item, message) in zip(cases, messages) {
      #expect(message.contains("'\(item.pipe)' is a named pipe (FIFO), not a"), "\(item.name): \(message)")
    }
  }

  @Test("a device or a folder where a model file should be is refused saying what it is")
  func devicesAndFolders() throws {
    let folder = try TemporaryFolder()
    let fileManager = FileManager.default
    // /dev/zero would be read forever.
    try fileManager.createSymbolicLink(atPath: folder.appending("Zero.mom").path, withDestinationPath: "/dev/zero")
    let error = #expect(throws: ObjectGraphError.self) { _ = try NSManagedObjectModel(loadingContentsOf: folder.appending("Zero.mom")) }
    #expect(error?.message.contains("is a character device, not a model file") == true, "\(error?.message ?? "")")

    try fileManager.createSymbolicLink(atPath: folder.appending("Zero.cdm").path, withDestinationPath: "/dev/zero")
    let mapping = #expect(throws: ObjectGraphError.self) { _ = try NSMappingModel(loadingContentsOf: folder.appending("Zero.cdm")) }
    #expect(mapping?.message.contains("is a character device, not a model file") == true, "\(mapping?.message ?? "")")

    let contents = folder.appending("Folder.xcdatamodel/contents")
    try fileManager.createDirectory(at: contents, withIntermediateDirectories: true)
    let model = #expect(throws: ObjectGraphError.self) {
      _ = try NSManagedObjectModel(loadingContentsOf: folder.appending("Folder.xcdatamodel"))
    }
    #expect(model?.message.contains("'\(contents.path)' is a folder, not a model file") == true, "\(model?.message ?? "")")
  }
}
