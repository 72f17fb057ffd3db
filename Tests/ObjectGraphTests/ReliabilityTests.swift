import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// What an adversary found: inputs that crashed or hung the engine, and stores it could not reopen. Each is
/// a typed error now, or opens.
@Suite("Reliability: bad input and interrupted files", .temporaryFolders)
struct ReliabilityTests {
  @Test("Deeply nested predicates are refused with 900002, not a stack overflow")
  func deepPredicates() throws {
    for format in [
      String(repeating: "(", count: 10_000) + "a == 1" + String(repeating: ")", count: 10_000),
      String(repeating: "NOT ", count: 10_000) + "a == 1",
      "a IN " + String(repeating: "{", count: 10_000) + "1" + String(repeating: "}", count: 10_000),
      "a == " + String(repeating: "-", count: 10_000) + "1",
      "a == " + String(repeating: "(", count: 10_000) + "1" + String(repeating: ")", count: 10_000),
    ] {
      let error = expectCode(.predicateSyntax) { _ = try FetchPredicate(format: format) }
      #expect(error?.message.contains("levels deep") == true, "\(format.prefix(20)): \(error?.message ?? "")")
    }
    // A real predicate with some nesting still parses.
    _ = try FetchPredicate(format: "((a == 1 AND (b == 2 OR NOT (c == 3))) OR d IN {1, 2, {3}})")
  }

  @Test("An entity that is its own parent, or a parent cycle, is a model error naming the entities")
  func parentCycles() throws {
    let folder = try TemporaryFolder()
    for (name, xml) in [
      ("Self", #"<model><entity name="A" parentEntity="A"><attribute name="x" attributeType="String"/></entity></model>"#),
      (
        "Cycle",
        #"<model><entity name="A" parentEntity="B"><attribute name="x" attributeType="String"/></entity><entity name="B" parentEntity="A"/></model>"#
      ),
      (
        "Indexed",
        #"<model><entity name="A" parentEntity="A"><attribute name="x" attributeType="String" indexed="YES"/><fetchIndex name="byX"><fetchIndexElement property="x" type="Binary" order="ascending"/></fetchIndex><uniquenessConstraints><uniquenessConstraint><constraint value="x"/></uniquenessConstraint></uniquenessConstraints></entity></model>"#
      ),
      (
        "Derived",
        #"<model><entity name="A" parentEntity="A"><attribute name="x" attributeType="String"/><attribute name="y" attributeType="String" derived="YES" derivationExpression="x"/><relationship name="r" toMany="YES" destinationEntity="A" inverseName="r" inverseEntity="A"/></entity></model>"#
      ),
    ] {
      let version = folder.appending("\(name).xcdatamodel")
      try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
      try Data(xml.utf8).write(to: version.appendingPathComponent("contents"))
      let error = expectCode(.modelInvalid) { _ = try ManagedObjectModel(contentsOf: version) }
      #expect(error?.message.contains("inherits from itself") == true, "\(error?.message ?? "")")
    }
    let a = EntityDescription(name: "A", properties: [.attribute(AttributeDescription(name: "x", type: .string))])
    let b = EntityDescription(name: "B", properties: [])
    a.superentity = b
    b.superentity = a
    _ = expectCode(.modelInvalid) { _ = try ManagedObjectModel(entities: [a, b]) }
    let selfish = EntityDescription(name: "S", properties: [.attribute(AttributeDescription(name: "x", type: .string))])
    selfish.superentity = selfish
    _ = expectCode(.modelInvalid) { _ = try ManagedObjectModel(entities: [selfish]) }
  }
}
