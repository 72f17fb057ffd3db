import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

@Suite("Compiled models (.momd, .mom)", .temporaryFolders)
struct CompiledModelTests {
  static let versionNames = ["SampleModel", "SampleModel2", "SampleModel3"]

  static func momd() throws -> URL {
    try Fixtures.sampleModelFolder().appendingPathComponent("SampleModel.momd", isDirectory: true)
  }

  /// The fixture `.momd`'s models, in version order.
  static func versionsOfMomd() throws -> [NSManagedObjectModel] {
    try NSManagedObjectModel.versions(in: momd()).map(\.model)
  }

  static func xcdatamodeld() throws -> URL {
    try Fixtures.sampleModelFolder().appendingPathComponent("SampleModel.xcdatamodeld", isDirectory: true)
  }

  /// Every field the engine models, one line each, so that two models compare field by field and a
  /// difference names the field.
  static func fields(of model: NSManagedObjectModel) -> [String] {
    func value(_ value: (any Sendable)?) -> String {
      value.map { "\(type(of: $0)) \($0)" } ?? "nil"
    }
    var lines = ["versionIdentifiers \(model.versionIdentifiers.sorted())", "configurations \(model.configurations)"]
    for name in model.configurations {
      lines.append("configuration \(name): \((model.entities(forConfigurationName: name) ?? []).map(\.entityName).sorted())")
    }
    for template in model.fetchRequestTemplates {
      lines.append("template \(template.name) \(template.entityName)")
    }
    for entity in model.entities.sorted(by: { $0.entityName < $1.entityName }) {
      let e = entity.entityName
      lines += [
        "\(e) class \(entity.representedClassName ?? "nil")", "\(e) abstract \(entity.isAbstract)",
        "\(e) super \(entity.superentity?.entityName ?? "nil")", "\(e) subentities \(entity.subentities.map(\.entityName).sorted())",
        "\(e) renaming \(entity.renamingIdentifier ?? "nil")", "\(e) hashModifier \(entity.versionHashModifier ?? "nil")",
        "\(e) userInfo \(entity.userInfo.sorted { $0.key < $1.key })",
        "\(e) constraints \(entity.uniquenessConstraints)", "\(e) indexes \(entity.indexes)",
        "\(e) fetched \(entity.fetchedProperties.map { "\($0.name)->\($0.destinationEntityName)" })",
        "\(e) own properties \(entity.ownProperties.map(\.name).sorted())",
      ]
      for property in entity.ownProperties {
        let p = "\(e).\(property.name)"
        switch property.kind {
        case .attribute(let a):
          lines += [
            "\(p) type \(a.attributeType)", "\(p) optional \(a.isOptional)", "\(p) transient \(a.isTransient)",
            "\(p) default \(value(a.defaultValue))", "\(p) renaming \(a.renamingIdentifier ?? "nil")",
            "\(p) hashModifier \(a.versionHashModifier ?? "nil")", "\(p) userInfo \(a.userInfo)",
            "\(p) external \(a.allowsExternalBinaryDataStorage)", "\(p) transformer \(a.valueTransformerName ?? "nil")",
            "\(p) derivation \(a.derivationFormat ?? "nil")",
          ]
        case .relationship(let r):
          lines += [
            "\(p) destination \(r.destinationEntityName)", "\(p) inverse \(r.inverseRelationshipName ?? "nil")",
            "\(p) toMany \(r.isToMany)", "\(p) ordered \(r.isOrdered)", "\(p) optional \(r.isOptional)",
            "\(p) transient \(r.isTransient)", "\(p) counts \(r.minCount)...\(r.maxCount)",
            "\(p) deleteRule \(r.deleteRule)", "\(p) renaming \(r.renamingIdentifier ?? "nil")",
            "\(p) hashModifier \(r.versionHashModifier ?? "nil")", "\(p) userInfo \(r.userInfo)",
          ]
        }
      }
    }
    return lines
  }

  @Test(".momd: every version loads with the same entities, properties and flags as the .xcdatamodeld", .needsFixtures)
  func momdVersionsMatchXcodeModel() throws {
    let compiled = try NSManagedObjectModel.versions(in: Self.momd())
    let source = try NSManagedObjectModel.versions(in: Self.xcdatamodeld())
    #expect(compiled.map(\.name) == Self.versionNames)
    #expect(source.map(\.name) == Self.versionNames)
    for ((name, model), (_, xcode)) in zip(compiled, source) {
      #expect(model.versionName == name)
      #expect(model.sourceURL?.lastPathComponent == "\(name).mom")
      let compiledFields = Self.fields(of: model)
      let xcodeFields = Self.fields(of: xcode)
      #expect(compiledFields.count == xcodeFields.count, "version \(name)")
      for (line, expected) in zip(compiledFields, xcodeFields) {
        #expect(line == expected, "version \(name)")
      }
      // The same descriptions give the same version hashes, whatever the recipe: a difference is a loader bug.
      #expect(model.entityVersionHashesByName == xcode.entityVersionHashesByName, "version \(name)")
    }
    // Spot checks of what the versions hold, so that a field both loaders got wrong the same way shows too.
    let v1 = try #require(compiled.first?.model)
    let person = try #require(v1.entitiesByName["Person"])
    let id = try #require(person.attributesByName["id"])
    #expect(id.attributeType == .UUIDAttributeType && !id.isOptional)
    let speed = try #require(v1.entitiesByName["Car"]?.attributesByName["currentDrivingSpeed"])
    #expect(speed.isTransient && speed.attributeType == .integer64AttributeType && speed.defaultValue as? Int64 == 0)
    #expect(v1.entitiesByName["Car"]?.attributesByName["color"]?.valueTransformerName == "ColorTransformer")
    #expect(v1.entitiesByName["ExpensiveSportCar"]?.superentity?.entityName == "SportCar")
    #expect(person.uniquenessConstraints == [["firstName", "lastName"]])
    #expect(person.relationshipsByName["cars"]?.isToMany == true)
    let v2 = compiled[1].model
    #expect(v2.entitiesByName["LuxuryCar"]?.renamingIdentifier == "ExpensiveSportCar")
    #expect(v2.entitiesByName["Car"]?.indexes.map(\.name) == ["byMakerAndNumberPlate"])
    #expect(v2.versionIdentifiers == ["2"])
    #expect(compiled[2].model.entitiesByName["Maker"]?.attributesByName["name"]?.isOptional == false)
  }

  @Test("every version's computed entity hashes equal VersionInfo.plist's NSManagedObjectModel_VersionHashes", .needsFixtures)
  func versionHashesMatchVersionInfo() throws {
    let info = try CompiledModelLoader.versionInfo(
      at: Self.momd().appendingPathComponent(CompiledModelLoader.versionInfoFileName))
    #expect(info.currentVersionName == "SampleModel")
    #expect(info.versionHashes.keys.sorted() == Self.versionNames)
    for (name, model) in try NSManagedObjectModel.versions(in: Self.momd()) {
      let expected = try #require(info.versionHashes[name])
      #expect(model.entityVersionHashesByName.keys.sorted() == expected.keys.sorted(), "version \(name)")
      // A difference is a loader bug: the same descriptions loaded from the .xcdatamodeld hash as momc did.
      for (entity, hash) in expected.sorted(by: { $0.key < $1.key }) {
        #expect(
          model.entityVersionHashesByName[entity] == hash,
          "version \(name), entity \(entity): the hash of the loaded description differs from momc's")
      }
    }
  }

  @Test("init(contentsOf:) loads the current version of a .momd, as VersionInfo.plist names it", .needsFixtures)
  func currentVersion() throws {
    let model = try NSManagedObjectModel(loadingContentsOf: Self.momd())
    #expect(model.versionName == "SampleModel")
    #expect(Set(model.entities.map(\.name)) == ["Car", "ExpensiveSportCar", "Person", "SportCar"])
    #expect(model.versionIdentifiers == ["1"])
    #expect(model.sourceURL == (try Self.momd()))
  }

  @Test("a single .mom file loads, and versions(in:) of it has one entry", .needsFixtures)
  func singleMom() throws {
    let url = try Self.momd().appendingPathComponent("SampleModel3.mom")
    let model = try NSManagedObjectModel(loadingContentsOf: url)
    #expect(model.versionName == "SampleModel3")
    #expect(Set(model.entities.map(\.name)) == ["Car", "LuxuryCar", "Maker", "Person", "SportCar"])
    #expect(model.entitiesByName["Car"]?.relationshipsByName["previousOwners"]?.inverseRelationshipName == "previousCars")
    #expect(try NSManagedObjectModel.versions(in: url).map(\.name) == ["SampleModel3"])
  }

  @Test("a .mom read, written back and read again is the same model (the test writer round-trips)", .needsFixtures)
  func roundTrip() throws {
    let folder = try TemporaryFolder()
    let original = try Self.momd().appendingPathComponent("SampleModel2.mom")
    let plist = try BinaryPropertyList.read(Data(contentsOf: original))
    let copy = folder.appending("Copy.mom")
    try TestPropertyListWriter.write(plist).write(to: copy)
    #expect(try BinaryPropertyList.read(Data(contentsOf: copy)) == plist)
    #expect(
      Self.fields(of: try NSManagedObjectModel(loadingContentsOf: copy))
        == Self.fields(of: try NSManagedObjectModel(loadingContentsOf: original)))
  }

  // MARK: - Bad input

  /// A copy of the fixture `.momd` in a temporary folder, to damage.
  static func momdCopy(in folder: TemporaryFolder) throws -> URL {
    let copy = folder.appending("SampleModel.momd")
    try FileManager.default.copyItem(at: momd(), to: copy)
    // The fixtures are read-only; the copy must be writable to be damaged.
    for name in try FileManager.default.contentsOfDirectory(atPath: copy.path) {
      try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy.appendingPathComponent(name).path)
    }
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy.path)
    return copy
  }

  /// Expects `body` to throw `.modelInvalid` naming `file` and saying `words`.
  static func expectInvalid(
    _ file: String, _ words: [String], sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
  ) {
    do {
      try body()
      Issue.record("no error; expected one naming \(file)", sourceLocation: sourceLocation)
    } catch let error as ObjectGraphError {
      #expect(error.code == .modelInvalid, sourceLocation: sourceLocation)
      #expect(error.message.contains(file), "\(error.message)", sourceLocation: sourceLocation)
      for word in words {
        #expect(error.message.contains(word), "\(error.message)", sourceLocation: sourceLocation)
      }
    } catch {
      Issue.record("not an ObjectGraphError: \(error)", sourceLocation: sourceLocation)
    }
  }

  @Test("a .momd whose VersionInfo.plist names a version that is not there", .needsFixtures)
  func missingVersion() throws {
    let folder = try TemporaryFolder()
    let momd = try Self.momdCopy(in: folder)
    try FileManager.default.removeItem(at: momd.appendingPathComponent("SampleModel3.mom"))
    Self.expectInvalid("VersionInfo.plist", ["'SampleModel3'", "no 'SampleModel3.mom'"]) {
      _ = try NSManagedObjectModel(loadingContentsOf: momd)
    }
    Self.expectInvalid("VersionInfo.plist", ["'SampleModel3'"]) { _ = try NSManagedObjectModel.versions(in: momd) }
    // The current version missing, with only its .omo left: the message says why the .omo is not read.
    try FileManager.default.removeItem(at: momd.appendingPathComponent("SampleModel.mom"))
    try FileManager.default.copyItem(
      at: Self.momd().appendingPathComponent("SampleModel3.mom"), to: momd.appendingPathComponent("SampleModel3.mom"))
    Self.expectInvalid("VersionInfo.plist", ["'SampleModel'", "SampleModel.omo", "private format"]) {
      _ = try NSManagedObjectModel(loadingContentsOf: momd)
    }
  }

  @Test("a .momd without VersionInfo.plist: one .mom is current, several are refused", .needsFixtures)
  func withoutVersionInfo() throws {
    let folder = try TemporaryFolder()
    let momd = try Self.momdCopy(in: folder)
    try FileManager.default.removeItem(at: momd.appendingPathComponent("VersionInfo.plist"))
    Self.expectInvalid(momd.path, ["no VersionInfo.plist", "'SampleModel.mom'", "'SampleModel3.mom'"]) {
      _ = try NSManagedObjectModel(loadingContentsOf: momd)
    }
    for name in ["SampleModel.mom", "SampleModel3.mom"] {
      try FileManager.default.removeItem(at: momd.appendingPathComponent(name))
    }
    let model = try NSManagedObjectModel(loadingContentsOf: momd)
    #expect(model.versionName == "SampleModel2")
    #expect(try NSManagedObjectModel.versions(in: momd).map(\.name) == ["SampleModel2"])
  }

  @Test("a .omo file alone is refused, saying it is a private format", .needsFixtures)
  func omoAlone() throws {
    let url = try Self.momd().appendingPathComponent("SampleModel.omo")
    Self.expectInvalid(url.path, ["private Apple format", ".mom"]) { _ = try NSManagedObjectModel(loadingContentsOf: url) }
  }

  @Test("a truncated .mom: every prefix is refused with an error, none traps", .needsFixtures)
  func truncated() throws {
    let folder = try TemporaryFolder()
    let bytes = try Data(contentsOf: Self.momd().appendingPathComponent("SampleModel.mom"))
    let url = folder.appending("Truncated.mom")
    for length in stride(from: 0, to: bytes.count, by: 97) {
      try bytes.prefix(length).write(to: url)
      Self.expectInvalid(url.path, ["binary property list"]) { _ = try NSManagedObjectModel(loadingContentsOf: url) }
    }
  }

  @Test("a .mom that is not a property list, and property lists that are not model archives", .needsFixtures)
  func notAModel() throws {
    let folder = try TemporaryFolder()
    let text = folder.appending("Text.mom")
    try Data("<?xml version=\"1.0\"?><model/>".utf8).write(to: text)
    Self.expectInvalid(text.path, ["does not start with 'bplist00'"]) { _ = try NSManagedObjectModel(loadingContentsOf: text) }
    let info = folder.appending("Info.mom")
    try FileManager.default.copyItem(at: Self.momd().appendingPathComponent("VersionInfo.plist"), to: info)
    Self.expectInvalid(info.path, ["not a keyed archive"]) { _ = try NSManagedObjectModel(loadingContentsOf: info) }
    let mapping = folder.appending("Mapping.mom")
    try FileManager.default.copyItem(
      at: Fixtures.sampleModelFolder().appendingPathComponent("MappingModels/V2toV3.cdm"), to: mapping)
    Self.expectInvalid(mapping.path, ["NSMappingModel, not an NSManagedObjectModel"]) {
      _ = try NSManagedObjectModel(loadingContentsOf: mapping)
    }
  }

  /// The fixture's version 1 archive with `change` applied to its `$objects`, written to `name`.
  static func damaged(
    _ name: String, in folder: TemporaryFolder, _ change: (inout [PropertyListValue]) throws -> Void
  ) throws -> URL {
    let plist = try BinaryPropertyList.read(Data(contentsOf: momd().appendingPathComponent("SampleModel.mom")))
    guard case .dictionary(var top) = plist, case .array(var objects)? = top["$objects"] else {
      throw ObjectGraphError(.modelInvalid, "the fixture is not a keyed archive")
    }
    try change(&objects)
    top["$objects"] = .array(objects)
    let url = folder.appending(name)
    try TestPropertyListWriter.write(.dictionary(top)).write(to: url)
    return url
  }

  /// The index of the first archived object whose `key` refers to the string `value`.
  static func index(of key: String, _ value: String, in objects: [PropertyListValue]) throws -> Int {
    let found = objects.indices.first { index in
      guard case .uid(let reference)? = objects[index].dictionary?[key] else { return false }
      return objects[Int(reference)] == .string(value)
    }
    return try #require(found, "no object with \(key) '\(value)'")
  }

  @Test("a UID out of range, and an archive cycle, are refused naming the file", .needsFixtures)
  func damagedArchives() throws {
    let folder = try TemporaryFolder()
    let outOfRange = try Self.damaged("OutOfRange.mom", in: folder) { objects in
      let car = try Self.index(of: "NSEntityName", "Car", in: objects)
      guard case .dictionary(var fields) = objects[car] else { return }
      fields["NSProperties"] = .uid(UInt64(objects.count + 5))
      objects[car] = .dictionary(fields)
    }
    Self.expectInvalid(outOfRange.path, ["out of range"]) { _ = try NSManagedObjectModel(loadingContentsOf: outOfRange) }

    // A default value that is an array containing itself.
    let cycle = try Self.damaged("Cycle.mom", in: folder) { objects in
      let attribute = try Self.index(of: "NSPropertyName", "isLimitedEdition", in: objects)
      let arrayClass = try #require(objects.firstIndex { $0.dictionary?["$classname"] == .string("NSMutableArray") })
      let loop = objects.count
      objects.append(.dictionary(["NS.objects": .array([.uid(UInt64(loop))]), "$class": .uid(UInt64(arrayClass))]))
      guard case .dictionary(var fields) = objects[attribute] else { return }
      fields["NSDefaultValue"] = .uid(UInt64(loop))
      objects[attribute] = .dictionary(fields)
    }
    Self.expectInvalid(cycle.path, ["cycle"]) { _ = try NSManagedObjectModel(loadingContentsOf: cycle) }

    // Two entities each the other's superentity.
    let inheritance = try Self.damaged("Inheritance.mom", in: folder) { objects in
      let car = try Self.index(of: "NSEntityName", "Car", in: objects)
      let sportCar = try Self.index(of: "NSEntityName", "SportCar", in: objects)
      guard case .dictionary(var fields) = objects[car] else { return }
      fields["NSSuperentity"] = .uid(UInt64(sportCar))
      objects[car] = .dictionary(fields)
    }
    Self.expectInvalid(inheritance.path, ["inconsistent"]) { _ = try NSManagedObjectModel(loadingContentsOf: inheritance) }

    // An attribute type Core Data does not have.
    let badType = try Self.damaged("BadType.mom", in: folder) { objects in
      let attribute = try Self.index(of: "NSPropertyName", "isLimitedEdition", in: objects)
      guard case .dictionary(var fields) = objects[attribute] else { return }
      fields["NSAttributeType"] = .integer(4242)
      objects[attribute] = .dictionary(fields)
    }
    Self.expectInvalid(badType.path, ["isLimitedEdition", "4242"]) { _ = try NSManagedObjectModel(loadingContentsOf: badType) }
  }

  @Test("binary property lists that contain themselves, nest too deep or claim too much are refused")
  func malformedPropertyLists() throws {
    // An array (object 0) whose one member is itself: header, 0xA1 0x00, offset table, trailer.
    var selfContaining = Array("bplist00".utf8) + [0xA1, 0x00]
    selfContaining += [8] + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0]
    selfContaining += [0, 0, 0, 0, 0, 0, 0, 10]
    #expect(throws: BinaryPropertyList.Malformed.self) { try BinaryPropertyList.read(Data(selfContaining)) }
    // A string claiming 2^40 bytes.
    var huge = Array("bplist00".utf8) + [0x5F, 0x13, 0, 0, 1, 0, 0, 0, 0, 0]
    huge += [8] + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0]
    huge += [0, 0, 0, 0, 0, 0, 0, 18]
    #expect(throws: BinaryPropertyList.Malformed.self) { try BinaryPropertyList.read(Data(huge)) }
    // Arrays nested deeper than the limit.
    var deep: PropertyListValue = .null
    for _ in 0..<(BinaryPropertyList.maximumDepth + 5) { deep = .array([deep]) }
    #expect(throws: BinaryPropertyList.Malformed.self) { try BinaryPropertyList.read(TestPropertyListWriter.write(deep)) }
    // Nested lists read back equal.
    var shared: PropertyListValue = .string("leaf")
    for _ in 0..<12 { shared = .array([shared, shared]) }
    #expect(try BinaryPropertyList.read(TestPropertyListWriter.write(shared)) == shared)
  }
}

/// Writes binary property lists (`bplist00`) for tests: each value becomes its own object (no sharing),
/// with 8-byte offsets and 4-byte references.
enum TestPropertyListWriter {
  static func write(_ value: PropertyListValue) -> Data {
    var objects: [[UInt8]] = []
    _ = add(value, to: &objects)
    var bytes = Array("bplist00".utf8)
    var offsets: [Int] = []
    for object in objects {
      offsets.append(bytes.count)
      bytes += object
    }
    let tableOffset = bytes.count
    for offset in offsets { bytes += bigEndian(UInt64(offset), size: 8) }
    bytes += [0, 0, 0, 0, 0, 0, 8, 4]
    bytes += bigEndian(UInt64(objects.count), size: 8) + bigEndian(0, size: 8) + bigEndian(UInt64(tableOffset), size: 8)
    return Data(bytes)
  }

  private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
    (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
  }

  private static func marker(_ kind: UInt8, count: Int) -> [UInt8] {
    count < 15 ? [kind << 4 | UInt8(count)] : [kind << 4 | 0xF, 0x13] + bigEndian(UInt64(count), size: 8)
  }

  /// Appends the value (and what it contains) and returns its object index.
  private static func add(_ value: PropertyListValue, to objects: inout [[UInt8]]) -> Int {
    let index = objects.count
    objects.append([])
    var bytes: [UInt8]
    switch value {
    case .null: bytes = [0x00]
    case .bool(let flag): bytes = [flag ? 0x09 : 0x08]
    case .integer(let number): bytes = [0x13] + bigEndian(UInt64(bitPattern: number), size: 8)
    case .real(let number): bytes = [0x23] + bigEndian(number.bitPattern, size: 8)
    case .date(let date): bytes = [0x33] + bigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8)
    case .data(let data): bytes = marker(0x4, count: data.count) + [UInt8](data)
    case .string(let text):
      if text.utf8.allSatisfy({ $0 < 0x80 }) {
        bytes = marker(0x5, count: text.utf8.count) + Array(text.utf8)
      } else {
        let units = Array(text.utf16)
        bytes = marker(0x6, count: units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
      }
    case .uid(let reference): bytes = [0x87] + bigEndian(reference, size: 8)
    case .array(let members), .set(let members):
      let kind: UInt8 = if case .array = value { 0xA } else { 0xC }
      let references = members.map { add($0, to: &objects) }
      bytes = marker(kind, count: members.count) + references.flatMap { bigEndian(UInt64($0), size: 4) }
    case .dictionary(let entries):
      let sorted = entries.sorted { $0.key < $1.key }
      let keys = sorted.map { add(.string($0.key), to: &objects) }
      let values = sorted.map { add($0.value, to: &objects) }
      bytes = marker(0xD, count: sorted.count) + (keys + values).flatMap { bigEndian(UInt64($0), size: 4) }
    }
    objects[index] = bytes
    return index
  }
}
