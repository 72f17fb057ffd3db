import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Default values Xcode's model compiler accepts although they are not in the attribute type's canonical form:
/// each loads as Core Data reads it (Foundation's `NSString` conversions), with a warning on the model naming the
/// file, entity, attribute, the written value and what it was read as. The rules are in `Docs/ObjectGraph.md`,
/// "Reading Xcode models".
@Suite("Xcode model default values", .temporaryFolders)
struct XcodeModelDefaultValueTests {
  // MARK: - Booleans written as numbers or words

  @Test("a Boolean default written 0.0 is false")
  func booleanWrittenAsZeroPointZero() throws {
    let loaded = try Self.load(type: "Boolean", default: "0.0")
    #expect(try Self.exactly(Bool.self, loaded.value) == false)
    try loaded.expectOneWarning(written: "0.0", read: "Bool false", mentioning: "boolValue")
  }

  @Test("a Boolean default written 1 is true")
  func booleanWrittenAsOne() throws {
    let loaded = try Self.load(type: "Boolean", default: "1")
    #expect(try Self.exactly(Bool.self, loaded.value) == true)
    try loaded.expectOneWarning(written: "1", read: "Bool true", mentioning: "boolValue")
  }

  @Test("a Boolean default written 2 is true, as any non-zero leading digit")
  func booleanWrittenAsTwo() throws {
    let loaded = try Self.load(type: "Boolean", default: "2")
    #expect(try Self.exactly(Bool.self, loaded.value) == true)
    try loaded.expectOneWarning(written: "2", read: "Bool true")
  }

  @Test("a Boolean default written -00 is false: sign and zeros are skipped, no non-zero digit follows")
  func booleanWrittenAsSignedZeros() throws {
    let loaded = try Self.load(type: "Boolean", default: "-00")
    #expect(try Self.exactly(Bool.self, loaded.value) == false)
    try loaded.expectOneWarning(written: "-00", read: "Bool false")
  }

  @Test("a Boolean default written true is true (a leading t)")
  func booleanWrittenAsTrueWord() throws {
    let loaded = try Self.load(type: "Boolean", default: "true")
    #expect(try Self.exactly(Bool.self, loaded.value) == true)
    try loaded.expectOneWarning(written: "true", read: "Bool true")
  }

  @Test("a Boolean default written yes (lower case) is true (a leading y)")
  func booleanWrittenAsLowerCaseYes() throws {
    let loaded = try Self.load(type: "Boolean", default: "yes")
    #expect(try Self.exactly(Bool.self, loaded.value) == true)
    try loaded.expectOneWarning(written: "yes", read: "Bool true")
  }

  @Test("a Boolean default written false is false")
  func booleanWrittenAsFalseWord() throws {
    let loaded = try Self.load(type: "Boolean", default: "false")
    #expect(try Self.exactly(Bool.self, loaded.value) == false)
    try loaded.expectOneWarning(written: "false", read: "Bool false")
  }

  @Test("a Boolean default of other text is false, as boolValue reads it")
  func booleanWrittenAsOtherText() throws {
    let loaded = try Self.load(type: "Boolean", default: "on")
    #expect(try Self.exactly(Bool.self, loaded.value) == false)
    try loaded.expectOneWarning(written: "on", read: "Bool false")
  }

  // MARK: - Numbers written as words, fractions, exponents

  @Test("an Integer 16 default written YES is 0: intValue reads text without a leading number as 0")
  func integerWrittenAsYes() throws {
    let loaded = try Self.load(type: "Integer 16", default: "YES")
    #expect(try Self.exactly(Int16.self, loaded.value) == 0)
    try loaded.expectOneWarning(written: "YES", read: "Int16 0", mentioning: "intValue")
  }

  @Test("an Integer 64 default written true is 0, as longLongValue reads it")
  func integer64WrittenAsTrue() throws {
    let loaded = try Self.load(type: "Integer 64", default: "true")
    #expect(try Self.exactly(Int64.self, loaded.value) == 0)
    try loaded.expectOneWarning(written: "true", read: "Int64 0", mentioning: "longLongValue")
  }

  @Test("a Double default written NO is 0.0, as doubleValue reads it")
  func doubleWrittenAsNo() throws {
    let loaded = try Self.load(type: "Double", default: "NO")
    #expect(try Self.exactly(Double.self, loaded.value) == 0)
    try loaded.expectOneWarning(written: "NO", read: "Double 0.0", mentioning: "doubleValue")
  }

  @Test("an Integer 32 default written 1.0 is 1")
  func integerWithZeroFraction() throws {
    let loaded = try Self.load(type: "Integer 32", default: "1.0")
    #expect(try Self.exactly(Int32.self, loaded.value) == 1)
    try loaded.expectOneWarning(written: "1.0", read: "Int32 1", mentioning: "leading whole number")
  }

  @Test("an Integer 32 default written 2.9 is 2: the fraction is dropped, not rounded")
  func integerWithFraction() throws {
    let loaded = try Self.load(type: "Integer 32", default: "2.9")
    #expect(try Self.exactly(Int32.self, loaded.value) == 2)
    try loaded.expectOneWarning(written: "2.9", read: "Int32 2")
  }

  @Test("an Integer 64 default written 1e3 is 1: intValue stops at the e")
  func integerWithExponent() throws {
    let loaded = try Self.load(type: "Integer 64", default: "1e3")
    #expect(try Self.exactly(Int64.self, loaded.value) == 1)
    try loaded.expectOneWarning(written: "1e3", read: "Int64 1")
  }

  @Test("an Integer 16 default written - 5 is -5: spaces between sign and digits are skipped")
  func integerWithSpaceAfterSign() throws {
    let loaded = try Self.load(type: "Integer 16", default: "- 5")
    #expect(try Self.exactly(Int16.self, loaded.value) == -5)
    try loaded.expectOneWarning(written: "- 5", read: "Int16 -5")
  }

  @Test("a Float default written with trailing text keeps its leading number")
  func floatWithTrailingText() throws {
    let loaded = try Self.load(type: "Float", default: "2.5 kg")
    #expect(try Self.exactly(Float.self, loaded.value) == 2.5)
    try loaded.expectOneWarning(written: "2.5 kg", read: "Float 2.5", mentioning: "floatValue")
  }

  @Test("a Double default written 1e is 1: an exponent without digits is not part of the number")
  func doubleWithDanglingExponent() throws {
    let loaded = try Self.load(type: "Double", default: "1e")
    #expect(try Self.exactly(Double.self, loaded.value) == 1)
    try loaded.expectOneWarning(written: "1e", read: "Double 1.0")
  }

  @Test("a Double default written 0x10 is 0: hexadecimal is not read")
  func doubleWrittenInHexadecimal() throws {
    let loaded = try Self.load(type: "Double", default: "0x10")
    #expect(try Self.exactly(Double.self, loaded.value) == 0)
    try loaded.expectOneWarning(written: "0x10", read: "Double 0.0")
  }

  @Test("a Decimal default with trailing text keeps its leading number, exactly")
  func decimalWithTrailingText() throws {
    let loaded = try Self.load(type: "Decimal", default: "12.50 EUR")
    #expect(try Self.exactly(Decimal.self, loaded.value) == Decimal(string: "12.5"))
    try loaded.expectOneWarning(written: "12.50 EUR", read: "Decimal 12.5")
  }

  @Test("a Decimal default that is no number has no default")
  func decimalNotANumber() throws {
    let loaded = try Self.load(type: "Decimal", default: "price")
    #expect(loaded.value == nil)
    try loaded.expectOneWarning(written: "price", read: "no default (nil)", mentioning: "NaN")
  }

  // MARK: - Spaces

  @Test("spaces around an Integer 16 default are ignored")
  func integerWithSpaces() throws {
    let loaded = try Self.load(type: "Integer 16", default: " 7 ")
    #expect(try Self.exactly(Int16.self, loaded.value) == 7)
    try loaded.expectOneWarning(written: " 7 ", read: "Int16 7", mentioning: "spaces")
  }

  @Test("spaces around a Boolean YES are ignored")
  func booleanWithSpaces() throws {
    let loaded = try Self.load(type: "Boolean", default: "YES ")
    #expect(try Self.exactly(Bool.self, loaded.value) == true)
    try loaded.expectOneWarning(written: "YES ", read: "Bool true", mentioning: "spaces")
  }

  @Test("a default of spaces only is no default")
  func blankDefault() throws {
    let loaded = try Self.load(type: "Integer 32", default: "  ")
    #expect(loaded.value == nil)
    try loaded.expectOneWarning(written: "  ", read: "no default (nil)", mentioning: "spaces")
  }

  @Test("spaces around a String default belong to it: kept, no warning")
  func stringKeepsSpaces() throws {
    let loaded = try Self.load(type: "String", default: " padded ")
    #expect(try Self.exactly(String.self, loaded.value) == " padded ")
    #expect(loaded.model.loadWarnings.isEmpty)
  }

  // MARK: - UUID, URI, Date, Binary Data

  @Test("a UUID default that is not a UUID is no default")
  func uuidNotAUUID() throws {
    let loaded = try Self.load(type: "UUID", default: "abc")
    #expect(loaded.value == nil)
    try loaded.expectOneWarning(written: "abc", read: "no default (nil)", mentioning: "not a UUID")
  }

  @Test("a URI default that is not a URL is no default")
  func uriNotAURL() throws {
    let loaded = try Self.load(type: "URI", default: "not a url")
    #expect(loaded.value == nil)
    try loaded.expectOneWarning(written: "not a url", read: "no default (nil)", mentioning: "not a valid URL")
  }

  @Test("a Date default written as seconds with text keeps its leading number of seconds")
  func dateAsSecondsWithText() throws {
    let loaded = try Self.load(type: "Date", default: "3600 seconds", key: "defaultDateTimeInterval")
    #expect(try Self.exactly(Date.self, loaded.value) == Date(timeIntervalSinceReferenceDate: 3600))
    try loaded.expectOneWarning(written: "3600 seconds", read: "Date 2001-01-01T01:00:00Z", mentioning: "seconds")
  }

  @Test("a Date default written as exponent seconds in defaultValueString is read as written, no warning")
  func dateAsExponentSeconds() throws {
    let loaded = try Self.load(type: "Date", default: "1e2")
    #expect(try Self.exactly(Date.self, loaded.value) == Date(timeIntervalSinceReferenceDate: 100))
    #expect(loaded.model.loadWarnings.isEmpty)
  }

  @Test("a Date default that is no number of seconds is no default")
  func dateNotSeconds() throws {
    let loaded = try Self.load(type: "Date", default: "tomorrow", key: "defaultDateTimeInterval")
    #expect(loaded.value == nil)
    try loaded.expectOneWarning(written: "tomorrow", read: "no default (nil)")
  }

  @Test("a Binary Data default, which Xcode has no field for, is ignored")
  func binaryDefaultIgnored() throws {
    let loaded = try Self.load(type: "Binary", default: "AAAA")
    #expect(loaded.value == nil)
    try loaded.expectOneWarning(written: "AAAA", read: "no default (nil)", mentioning: "Binary Data")
  }

  @Test("a default on a Transformable attribute is not kept, and says so")
  func transformableDefaultNotKept() throws {
    let loaded = try Self.load(type: "Transformable", default: "x")
    #expect(loaded.value == nil)
    try loaded.expectOneWarning(written: "x", read: "no default (nil)", mentioning: "Transformable")
  }

  // MARK: - What stays refused, what stays quiet

  @Test("an integer whose leading number is outside its type is still refused")
  func outOfRangeAfterLeniencyIsRefused() throws {
    try Self.expectRefused(type: "Integer 16", default: "40000.5", mentioning: ["E.a", "40000.5", "-32768 to 32767"])
    try Self.expectRefused(type: "Integer 32", default: "3000000000", mentioning: ["E.a", "3000000000"])
    try Self.expectRefused(type: "Integer 64", default: "99999999999999999999 x", mentioning: ["E.a", "Integer 64"])
  }

  @Test("canonical defaults of every type load with no warning")
  func canonicalDefaultsAreQuiet() throws {
    let folder = try TemporaryFolder()
    let url = try Self.writeModel(
      in: folder,
      body: """
        <entity name="E">
          <attribute name="i16" attributeType="Integer 16" defaultValueString="-12"/>
          <attribute name="i32" attributeType="Integer 32" defaultValueString="+7"/>
          <attribute name="i64" attributeType="Integer 64" defaultValueString="9223372036854775807"/>
          <attribute name="d" attributeType="Double" defaultValueString="0.5"/>
          <attribute name="f" attributeType="Float" defaultValueString="1e3"/>
          <attribute name="dec" attributeType="Decimal" defaultValueString="12.50"/>
          <attribute name="yes" attributeType="Boolean" defaultValueString="YES"/>
          <attribute name="no" attributeType="Boolean" defaultValueString="NO"/>
          <attribute name="when" attributeType="Date" defaultDateTimeInterval="-86400.5"/>
          <attribute name="id" attributeType="UUID" defaultValueString="e621e1f8-c36c-495a-93fc-0c247a3e6e5f"/>
          <attribute name="link" attributeType="URI" defaultValueString="https://example.com/a?b=c"/>
          <attribute name="text" attributeType="String" defaultValueString=""/>
        </entity>
        """)
    let model = try NSManagedObjectModel(loadingContentsOf: url)
    #expect(model.loadWarnings.isEmpty, "\(model.loadWarnings)")
    let entity = try #require(model.entitiesByName["E"])
    #expect(try Self.exactly(Int64.self, entity.attributesByName["i64"]?.defaultValue) == Int64.max)
    #expect(try Self.exactly(Float.self, entity.attributesByName["f"]?.defaultValue) == 1000)
    #expect(
      try Self.exactly(Date.self, entity.attributesByName["when"]?.defaultValue)
        == Date(timeIntervalSinceReferenceDate: -86400.5))
  }

  @Test("a model made in code has no load warnings")
  func programmaticModelHasNoWarnings() throws {
    let flag = NSAttributeDescription(name: "flag", type: .boolean, isOptional: false, defaultValue: true)
    let model = try NSManagedObjectModel(entities: [NSEntityDescription(name: "E", properties: [.attribute(flag)])])
    #expect(model.loadWarnings.isEmpty)
  }

  @Test("warnings come in file order, name the file and line, and print as file:line: warning: …")
  func warningShapeAndOrder() throws {
    let folder = try TemporaryFolder()
    let url = try Self.writeModel(
      in: folder,
      body: """
        <entity name="A">
          <attribute name="first" attributeType="Boolean" defaultValueString="1"/>
          <attribute name="fine" attributeType="Integer 16" defaultValueString="3"/>
        </entity>
        <entity name="B">
          <attribute name="second" attributeType="Integer 16" defaultValueString="0.0"/>
        </entity>
        """)
    let model = try NSManagedObjectModel(loadingContentsOf: url)
    let contents = url.appendingPathComponent("contents")
    #expect(model.loadWarnings.map(\.property) == ["first", "second"])
    #expect(model.loadWarnings.map(\.entity) == ["A", "B"])
    let lines = try String(contentsOf: contents, encoding: .utf8).components(separatedBy: "\n")
    for warning in model.loadWarnings {
      #expect(warning.file.standardizedFileURL.path == contents.standardizedFileURL.path)
      let line = try #require(lines.indices.contains(warning.line - 1) ? lines[warning.line - 1] : nil)
      #expect(line.contains("name=\"\(warning.property)\""), "line \(warning.line) is \(line)")
    }
    let second = try #require(model.loadWarnings.last)
    #expect(second.attributeType == "Integer 16")
    #expect(
      second.description.hasPrefix(
        "\(contents.path):\(second.line): warning: B.second (Integer 16) default '0.0' read as Int16 0: "))
    // versions(in:) carries each version's warnings too.
    #expect(try NSManagedObjectModel.versions(in: url).first?.model.loadWarnings == model.loadWarnings)
  }

  @Test(
    "every fixture still loads; the only odd default in them is LoopKit's Integer 16 '0.0'", .needsFixtures)
  func fixtureWarnings() throws {
    var warningsByVersion: [String: [ModelLoadWarning]] = [:]
    var versionCount = 0
    for url in try Fixtures.models() {
      for (name, model) in try NSManagedObjectModel.versions(in: url) {
        versionCount += 1
        let key = "\(url.lastPathComponent)/\(name)"
        warningsByVersion[key] = model.loadWarnings
        for warning in model.loadWarnings {
          // Each warning points at a real attribute of the model and at the text the file holds.
          let entity = try #require(model.entitiesByName[warning.entity], "\(key): \(warning)")
          #expect(entity.attributesByName[warning.property] != nil, "\(key): \(warning)")
          let text = try String(contentsOf: warning.file, encoding: .utf8)
          #expect(text.contains("defaultValueString=\"\(warning.writtenValue)\""), "\(key): \(warning)")
        }
      }
      // The current version loads too.
      _ = try NSManagedObjectModel(loadingContentsOf: url)
    }
    #expect(versionCount >= 52)
    let odd = warningsByVersion.filter { !$0.value.isEmpty }
    #expect(Array(odd.keys) == ["LoopKit__LoopKit__Model.xcdatamodeld/Modelv4"], "\(odd)")
    let loop = try #require(odd["LoopKit__LoopKit__Model.xcdatamodeld/Modelv4"]?.first)
    #expect(odd["LoopKit__LoopKit__Model.xcdatamodeld/Modelv4"]?.count == 1)
    #expect(loop.entity == "CachedInsulinDeliveryObject")
    #expect(loop.property == "insulinType")
    #expect(loop.writtenValue == "0.0")
    #expect(loop.readValue == "Int16 0")
    #expect(loop.line == 64)
  }

  // MARK: - Helpers

  /// A one-attribute model loaded from a temporary folder, with the attribute's default.
  struct Loaded {
    let model: NSManagedObjectModel
    let value: (any Sendable)?

    func expectOneWarning(
      written: String, read: String, mentioning fragment: String? = nil,
      sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
      #expect(model.loadWarnings.count == 1, "\(model.loadWarnings)", sourceLocation: sourceLocation)
      let warning = try #require(model.loadWarnings.first, sourceLocation: sourceLocation)
      #expect(warning.entity == "E", sourceLocation: sourceLocation)
      #expect(warning.property == "a", sourceLocation: sourceLocation)
      #expect(warning.writtenValue == written, sourceLocation: sourceLocation)
      #expect(warning.readValue == read, sourceLocation: sourceLocation)
      #expect(warning.file.lastPathComponent == "contents", sourceLocation: sourceLocation)
      #expect(
        warning.file.deletingLastPathComponent().lastPathComponent == "Defaults.xcdatamodel",
        sourceLocation: sourceLocation)
      if let fragment {
        #expect(warning.message.contains(fragment), "\(warning.message)", sourceLocation: sourceLocation)
      }
      #expect(warning.description.contains("E.a"), sourceLocation: sourceLocation)
      #expect(warning.description.contains("'\(written)'"), sourceLocation: sourceLocation)
      #expect(warning.description.contains(read), sourceLocation: sourceLocation)
    }
  }

  /// Loads a model whose entity `E` has one attribute `a` of Xcode type `type` with `default` under `key`.
  static func load(type: String, default written: String, key: String = "defaultValueString") throws -> Loaded {
    let folder = try TemporaryFolder()
    let url = try writeModel(
      in: folder,
      body: #"<entity name="E"><attribute name="a" optional="YES" attributeType="\#(type)" \#(key)="\#(written)"/></entity>"#
    )
    let model = try NSManagedObjectModel(loadingContentsOf: url)
    let attribute = try #require(model.entitiesByName["E"]?.attributesByName["a"])
    return Loaded(model: model, value: attribute.defaultValue)
  }

  /// Expects loading a one-attribute model to be refused with `modelInvalid`, naming every fragment.
  static func expectRefused(
    type: String, default written: String, mentioning fragments: [String],
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let folder = try TemporaryFolder()
    let url = try writeModel(
      in: folder,
      body: #"<entity name="E"><attribute name="a" attributeType="\#(type)" defaultValueString="\#(written)"/></entity>"#)
    let error = expectCode(.modelInvalid, { _ = try NSManagedObjectModel(loadingContentsOf: url) }, sourceLocation: sourceLocation)
    for fragment in fragments {
      #expect(
        error?.message.contains(fragment) == true, "message lacks '\(fragment)': \(error?.message ?? "")",
        sourceLocation: sourceLocation)
    }
  }

  /// Writes `Defaults.xcdatamodel/contents` with `body` inside `<model>` and returns the `.xcdatamodel` folder.
  static func writeModel(in folder: TemporaryFolder, body: String) throws -> URL {
    let model = folder.appending("Defaults.xcdatamodel")
    try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
    let xml = """
      <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
      <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
      \(body)
      </model>
      """
    try Data(xml.utf8).write(to: model.appendingPathComponent("contents"))
    return model
  }

  /// `value` as exactly `T` (not a value that merely converts to it), failing the test otherwise.
  static func exactly<T>(_ type: T.Type, _ value: (any Sendable)?, sourceLocation: SourceLocation = #_sourceLocation)
    throws -> T
  {
    let value = try #require(value, "no default value", sourceLocation: sourceLocation)
    #expect(
      ObjectIdentifier(Swift.type(of: value)) == ObjectIdentifier(T.self), "got \(Swift.type(of: value))",
      sourceLocation: sourceLocation)
    return try #require(value as? T, sourceLocation: sourceLocation)
  }
}
