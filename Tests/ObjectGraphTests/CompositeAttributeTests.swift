import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// Apple's example class for a composite (`@NSManaged var magnitude: [String: Any]?`), ported.
final class CompositeQuake: NSManagedObject {
  @ObjectGraphManaged var code: String?
  @ObjectGraphManaged var magnitude: [String: Any]?
}

/// Composite attributes (`NSCompositeAttributeDescription`): a dictionary value keyed by element name, one
/// column per element, element key paths in predicates and sorts, validation, migration, model files.
@Suite("Composite attributes", .temporaryFolders)
struct CompositeAttributeTests {
  /// Place: name, and `location` (latitude, longitude required; label optional; a nested `position` of x and y).
  static func placeModel(locationOptional: Bool = true, withLocation: Bool = true) throws -> NSManagedObjectModel {
    let latitude = NSAttributeDescription(name: "latitude", type: .double, isOptional: false)
    latitude.minValue = -90
    latitude.maxValue = 90
    let longitude = NSAttributeDescription(name: "longitude", type: .double, isOptional: false)
    let label = NSAttributeDescription(name: "label", type: .string)
    let position = NSCompositeAttributeDescription()
    position.name = "position"
    position.elements = [
      NSAttributeDescription(name: "x", type: .integer64), NSAttributeDescription(name: "y", type: .integer64, defaultValue: Int64(7)),
    ]
    let location = NSCompositeAttributeDescription(
      name: "location", elements: [latitude, longitude, label, position], isOptional: locationOptional)
    var properties: [NSPropertyDescription] = [NSAttributeDescription(name: "name", type: .string)]
    if withLocation { properties.append(location) }
    return try NSManagedObjectModel(entities: [NSEntityDescription(name: "Place", properties: properties)])
  }

  private static func insertPlace(
    _ name: String, _ location: [String: Any]?, in context: NSManagedObjectContext
  ) -> NSManagedObject {
    let place = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
    place.setValue(name, forKey: "name")
    place.setValue(location, forKey: "location")
    return place
  }

  private static func fetchNames(
    _ context: NSManagedObjectContext, _ predicate: NSPredicate?, sort: [NSSortDescriptor] = []
  ) throws -> [String] {
    let request = NSFetchRequest<NSManagedObject>(entityName: "Place")
    request.predicate = predicate
    request.sortDescriptors = sort
    return try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "?" }
  }

  @Test("the description: elements settable before use, Apple's type, a composite's elements change its version hash")
  func description() throws {
    let composite = NSCompositeAttributeDescription()
    #expect(composite.attributeType == .compositeAttributeType)
    #expect(composite.type == .composite)
    #expect(composite.elements.isEmpty)
    #expect(!composite.isSupportedAtRunTime)
    composite.name = "size"
    composite.elements = [NSAttributeDescription(name: "width", type: .double)]
    #expect(composite.isSupportedAtRunTime)
    let before = composite.versionHash
    composite.elements = [NSAttributeDescription(name: "width", type: .double), NSAttributeDescription(name: "height", type: .double)]
    #expect(composite.versionHash != before)
    // Elements Core Data refuses in a composite.
    let refused = NSCompositeAttributeDescription(name: "bad", elements: [NSAttributeDescription(name: "id", type: .objectID)])
    #expect(!refused.isSupportedAtRunTime)
    // Frozen with its model.
    let model = try Self.placeModel()
    _ = NSPersistentStoreCoordinator(managedObjectModel: model)
    let location = try #require(model.entitiesByName["Place"]?.attributesByName["location"] as? NSCompositeAttributeDescription)
    #expect(location.elements.map(\.name) == ["latitude", "longitude", "label", "position"])
  }

  @Test("round trip: saved, read by a new coordinator as a dictionary; one column per element")
  func roundTrip() throws {
    let stack = try StoreStack(model: Self.placeModel())
    try stack.context.performAndWait {
      let place = Self.insertPlace(
        "Paris", ["latitude": 48.85, "longitude": 2.35, "label": "centre", "position": ["x": Int64(1)]], in: stack.context)
      // Read back before saving; an element the dictionary leaves out has no value.
      let value = try #require(place.value(forKey: "location") as? [String: Any])
      #expect(value["latitude"] as? Double == 48.85)
      #expect((value["position"] as? [String: Any])?["y"] == nil)
      // A new object's elements start with their defaults.
      let fresh = NSEntityDescription.insertNewObject(forEntityName: "Place", into: stack.context)
      #expect(fresh.value(forKey: "location.position.y") as? Int64 == 7)
      #expect(fresh.value(forKey: "location") as? [String: [String: Int64]] == ["position": ["y": 7]])
      stack.context.delete(fresh)
      #expect(place.value(forKey: "location.latitude") as? Double == 48.85)
      _ = Self.insertPlace("Nowhere", nil, in: stack.context)
      try stack.context.save()
    }
    let (_, reader) = try stack.reopened()
    try reader.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Place")
      request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
      let places = try reader.fetch(request)
      #expect(places.count == 2)
      let paris = try #require(places.first)
      let value = try #require(paris.value(forKey: "location") as? [String: Any])
      #expect(value["latitude"] as? Double == 48.85)
      #expect(value["longitude"] as? Double == 2.35)
      #expect(value["label"] as? String == "centre")
      let position = try #require(value["position"] as? [String: Any])
      #expect(position["x"] as? Int64 == 1)
      #expect(position["y"] == nil)
      #expect(places.last?.value(forKey: "location") == nil)
      // Setting one element by its key path, then the whole composite to nil.
      paris.setValue(50.0, forKey: "location.latitude")
      #expect(paris.changedValues().keys.sorted() == ["location"])
      #expect((paris.committedValues(forKeys: ["location"])["location"] as? [String: Any])?["latitude"] as? Double == 48.85)
      try reader.save()
    }
    let columns = try DatabaseQueue(path: stack.storeURL.path).read { db in
      try Row.fetchAll(db, sql: "PRAGMA table_info(ZPLACE)").map { $0["name"] as String }
    }
    for column in ["ZLOCATION_LATITUDE", "ZLOCATION_LONGITUDE", "ZLOCATION_LABEL", "ZLOCATION_POSITION_X", "ZLOCATION_POSITION_Y"] {
      #expect(columns.contains(column), "\(columns)")
    }
    #expect(!columns.contains("ZLOCATION"))
    let latitude = try DatabaseQueue(path: stack.storeURL.path).read { db in
      try Double.fetchOne(db, sql: "SELECT ZLOCATION_LATITUDE FROM ZPLACE WHERE ZNAME = 'Paris'")
    }
    #expect(latitude == 50)
  }

  @Test("predicates and sorts on element key paths agree in SQL and in memory")
  func predicatesAndSorts() throws {
    let stack = try StoreStack(model: Self.placeModel())
    let places: [(String, Double, Double, Int64)] = [("A", 10, 5, 3), ("B", -20, 1, 1), ("C", 45, 9, 2), ("D", 11, 2, 5)]
    try stack.context.performAndWait {
      for (name, latitude, longitude, x) in places {
        _ = Self.insertPlace(name, ["latitude": latitude, "longitude": longitude, "position": ["x": x]], in: stack.context)
      }
      try stack.context.save()
    }
    let cases: [(String, [NSSortDescriptor])] = [
      ("location.latitude > 10", [NSSortDescriptor(key: "location.latitude", ascending: true)]),
      ("location.longitude < 6 AND location.latitude >= 10", [NSSortDescriptor(key: "location.longitude", ascending: false)]),
      ("location.position.x BETWEEN {2, 5}", [NSSortDescriptor(key: "location.position.x", ascending: true)]),
      ("location.label == nil", [NSSortDescriptor(key: "location.latitude", ascending: false)]),
    ]
    let expected = [["D", "C"], ["A", "D"], ["C", "A", "D"], ["C", "D", "A", "B"]]
    let context = stack.freshContext()
    try context.performAndWait {
      let all = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Place"))
      for ((format, sort), wanted) in zip(cases, expected) {
        let predicate = NSPredicate(format: format)
        // SQL: the store filters and sorts.
        #expect(try Self.fetchNames(context, predicate, sort: sort) == wanted, "\(format)")
        // In memory: the same predicate evaluated on the objects, sorted by the same descriptors.
        let filtered = all.filter { predicate.evaluate(with: $0) }
        let sorted = (filtered as NSArray).sortedArray(using: sort).compactMap {
          ($0 as? NSManagedObject)?.value(forKey: "name") as? String
        }
        #expect(sorted == wanted, "\(format) in memory")
      }
      // Unsaved changes are matched in memory (a fetch includes pending changes).
      let a = try #require(all.first { $0.value(forKey: "name") as? String == "A" })
      a.setValue(80.0, forKey: "location.latitude")
      #expect(try Self.fetchNames(context, NSPredicate(format: "location.latitude > 50")) == ["A"])
      // The composite itself is no value a predicate can compare.
      #expect(throws: ObjectGraphError.self) {
        try context.fetch(
          { () -> NSFetchRequest<NSManagedObject> in
            let request = NSFetchRequest<NSManagedObject>(entityName: "Place")
            request.predicate = NSPredicate(format: "location == nil")
            return request
          }())
      }
    }
  }

  @Test("validation: a wrong type, an unknown element, a missing required element, an element's rule, a required composite")
  func validation() throws {
    let stack = try StoreStack(model: Self.placeModel(locationOptional: false))
    try stack.context.performAndWait {
      let context = stack.context
      // Wrong type: refused at save (1550), naming the element.
      let wrongType = Self.insertPlace("W", ["latitude": "north", "longitude": 1.0], in: context)
      var error = try #require(throws: ObjectGraphError.self) { try context.save() }
      // The refused value (1550) and, since the required latitude has none, 1570: both, in 1560.
      #expect(error.code == .validationMultipleErrors)
      #expect(
        error.detailedErrors.contains {
          $0.code == .managedObjectValidation && $0.message.contains("Place.location.latitude is a Double element")
        })
      #expect(error.detailedErrors.contains { $0.code == .validationMissingMandatoryProperty })
      context.delete(wrongType)
      // Unknown element.
      let unknown = Self.insertPlace("U", ["latitude": 1.0, "longitude": 1.0, "altitude": 3.0], in: context)
      error = try #require(throws: ObjectGraphError.self) { try context.save() }
      #expect(error.code == .managedObjectValidation)
      #expect(error.message.contains("altitude"))
      // Not a dictionary.
      unknown.setValue(42, forKey: "location")
      error = try #require(throws: ObjectGraphError.self) { try context.save() }
      #expect(error.message.contains("[String: Any]"))
      // A valid value clears what was refused.
      unknown.setValue(["latitude": 1.0, "longitude": 1.0], forKey: "location")
      try context.save()
      // A required element missing while the composite has a value: 1570.
      let missing = Self.insertPlace("M", ["latitude": 1.0], in: context)
      error = try #require(throws: ObjectGraphError.self) { try context.save() }
      #expect(error.code == .validationMissingMandatoryProperty)
      #expect(error.message.contains("Place.location.longitude"))
      // An element's maximum: 1610.
      missing.setValue(["latitude": 100.0, "longitude": 1.0], forKey: "location")
      error = try #require(throws: ObjectGraphError.self) { try context.save() }
      #expect(error.code == 1610)
      // The composite is required: no value at all is 1570 on the composite.
      missing.setValue(nil, forKey: "location")
      error = try #require(throws: ObjectGraphError.self) { try context.save() }
      #expect(error.code == .validationMissingMandatoryProperty)
      #expect(error.message.contains("Place.location "))
      context.delete(missing)
      try context.save()
    }
  }

  @Test("an optional composite without a value asks nothing of its required elements")
  func optionalCompositeWithoutValue() throws {
    let stack = try StoreStack(model: Self.placeModel(locationOptional: true))
    try stack.context.performAndWait {
      // The nested composite's default (y = 7) is a value: clear it so the composite has none.
      let place = Self.insertPlace("Empty", nil, in: stack.context)
      #expect(place.value(forKey: "location") == nil)
      try stack.context.save()
    }
  }

  @Test("a child context's save reaches its parent; another context's save merges in; a stale edit conflicts")
  func childParentAndMerge() throws {
    let stack = try StoreStack(model: Self.placeModel())
    let parent = stack.context
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = parent
    let id = try child.performAndWait {
      let place = Self.insertPlace("P", ["latitude": 1.0, "longitude": 2.0], in: child)
      try child.obtainPermanentIDs(for: [place])
      try child.save()
      return place.objectID
    }
    try parent.performAndWait {
      let place = try parent.existingObject(with: id)
      #expect((place.value(forKey: "location") as? [String: Any])?["longitude"] as? Double == 2)
      try parent.save()
    }
    // Another context holds the object; a save elsewhere is merged into it.
    let observer = stack.freshContext()
    let permanent = try parent.performAndWait { try parent.existingObject(with: id).objectID }
    let held = try observer.performAndWait { () -> NSManagedObjectID in
      let place = try observer.existingObject(with: permanent)
      #expect(place.value(forKey: "location.latitude") as? Double == 1)
      return place.objectID
    }
    let writer = stack.freshContext()
    let recorder = NotificationRecorder(NSManagedObjectContext.didSaveObjectIDsNotification, from: writer)
    try writer.performAndWait {
      let place = try writer.existingObject(with: permanent)
      place.setValue(["latitude": 5.0, "longitude": 6.0, "label": "moved"], forKey: "location")
      try writer.save()
    }
    // Merged, the held object reads the saved elements.
    let saved = SavedObjectIDs(userInfo: try #require(recorder.userInfos.first))
    observer.performAndWait {
      observer.mergeChanges(fromContextDidSave: saved)
      let value = observer.object(with: held).value(forKey: "location") as? [String: Any]
      #expect(value?["latitude"] as? Double == 5)
      #expect(value?["label"] as? String == "moved")
    }
    // A stale edit of the composite conflicts under the error policy; the property-object-trump policy keeps it.
    try observer.performAndWait {
      let place = observer.object(with: held)
      try writer.performAndWait {
        try writer.existingObject(with: permanent).setValue(["latitude": 7.0, "longitude": 7.0], forKey: "location")
        try writer.save()
      }
      place.setValue(["latitude": 8.0, "longitude": 8.0], forKey: "location")
      #expect(throws: ObjectGraphError.self) { try observer.save() }
      observer.mergePolicy = NSMergePolicy.mergeByPropertyObjectTrump
      try observer.save()
    }
    let stored = try stack.stored("Place") { $0.value(forKey: "location.latitude") as? Double }
    #expect(stored == [8])
  }

  /// Writes a store without the composite, holding one place named "Old".
  static func writeOldPlace(at url: URL) throws {
    let old = try StoreStack(model: Self.placeModel(withLocation: false), at: url)
    try old.context.performAndWait {
      NSEntityDescription.insertNewObject(forEntityName: "Place", into: old.context).setValue("Old", forKey: "name")
      try old.context.save()
    }
    try old.close()
  }

  @Test("a lightweight migration adds a composite's columns, and removing it drops them")
  func migration() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Places.sqlite")
    try Self.writeOldPlace(at: url)
    let newModel = try Self.placeModel(withLocation: true)
    let oldHash = try Self.placeModel(withLocation: false).entitiesByName["Place"]?.versionHash
    #expect(newModel.entitiesByName["Place"]?.versionHash != oldHash)
    let migrated = try StoreStack(model: newModel, at: url)
    try migrated.context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Place")
      let place = try #require(try migrated.context.fetch(request).first)
      #expect(place.value(forKey: "name") as? String == "Old")
      // The nested element's default fills its new column, as a new attribute's default does.
      #expect(place.value(forKey: "location.position.y") as? Int64 == 7)
      place.setValue(["latitude": 3.0, "longitude": 4.0], forKey: "location")
      try migrated.context.save()
    }
    try migrated.close()
    let columns = try DatabaseQueue(path: url.path).read { db in
      try Row.fetchAll(db, sql: "PRAGMA table_info(ZPLACE)").map { $0["name"] as String }
    }
    #expect(columns.contains("ZLOCATION_LATITUDE"))
    let back = try StoreStack(model: Self.placeModel(withLocation: false), at: url)
    try back.close()
    let after = try DatabaseQueue(path: url.path).read { db in
      try Row.fetchAll(db, sql: "PRAGMA table_info(ZPLACE)").map { $0["name"] as String }
    }
    #expect(!after.contains { $0.hasPrefix("ZLOCATION") }, "\(after)")
  }

  @Test("a new required composite whose required elements have no default is refused by a migration over rows")
  func migrationRequiredComposite() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Places.sqlite")
    try Self.writeOldPlace(at: url)
    let error = try #require(throws: ObjectGraphError.self) {
      try StoreStack(model: Self.placeModel(locationOptional: false), at: url)
    }
    #expect(error.message.contains("Place.location.latitude is new and required"), "\(error.message)")
    // The store was left as it was: the old model still opens it.
    let again = try StoreStack(model: Self.placeModel(withLocation: false), at: url)
    #expect(try again.storedCount("Place") == 1)
  }

  @Test("an Xcode model with a composite is read, written back and read again the same", .needsFixtures)
  func xcodeModel() throws {
    let xml = """
      <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
      <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
          <entity name="Quake" representedClassName="Quake" syncable="YES" codeGenerationType="class">
              <attribute name="code" optional="YES" attributeType="String"/>
              <attribute name="magnitude" optional="YES" attributeType="Composite" composite="Magnitude"/>
          </entity>
          <composite name="Magnitude">
              <attribute name="richter" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
              <attribute name="source" attributeType="String"/>
              <attribute name="where" optional="YES" attributeType="Composite" composite="Where"/>
          </composite>
          <composite name="Where">
              <attribute name="depth" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
          </composite>
      </model>
      """
    let model = try NSManagedObjectModel.fromXcodeContents(Data(xml.utf8), origin: "a test model")
    let magnitude = try #require(model.entitiesByName["Quake"]?.attributesByName["magnitude"] as? NSCompositeAttributeDescription)
    #expect(magnitude.elements.map(\.name) == ["richter", "source", "where"])
    #expect(magnitude.elements[1].isOptional == false)
    #expect((magnitude.elements[2] as? NSCompositeAttributeDescription)?.elements.map(\.name) == ["depth"])
    #expect(magnitude.isSupportedAtRunTime)
    let written = XcodeModelWriter.contents(of: model)
    let again = try NSManagedObjectModel.fromXcodeContents(written, origin: "the written model")
    let reread = try #require(again.entitiesByName["Quake"]?.attributesByName["magnitude"] as? NSCompositeAttributeDescription)
    #expect(reread.elements.map(\.name) == ["richter", "source", "where"])
    #expect(reread.elements.first?.defaultValue as? Double == 0)
    #expect(again.entitiesByName["Quake"]?.versionHash == model.entitiesByName["Quake"]?.versionHash)
    // Usable: Apple's own example predicate.
    let stack = try StoreStack(model: again)
    try stack.context.performAndWait {
      for richter in [3.0, 4.6, 5.1] {
        let quake = NSEntityDescription.insertNewObject(forEntityName: "Quake", into: stack.context)
        quake.setValue(["richter": richter, "source": "USGS"], forKey: "magnitude")
      }
      try stack.context.save()
      let request = NSFetchRequest<NSManagedObject>(entityName: "Quake")
      request.predicate = NSPredicate(format: "magnitude.richter > 4.5")
      #expect(try stack.context.count(for: request) == 2)
    }
    // The fixture's composite with an empty nested composite loads, and is refused at run time.
    let mom = try NSManagedObjectModel(loadingContentsOf: Fixtures.folder().appendingPathComponent("phimage__MomXML__Model.xcdatamodeld"))
    let composite = try #require(mom.entitiesByName["Produit"]?.attributesByName["attribute1"] as? NSCompositeAttributeDescription)
    #expect(composite.elements.map(\.name) == ["one", "two", "three"])
    #expect(!composite.isSupportedAtRunTime)
  }

  @Test("batch insert takes a composite as a dictionary (or its elements' key paths); batch update sets elements")
  func batchRequests() throws {
    let stack = try StoreStack(model: Self.placeModel(locationOptional: false))
    try stack.context.performAndWait {
      let context = stack.context
      _ = try context.execute(
        NSBatchInsertRequest(
          entityName: "Place",
          objects: [
            ["name": "A", "location": ["latitude": 1.0, "longitude": 2.0, "position": ["x": Int64(3)]]],
            ["name": "B", "location.latitude": 4.0, "location.longitude": 5.0],
          ]))
      #expect(try Self.fetchNames(context, NSPredicate(format: "location.position.x == 3")) == ["A"])
      #expect(try Self.fetchNames(context, NSPredicate(format: "location.latitude == 4")) == ["B"])
      // A required element left out, an unknown element, a required composite missing: refused, nothing inserted.
      for row: [String: Any] in [
        ["name": "C", "location": ["latitude": 1.0]], ["name": "D", "location": ["latitude": 1.0, "longitude": 1.0, "height": 2]],
        ["name": "E"],
      ] {
        #expect(throws: ObjectGraphError.self) { try context.execute(NSBatchInsertRequest(entityName: "Place", objects: [row])) }
      }
      #expect(try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Place")) == 2)
      let update = NSBatchUpdateRequest(entityName: "Place")
      update.predicate = NSPredicate(format: "location.latitude < 2")
      update.propertiesToUpdate = ["location.longitude": 9.0]
      _ = try context.execute(update)
      #expect(try Self.fetchNames(context, NSPredicate(format: "location.longitude == 9")) == ["A"])
    }
  }

  @Test(
    "binary and in-memory stores keep composites; dictionary results name elements by key path",
    arguments: [
      NSPersistentStore.StoreType.binary, .inMemory, .sqlite,
    ])
  func otherStores(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: Self.placeModel(), type: type, folder: TemporaryFolder())
    try stack.context.performAndWait {
      _ = Self.insertPlace("A", ["latitude": 1.5, "longitude": 2.5, "label": "a"], in: stack.context)
      try stack.context.save()
    }
    let (_, reader) = try stack.reader()
    try reader.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Place")
      let place = try #require(try reader.fetch(request).first)
      #expect((place.value(forKey: "location") as? [String: Any])?["label"] as? String == "a")
      let rows = NSFetchRequest<NSDictionary>(entityName: "Place")
      rows.resultType = .dictionaryResultType
      rows.propertiesToFetch = ["name", "location.latitude"]
      let row = try #require(try reader.fetch(rows).first)
      #expect(row["location.latitude"] as? Double == 1.5)
    }
  }

  @Test("undo restores a composite's previous value")
  func undo() throws {
    let stack = try StoreStack(model: Self.placeModel())
    try stack.context.performAndWait {
      let context = stack.context
      context.undoManager = UndoManager()
      let place = Self.insertPlace("A", ["latitude": 1.0, "longitude": 2.0], in: context)
      try context.save()
      context.processPendingChanges()
      context.undoManager?.removeAllActions()
      place.setValue(["latitude": 3.0, "longitude": 4.0], forKey: "location")
      context.processPendingChanges()
      context.undo()
      #expect(place.value(forKey: "location.latitude") as? Double == 1)
      #expect(place.value(forKey: "location.longitude") as? Double == 2)
    }
  }

  @Test("a managed property typed [String: Any]? reads and sets the composite, as Apple's example declares it")
  func typedProperty() throws {
    let magnitude = NSCompositeAttributeDescription(
      name: "magnitude", elements: [NSAttributeDescription(name: "richter", type: .double)])
    let quake = NSEntityDescription(
      name: "CompositeQuake", managedObjectClass: CompositeQuake.self,
      properties: [NSAttributeDescription(name: "code", type: .string), magnitude])
    let stack = try StoreStack(model: NSManagedObjectModel(entities: [quake]))
    try stack.context.performAndWait {
      let object = CompositeQuake(context: stack.context)
      #expect(object.magnitude == nil)
      object.magnitude = ["richter": 4.6]
      #expect(object.magnitude?["richter"] as? Double == 4.6)
      try stack.context.save()
      let request = NSFetchRequest<CompositeQuake>(entityName: "CompositeQuake")
      request.predicate = NSPredicate(format: "magnitude.richter > 4.5")
      #expect(try stack.context.fetch(request).count == 1)
      object.magnitude = nil
      #expect(object.value(forKey: "magnitude.richter") == nil)
    }
  }

  @Test("a subentity shares its parent's element columns; a uniqueness constraint may name an element")
  func inheritanceAndConstraints() throws {
    let code = NSCompositeAttributeDescription(
      name: "code",
      elements: [NSAttributeDescription(name: "country", type: .string), NSAttributeDescription(name: "number", type: .integer32)])
    let item = NSEntityDescription(name: "Item", properties: [code])
    item.uniquenessConstraints = [["code.number"]]
    let special = NSEntityDescription(name: "Special", properties: [NSAttributeDescription(name: "extra", type: .string)])
    special.superentity = item
    let stack = try StoreStack(model: NSManagedObjectModel(entities: [item, special]))
    try stack.context.performAndWait {
      let context = stack.context
      NSEntityDescription.insertNewObject(forEntityName: "Item", into: context).setValue(["country": "FR", "number": 1], forKey: "code")
      NSEntityDescription.insertNewObject(forEntityName: "Special", into: context).setValue(["country": "DE", "number": 2], forKey: "code")
      try context.save()
      let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
      request.predicate = NSPredicate(format: "code.country == 'DE'")
      #expect(try context.fetch(request).map(\.entity.entityName) == ["Special"])
      // A second object with number 1 breaks the constraint (the error merge policy reports it).
      NSEntityDescription.insertNewObject(forEntityName: "Special", into: context).setValue(["country": "IT", "number": 1], forKey: "code")
      let error = try #require(throws: ObjectGraphError.self) { try context.save() }
      #expect(error.code == NSManagedObjectConstraintMergeError)
      context.rollback()
    }
    let columns = try DatabaseQueue(path: stack.storeURL.path).read { db in
      try Row.fetchAll(db, sql: "PRAGMA table_info(ZITEM)").map { $0["name"] as String }
    }
    #expect(columns.filter { $0.hasPrefix("ZCODE_") }.sorted() == ["ZCODE_COUNTRY", "ZCODE_NUMBER"])
  }

  @Test("several contexts on their own queues save composites at once")
  func concurrentSaves() async throws {
    let stack = try StoreStack(model: Self.placeModel())
    let coordinator = stack.coordinator
    try await withThrowingTaskGroup(of: Void.self) { group in
      for worker in 0..<4 {
        group.addTask {
          let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
          context.persistentStoreCoordinator = coordinator
          try await context.perform {
            for index in 0..<25 {
              _ = Self.insertPlace(
                "w\(worker)-\(index)", ["latitude": Double(worker), "longitude": Double(index)], in: context)
              try context.save()
            }
          }
        }
      }
      try await group.waitForAll()
    }
    let context = stack.freshContext()
    let (count, names) = try context.performAndWait { () throws -> (Int, [String]) in
      let count = try context.count(for: NSFetchRequest<NSManagedObject>(entityName: "Place"))
      let names = try Self.fetchNames(context, NSPredicate(format: "location.latitude == 2 AND location.longitude >= 20"))
      return (count, names)
    }
    #expect(count == 100)
    #expect(names.sorted() == (20..<25).map { "w2-\($0)" })
  }
}
