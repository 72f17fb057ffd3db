import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// A mood of the ported app: it leaves its country when marked for delayed deletion.
final class LayerMood: NSManagedObject {
  @ObjectGraphManaged var markedForDeletionDate: Date?
  @ObjectGraphManaged var country: LayerCountry?
  @ObjectGraphManaged var remoteIdentifier: UUID?

  override func willSave() {
    super.willSave()
    if markedForDeletionDate != nil && country != nil { country = nil }
  }
}

/// A country of the ported app: it keeps its mood count in `willSave()` and marks itself when empty.
final class LayerCountry: NSManagedObject {
  @ObjectGraphManaged var numberOfMoods: Int64
  @ObjectGraphManaged var markedForDeletionDate: Date?
  @ObjectGraphManaged var moods: Set<LayerMood>
  var willSaveCalls = 0

  override func willSave() {
    super.willSave()
    willSaveCalls += 1
    let count = Int64(moods.count)
    if numberOfMoods != count { numberOfMoods = count }
    if count == 0 && markedForDeletionDate == nil { markedForDeletionDate = Date(timeIntervalSinceReferenceDate: 0) }
  }
}

/// An object whose `willSave()` always changes it: a hook that never settles.
final class RestlessObject: NSManagedObject {
  @ObjectGraphManaged var counter: Int64
  override func willSave() { counter += 1 }
}

/// An object that keeps a timestamp in `willSave()` through the primitive accessor, as Core Data's
/// documentation suggests to avoid being called again.
final class StampedObject: NSManagedObject {
  @ObjectGraphManaged var name: String?
  var willSaveCalls = 0
  override func willSave() {
    willSaveCalls += 1
    setPrimitiveValue(Date(timeIntervalSinceReferenceDate: Double(willSaveCalls)), forKey: "stampedAt")
  }
}

/// The app's transformer for UUIDs: it refuses anything else, as the app's did.
final class LayerUUIDTransformer: AttributeValueTransformer, @unchecked Sendable {
  override func transformedValue(_ value: Any) throws -> Data {
    guard let uuid = value as? UUID else { throw ObjectGraphError(.managedObjectValidation, "not a UUID: \(value)") }
    return Data(uuid.uuidString.utf8)
  }
  override func reverseTransformedValue(_ data: Data) throws -> Any {
    guard let uuid = UUID(uuidString: String(decoding: data, as: UTF8.self)) else {
      throw ObjectGraphError(.managedObjectValidation, "not a UUID")
    }
    return uuid
  }
}

/// A cache an app keeps in its context's user info: a class, not Sendable.
final class ObjectCache {
  var objects: [String: NSManagedObject] = [:]
}

/// What a real app's model layer does, ported as a new user would port it (issue 24).
@Suite("A real app's model layer", .temporaryFolders, .serialized)
struct ModelLayerTests {
  static func model() throws -> NSManagedObjectModel {
    AttributeValueTransformer.setValueTransformer(LayerUUIDTransformer(), forName: "LayerUUIDTransformer")
    let remoteIdentifier = NSAttributeDescription(name: "remoteIdentifier", type: .transformable)
    remoteIdentifier.valueTransformerName = "LayerUUIDTransformer"
    return try NSManagedObjectModel(entities: [
      NSEntityDescription(
        name: "Mood", managedObjectClass: LayerMood.self,
        properties: [
          .attribute(NSAttributeDescription(name: "markedForDeletionDate", type: .date)),
          .attribute(remoteIdentifier),
          .relationship(NSRelationshipDescription(name: "country", destination: "Country", inverse: "moods")),
        ]),
      NSEntityDescription(
        name: "Country", managedObjectClass: LayerCountry.self,
        properties: [
          .attribute(NSAttributeDescription(name: "numberOfMoods", type: .integer64, isOptional: false, defaultValue: Int64(0))),
          .attribute(NSAttributeDescription(name: "markedForDeletionDate", type: .date)),
          .relationship(NSRelationshipDescription(name: "moods", destination: "Mood", inverse: "country", toMany: true)),
        ]),
      NSEntityDescription(
        name: "Restless", managedObjectClass: RestlessObject.self,
        properties: [.attribute(NSAttributeDescription(name: "counter", type: .integer64, isOptional: false, defaultValue: Int64(0)))]),
      NSEntityDescription(
        name: "Stamped", managedObjectClass: StampedObject.self,
        properties: [
          .attribute(NSAttributeDescription(name: "name", type: .string)),
          .attribute(NSAttributeDescription(name: "stampedAt", type: .date)),
        ]),
    ])
  }

  // MARK: - willSave() to a fixed point

  @Test("A mood marked for deletion leaves its country in willSave(); the country's willSave() recounts and marks it, in the same save")
  func willSaveCascades() throws {
    let stack = try StoreStack(model: Self.model())
    try stack.context.performAndWait {
      let country = LayerCountry(context: stack.context)
      let mood = LayerMood(context: stack.context)
      mood.country = country
      try stack.context.save()
      #expect(country.numberOfMoods == 1)
      #expect(country.markedForDeletionDate == nil)

      let updated = Locked<Set<NSManagedObjectID>>([])
      let observer = NotificationCenter.default.addObserver(
        forName: NSManagedObjectContext.didSaveObjectsNotification, object: stack.context, queue: nil
      ) { note in
        let ids = note.userInfo?[NSManagedObjectContext.NotificationKey.updatedObjectIDs.rawValue] as? Set<NSManagedObjectID> ?? []
        updated.withLock { $0 = ids }
      }
      defer { NotificationCenter.default.removeObserver(observer) }
      country.willSaveCalls = 0
      mood.markedForDeletionDate = Date()
      try stack.context.save()
      #expect(mood.country == nil)
      #expect(country.numberOfMoods == 0)
      #expect(country.markedForDeletionDate != nil)
      #expect(!stack.context.hasChanges, "nothing is left unsaved")
      // Once for the mood's change to it, once more for its own changes (as Core Data calls it again after
      // changes made with accessors), which settle.
      #expect(country.willSaveCalls == 2)
      #expect(updated.withLock { $0 } == [mood.objectID, country.objectID], "the did-save notification carries both")
    }
    // What the store holds.
    let fresh = stack.freshContext()
    try fresh.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Country")
      let country = try #require(try fresh.fetch(request).first)
      #expect(country.value(forKey: "numberOfMoods") as? Int == 0)
      #expect(country.value(forKey: "markedForDeletionDate") != nil)
    }
  }

  @Test("A willSave() that changes its object every time stops the save with a clear error after a bound, and nothing is written")
  func willSaveThatNeverSettles() throws {
    let stack = try StoreStack(model: Self.model())
    stack.context.performAndWait {
      _ = RestlessObject(context: stack.context)
      #expect {
        try stack.context.save()
      } throws: { error in
        let error = try #require(error as? ObjectGraphError)
        return error.code == .coreData && error.message.contains("willSave()") && error.message.contains("Restless")
      }
    }
    let fresh = stack.freshContext()
    let count = try fresh.performAndWait { try fresh.count(for: NSFetchRequest<NSManagedObject>(entityName: "Restless")) }
    #expect(count == 0)
  }

  // MARK: - Transformable set to nil through @ObjectGraphManaged

  @Test("A transformable attribute set to nil through @ObjectGraphManaged saves as nil")
  func transformableSetToNil() throws {
    let stack = try StoreStack(model: Self.model())
    try stack.context.performAndWait {
      let mood = LayerMood(context: stack.context)
      mood.remoteIdentifier = UUID()
      try stack.context.save()
      mood.remoteIdentifier = nil
      try stack.context.save()
      #expect(mood.remoteIdentifier == nil)
      #expect(mood.value(forKey: "remoteIdentifier") == nil)
      let other = LayerMood(context: stack.context)
      let none: UUID? = nil
      other.setValue(none, forKey: "remoteIdentifier")
      try stack.context.save()
    }
  }

  @Test("unwrappedOptional flattens nested optionals")
  func unwrapping() {
    let nested: Int?? = .some(nil)
    #expect(unwrappedOptional(nested as Any) == nil)
    let value: Int?? = 3
    #expect(unwrappedOptional(value as Any) as? Int == 3)
    #expect(unwrappedOptional(nil) == nil)
    #expect(unwrappedOptional("text") as? String == "text")
  }

  // MARK: - Primitive accessors

  @Test("setPrimitiveValue in willSave() is saved without calling willSave() again, and changes nothing else")
  func primitiveAccessors() throws {
    let stack = try StoreStack(model: Self.model())
    try stack.context.performAndWait {
      let object = StampedObject(context: stack.context)
      object.name = "first"
      try stack.context.save()
      #expect(object.willSaveCalls == 1)
      #expect(object.primitiveValue(forKey: "stampedAt") as? Date == Date(timeIntervalSinceReferenceDate: 1))
      object.name = "second"
      try stack.context.save()
      #expect(object.willSaveCalls == 2)
      #expect(object.committedValues(forKeys: ["stampedAt"])["stampedAt"] as? Date == Date(timeIntervalSinceReferenceDate: 2))

      // Outside willSave(): the value changes, the object is not marked changed, and changedValues() shows it.
      object.setPrimitiveValue("third", forKey: "name")
      #expect(object.value(forKey: "name") as? String == "third")
      #expect(!object.hasChanges)
      #expect(!stack.context.hasChanges)
      #expect(object.changedValues()["name"] as? String == "third")
    }
    let fresh = stack.freshContext()
    try fresh.performAndWait {
      let object = try #require(try fresh.fetch(NSFetchRequest<NSManagedObject>(entityName: "Stamped")).first)
      #expect(object.value(forKey: "stampedAt") as? Date == Date(timeIntervalSinceReferenceDate: 2))
      #expect(object.value(forKey: "name") as? String == "second")
    }
  }

  @Test("primitiveValue(forKey:) gives numbers as value(forKey:) does, and setPrimitiveValue of a to-one leaves the inverse alone")
  func primitiveRelationship() throws {
    let stack = try StoreStack(model: Self.model())
    stack.context.performAndWait {
      let country = LayerCountry(context: stack.context)
      let mood = LayerMood(context: stack.context)
      mood.setPrimitiveValue(country, forKey: "country")
      #expect(mood.primitiveValue(forKey: "country") as? LayerCountry === country)
      #expect(country.moods.isEmpty)
      #expect(country.primitiveValue(forKey: "numberOfMoods") as? Int == 0)
    }
  }

  // MARK: - userInfo

  @Test("A context's userInfo keeps values that are not Sendable, as Core Data's dictionary does")
  func userInfoKeepsAnything() throws {
    let stack = try StoreStack(model: Self.model())
    stack.context.performAndWait {
      let cache = ObjectCache()
      cache.objects["first"] = LayerCountry(context: stack.context)
      stack.context.userInfo["objectCache"] = cache
      #expect((stack.context.userInfo["objectCache"] as? ObjectCache) === cache)
      stack.context.userInfo["objectCache"] = nil
      #expect(stack.context.userInfo.isEmpty)
    }
  }

  // MARK: - Store metadata

  @Test("setMetadata(_:for:) is written to the store at the next save, keeping the engine's keys")
  func storeMetadata() throws {
    let stack = try StoreStack(model: Self.model())
    let store = try #require(stack.coordinator.persistentStores.first)
    var metadata = stack.coordinator.metadata(for: store)
    let engineKeys = metadata
    metadata["syncToken"] = "token-1"
    stack.coordinator.setMetadata(metadata, for: store)
    #expect(stack.coordinator.metadata(for: store)["syncToken"] as? String == "token-1")
    #expect(store.metadata["syncToken"] as? String == "token-1")
    // Not on disk before a save.
    #expect(try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: stack.storeURL)["syncToken"] == nil)
    try stack.context.performAndWait {
      _ = LayerCountry(context: stack.context)
      try stack.context.save()
    }
    let onDisk = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: stack.storeURL)
    #expect(onDisk["syncToken"] as? String == "token-1")
    for key in engineKeys.keys { #expect(onDisk[key] != nil, "\(key) kept") }
    // A dictionary without the engine's keys keeps them; a user key left out is removed.
    stack.coordinator.setMetadata(["other": 2], for: store)
    #expect(stack.coordinator.metadata(for: store)[NSStoreUUIDKey] as? String == store.identifier)
    try stack.context.performAndWait {
      _ = LayerCountry(context: stack.context)
      try stack.context.save()
    }
    let (_, reopened) = try stack.reopened()
    _ = reopened
    let again = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: stack.storeURL)
    #expect(again["other"] as? Int == 2)
    #expect(again["syncToken"] == nil)
    #expect(again[NSStoreModelVersionHashesKey] != nil)
  }

  @Test("setMetadata(_:for:) refuses to change the engine's own keys and values a property list cannot hold, changing nothing")
  func storeMetadataRefusals() throws {
    let stack = try StoreStack(model: Self.model())
    let store = try #require(stack.coordinator.persistentStores.first)
    #expect {
      try stack.coordinator.setCheckedMetadata([NSStoreUUIDKey: "not-the-uuid"], for: store)
    } throws: { error in
      (error as? ObjectGraphError)?.code == .invalidValue && "\(error)".contains(NSStoreUUIDKey)
    }
    #expect {
      try stack.coordinator.setCheckedMetadata(["cache": ObjectCacheBox()], for: store)
    } throws: { error in
      (error as? ObjectGraphError)?.code == .invalidValue && "\(error)".contains("cache")
    }
    #expect(stack.coordinator.metadata(for: store)[NSStoreUUIDKey] as? String == store.identifier)
    // Values as Foundation's classes and nested collections are property-list values too.
    stack.coordinator.setMetadata(
      ["name": NSString(string: "notes"), "when": NSDate(timeIntervalSince1970: 0), "list": [1, "two"] as [Any]], for: store)
    #expect(store.metadata["name"] as? String == "notes")
    #expect((store.metadata["list"] as? [Any])?.count == 2)
    stack.coordinator.setMetadata(nil, for: store)
    #expect(store.metadata["name"] == nil && store.metadata[NSStoreUUIDKey] as? String == store.identifier)
  }

  @Test("setMetadata(_:for:) with a value a property list cannot hold stops the program naming the key, as Core Data raises")
  func storeMetadataMisuse() async throws {
    let folder = try TemporaryFolder()
    let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      [folder = folder as TemporaryFolder] in
      let stack = try StoreStack(model: Self.model(), folder: folder)
      let store = try #require(stack.coordinator.persistentStores.first)
      stack.coordinator.setMetadata(["cache": ObjectCacheBox()], for: store)
    }
    let said = String(decoding: stopped?.standardErrorContent ?? [], as: UTF8.self)
    #expect(said.contains("Metadata key 'cache'"), "it printed: \(said)")
  }

  // MARK: - Classes by the model's class names

  @Test("An entity finds its class by a module-qualified or a bare representedClassName without registration")
  func classByName() throws {
    let module = String(reflecting: LayerMood.self).split(separator: ".").first.map(String.init) ?? ""
    let entity = NSEntityDescription(
      name: "NamedMood", properties: [.attribute(NSAttributeDescription(name: "markedForDeletionDate", type: .date))])
    entity.representedClassName = "\(module).LayerMood"
    let bare = NSEntityDescription(name: "BareCountry", properties: [])
    bare.representedClassName = "LayerCountry"
    let model = try NSManagedObjectModel(entities: [entity, bare])
    #expect(model.entitiesByName["NamedMood"]?.managedObjectClass == LayerMood.self)
    // A bare class name is found among the loaded modules' classes, as the Objective-C runtime finds it.
    #expect(model.entitiesByName["BareCountry"]?.managedObjectClass == LayerCountry.self)
  }
}

/// A value no property list can hold.
struct ObjectCacheBox: Sendable {}
