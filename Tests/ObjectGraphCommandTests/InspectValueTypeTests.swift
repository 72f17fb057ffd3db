import EngineTestSupport
import Foundation
import ObjectGraph
import TestSupport
import Testing

// `objectgraph inspect` shows each value as its attribute type says: an Integer 16, 32 or 64 holding 0 or 1 is
// a number, not `false`/`true` (`value(forKey:)` gives every number as an NSNumber, and one holding 0 or 1
// passes for a Bool). The store and its model are made here with the engine, then inspected as a learner would.

@Suite("objectgraph inspect: values by attribute type", .timeLimit(.minutes(2)), .temporaryFolders)
struct InspectValueTypeTests {
  /// An Xcode model with an attribute of every stored type, in the order Xcode writes them (by name).
  static let modelContents = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="21513" \
    systemVersion="22D49" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
        <entity name="Reading" representedClassName="Reading" syncable="YES">
            <attribute name="blob" optional="YES" attributeType="Binary"/>
            <attribute name="count16" optional="YES" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>
            <attribute name="count32" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
            <attribute name="count64" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
            <attribute name="flag" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
            <attribute name="id" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
            <attribute name="level" optional="YES" attributeType="Float" defaultValueString="0.0" usesScalarValueType="YES"/>
            <attribute name="link" optional="YES" attributeType="URI"/>
            <attribute name="name" optional="YES" attributeType="String"/>
            <attribute name="price" optional="YES" attributeType="Decimal"/>
            <attribute name="ratio" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
            <attribute name="taken" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
        </entity>
    </model>
    """

  @Test("Integers 0 and 1 print as numbers, Booleans as true/false, and every other type as itself")
  func valuesByType() throws {
    let folder = try TemporaryFolder()
    let modelURL = folder.appending("Readings.xcdatamodel")
    try FileManager.default.createDirectory(at: modelURL, withIntermediateDirectories: false)
    try Data(Self.modelContents.utf8).write(to: modelURL.appendingPathComponent("contents"))
    let model = try NSManagedObjectModel(loadingContentsOf: modelURL)
    let stack = try StoreStack(model: model, folder: folder, fileName: "Readings.sqlite")
    let context = stack.context
    try context.performAndWait {
      let entity = try #require(model.entitiesByName["Reading"])
      let first = NSManagedObject(entity: entity, insertInto: context)
      first.setValue(Int16(0), forKey: "count16")
      first.setValue(Int32(1), forKey: "count32")
      first.setValue(Int64(1), forKey: "count64")
      first.setValue(false, forKey: "flag")
      first.setValue(Data([1, 2, 3]), forKey: "blob")
      first.setValue(UUID(uuidString: "FEFE4176-912D-429F-9C83-662FFF641115"), forKey: "id")
      first.setValue(Float(1.5), forKey: "level")
      first.setValue(URL(string: "https://swift.org"), forKey: "link")
      first.setValue("first", forKey: "name")
      first.setValue(Decimal(string: "2.5"), forKey: "price")
      first.setValue(0.25, forKey: "ratio")
      first.setValue(Date(timeIntervalSinceReferenceDate: 639_503_569), forKey: "taken")
      try context.save()
      let second = NSManagedObject(entity: entity, insertInto: context)
      second.setValue(Int16(1), forKey: "count16")
      second.setValue(Int32(0), forKey: "count32")
      second.setValue(Int64(0), forKey: "count64")
      second.setValue(true, forKey: "flag")
      second.setValue("second", forKey: "name")
      second.setValue(Decimal.nan, forKey: "price")
      second.setValue(1.0, forKey: "ratio")
      try context.save()
    }
    try stack.close()

    let run = try InspectTests.inspect([stack.storeURL.path, "--model", modelURL.path])
    #expect(run.status == 0, "stderr: \(run.stderr)")
    let printed = InspectTests.lines(run.stdout)
    InspectTests.expectRun(
      [
        "  Reading #1", "    blob: 3 bytes", "    count16: 0", "    count32: 1", "    count64: 1", "    flag: false",
        "    id: FEFE4176-912D-429F-9C83-662FFF641115", "    level: 1.5", "    link: <https://swift.org>", "    name: \"first\"",
        "    price: 2.5", "    ratio: 0.25", "    taken: 2021-04-07T15:52:49Z",
      ], in: printed)
    InspectTests.expectRun(
      [
        "  Reading #2", "    blob: nil", "    count16: 1", "    count32: 0", "    count64: 0", "    flag: true", "    id: nil",
        "    level: 0.0", "    link: nil", "    name: \"second\"", "    price: NaN", "    ratio: 1.0", "    taken: nil",
      ], in: printed)
  }
}
