import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Core Data answers a model or mapping file it cannot read with `nil` and a line in the log; so does the engine,
/// and its line names the file and what is wrong.
@Suite("Model and mapping files that cannot be read: nil, and the reason logged", .temporaryFolders)
struct ModelLoadFailureTests {
  @Test("NSManagedObjectModel(contentsOf:) is nil for nothing there, an empty .xcdatamodeld and XML that is not a model, logging why")
  func modelNil() throws {
    let folder = try TemporaryFolder()
    let empty = folder.appending("Empty.xcdatamodeld")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    let broken = folder.appending("Broken.xcdatamodel")
    try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
    try Data("<model><entity name=".utf8).write(to: broken.appendingPathComponent("contents"))
    for url in [folder.appending("Missing.xcdatamodeld"), empty, broken] {
      var model: NSManagedObjectModel?
      let lines = ErrorLog.capturing { model = NSManagedObjectModel(contentsOf: url) }
      #expect(model == nil, "\(url.lastPathComponent) loaded")
      #expect(lines.count == 1, "\(lines)")
      let line = try #require(lines.first)
      #expect(line.hasPrefix("ObjectGraph: error: NSManagedObjectModel(contentsOf:) returned nil: "))
      #expect(line.contains(url.lastPathComponent), "\(line)")
      // The reason logged is the one the engine's own tools get thrown.
      let thrown = try #require(throws: ObjectGraphError.self) { try NSManagedObjectModel(loadingContentsOf: url) }
      #expect(thrown.code == ObjectGraphModelInvalidError && line.hasSuffix(thrown.message))
    }
  }

  @Test("A model that loads logs nothing")
  func modelLoads() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Tiny.xcdatamodel")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    try Data(
      """
      <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
      <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        <entity name="Item" representedClassName="NSManagedObject" syncable="YES">
          <attribute name="title" optional="YES" attributeType="String"/>
        </entity>
      </model>
      """.utf8
    ).write(to: url.appendingPathComponent("contents"))
    var model: NSManagedObjectModel?
    let lines = ErrorLog.capturing { model = NSManagedObjectModel(contentsOf: url) }
    #expect(model?.entitiesByName["Item"] != nil)
    #expect(lines.isEmpty)
  }

  @Test("NSMappingModel(contentsOf:) is nil for a nil URL (silently) and for a damaged .cdm (logging why)")
  func mappingNil() throws {
    let folder = try TemporaryFolder()
    var lines = ErrorLog.capturing { #expect(NSMappingModel(contentsOf: nil) == nil) }
    #expect(lines.isEmpty)
    let damaged = folder.appending("Damaged.cdm")
    try Data("bplist00 not really".utf8).write(to: damaged)
    lines = ErrorLog.capturing { #expect(NSMappingModel(contentsOf: damaged) == nil) }
    #expect(lines.count == 1 && lines[0].hasPrefix("ObjectGraph: error: NSMappingModel(contentsOf:) returned nil: "))
    #expect(lines.first?.contains("Damaged.cdm") == true, "\(lines)")
  }

  @Test(
    "NSMappingModel(from:forSourceModel:destinationModel:) is nil for nil models, and for a damaged .cdm among the bundle's resources (logging why)"
  )
  func mappingSearchNil() throws {
    let folder = try TemporaryFolder()
    let model = try NSManagedObjectModel(entities: [])
    let bundle = try #require(Bundle(url: folder.url))
    var lines = ErrorLog.capturing {
      #expect(NSMappingModel(from: [bundle], forSourceModel: nil, destinationModel: model) == nil)
      #expect(NSMappingModel(from: [bundle], forSourceModel: model, destinationModel: model) == nil)
    }
    #expect(lines.isEmpty)
    try Data("bplist00 not really".utf8).write(to: folder.appending("Damaged.cdm"))
    lines = ErrorLog.capturing {
      #expect(NSMappingModel(from: [bundle], forSourceModel: model, destinationModel: model) == nil)
    }
    #expect(lines.count == 1 && lines.first?.contains("Damaged.cdm") == true, "\(lines)")
  }
}
