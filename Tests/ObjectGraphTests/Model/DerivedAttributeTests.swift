import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Derived attributes: computed when a context saves, from the object's key paths and its to-many
/// relationships, and kept current when a related object changes.
@Suite("Derived attributes", .temporaryFolders)
struct DerivedAttributeTests {
  static func model(extra: [NSAttributeDescription] = []) throws -> NSManagedObjectModel {
    func derived(_ name: String, _ type: NSAttributeType, _ expression: String) -> NSAttributeDescription {
      let attribute = NSDerivedAttributeDescription(name: name, type: .init(rawValue: type))
      attribute.derivationExpression = NSExpression(format: expression)
      return attribute
    }
    let folder = NSEntityDescription(
      name: "Folder",
      properties: ([
        NSAttributeDescription(name: "name", type: .string), derived("itemCount", .integer64AttributeType, "items.@count"),
        derived("totalSize", .integer64AttributeType, "items.@sum.size"), derived("lowerName", .stringAttributeType, "lowercase:(name)"),
        derived("canonicalName", .stringAttributeType, "canonical:(name)"), derived("touched", .dateAttributeType, "now()"),
      ] + extra).map { .attribute($0) } + [
        .relationship(
          NSRelationshipDescription(name: "items", destination: "Item", inverse: "folder", toMany: true, deleteRule: .cascadeDeleteRule))
      ])
    let item = NSEntityDescription(
      name: "Item",
      properties: [
        .attribute(NSAttributeDescription(name: "size", type: .integer64, defaultValue: Int64(0))),
        .attribute(derived("folderName", .stringAttributeType, "folder.name")),
        .relationship(NSRelationshipDescription(name: "folder", destination: "Folder", inverse: "items")),
      ])
    return try NSManagedObjectModel(entities: [folder, item])
  }

  @Test(
    "Computed at save: counts, sums, string functions, to-one key paths, now(); kept current as related objects change",
    arguments: bothStoreTypes)
  func computedAtSave(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: Self.model(), type: type)
    let context = stack.context
    let before = Date()
    let (folder, items) = try context.performAndWait {
      let folder = NSManagedObject(entity: stack.entity("Folder"), insertInto: context)
      folder.setValue("Éclairs Réunis", forKey: "name")
      let items = (1...3).map { size in
        let item = NSManagedObject(entity: stack.entity("Item"), insertInto: context)
        item.setValue(Int64(size * 10), forKey: "size")
        item.setValue(folder, forKey: "folder")
        return item
      }
      #expect(folder.value(forKey: "itemCount") == nil)  // not computed before the save
      try context.save()
      return (folder, items)
    }
    try context.performAndWait {
      #expect(folder.value(forKey: "itemCount") as? Int64 == 3)
      #expect(folder.value(forKey: "totalSize") as? Int64 == 60)
      #expect(folder.value(forKey: "lowerName") as? String == "éclairs réunis")
      #expect(folder.value(forKey: "canonicalName") as? String == "eclairs reunis")
      #expect((folder.value(forKey: "touched") as? Date).map { $0 >= before } == true)
      #expect(items[0].value(forKey: "folderName") as? String == "Éclairs Réunis")

      // A change to one item updates its folder's sum; a delete, its count.
      items[0].setValue(Int64(100), forKey: "size")
      try context.save()
      #expect(folder.value(forKey: "totalSize") as? Int64 == 150)
      context.delete(items[1])
      try context.save()
      #expect(folder.value(forKey: "itemCount") as? Int64 == 2 && folder.value(forKey: "totalSize") as? Int64 == 130)
    }
    // Another context that changes an item without holding its folder still updates the folder.
    let other = stack.freshContext()
    try other.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Item")
      request.predicate = NSPredicate(format: "size == 30")
      let item = try #require(try other.fetch(request).first)
      item.setValue(Int64(31), forKey: "size")
      try other.save()
    }
    context.performAndWait { context.refresh(folder, mergeChanges: false) }
    #expect(context.performAndWait { folder.value(forKey: "totalSize") as? Int64 } == 131)
    // Stored: another context reads them, and a fetch can filter on them.
    let (_, reader) = try stack.reader()
    try reader.performAndWait { () throws in
      let request = NSFetchRequest<NSManagedObject>(entityName: "Folder")
      request.predicate = NSPredicate(format: "itemCount == 2 AND lowerName BEGINSWITH 'éclairs'")
      #expect(try reader.fetch(request).count == 1)
    }
  }

  /// The folder's items' `folderName` values as a fresh context reads them from the store, and the sizes
  /// of the items a fetch on `folderName == name` finds.
  private func storedFolderNames(_ stack: StoreStack, matching name: String) throws -> (names: [String], matching: [Int64]) {
    let (_, reader) = try stack.reader()
    return try reader.performAndWait {
      let all = NSFetchRequest<NSManagedObject>(entityName: "Item")
      all.sortDescriptors = [NSSortDescriptor(key: "size", ascending: true)]
      let names = try reader.fetch(all).map { $0.value(forKey: "folderName") as? String ?? "nil" }
      all.predicate = NSPredicate(format: "folderName == %@", name)
      let matching = try reader.fetch(all).compactMap { $0.value(forKey: "size") as? Int64 }
      return (names, matching)
    }
  }

  @Test(
    "A to-one key path follows the related object: renaming the folder updates its items, from any context",
    arguments: bothStoreTypes)
  func toOneKeyPathFollowsTheDestination(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: Self.model(), type: type)
    let context = stack.context
    let folder = try context.performAndWait {
      let folder = NSManagedObject(entity: stack.entity("Folder"), insertInto: context)
      folder.setValue("Inbox", forKey: "name")
      for size in [1, 2] {
        let item = NSManagedObject(entity: stack.entity("Item"), insertInto: context)
        item.setValue(Int64(size), forKey: "size")
        item.setValue(folder, forKey: "folder")
      }
      try context.save()
      return folder
    }
    // The context that holds the items renames the folder.
    try context.performAndWait {
      folder.setValue("Archive", forKey: "name")
      try context.save()
    }
    #expect(try storedFolderNames(stack, matching: "Archive") == (["Archive", "Archive"], [1, 2]))
    // A context that holds only the folder (it fetched nothing else).
    let other = stack.freshContext()
    try other.performAndWait {
      let folder = try #require(try other.fetch(NSFetchRequest<NSManagedObject>(entityName: "Folder")).first)
      folder.setValue("Old", forKey: "name")
      try other.save()
    }
    #expect(try storedFolderNames(stack, matching: "Old") == (["Old", "Old"], [1, 2]))
    // A child context: its save reaches the parent, whose save writes the items.
    context.performAndWait { context.refreshAllObjects() }
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = context
    try child.performAndWait {
      let folder = try #require(try child.fetch(NSFetchRequest<NSManagedObject>(entityName: "Folder")).first)
      folder.setValue("Kept", forKey: "name")
      try child.save()
    }
    try context.performAndWait { try context.save() }
    #expect(try storedFolderNames(stack, matching: "Kept") == (["Kept", "Kept"], [1, 2]))
    // The folder's delete nullifies the items' relationship, and their value follows.
    try context.performAndWait {
      let items = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
      for item in items { item.setValue(nil, forKey: "folder") }
      try context.save()
    }
    #expect(try storedFolderNames(stack, matching: "Kept") == (["nil", "nil"], []))
  }

  @Test("NSDerivedAttributeDescription: no expression until one is set, the expression read back equals it, nil clears it")
  func derivedDescriptionAPI() throws {
    let attribute = NSDerivedAttributeDescription()
    #expect(attribute.derivationExpression == nil)
    #expect(attribute.attributeType == .undefinedAttributeType)
    attribute.derivationExpression = NSExpression(forFunction: "lowercase:", arguments: [NSExpression(forKeyPath: "name")])
    #expect(attribute.derivationExpression?.description == "lowercase:(name)")
    #expect(attribute.derivationFormat == "lowercase:(name)")
    attribute.derivationExpression = NSExpression(forKeyPath: "items.@count")
    #expect(attribute.derivationExpression == NSExpression(forKeyPath: "items.@count"))
    attribute.derivationExpression = nil
    #expect(attribute.derivationFormat == nil)
    #expect(attribute.isDerived, "still a derived attribute, with nothing to compute it from")
    #expect(attribute.unsupportedReason?.contains("derived attribute without an expression") == true)
  }

  @Test(
    "An expression ObjectGraph cannot compute fails the store's add naming it; a value the attribute cannot hold fails the save naming it"
  )
  func refusals() throws {
    let unknown = NSDerivedAttributeDescription(name: "weird", type: .string)
    unknown.derivationExpression = NSExpression(format: "reverse:(name)")
    let error = expectCode(.modelInvalid) { _ = try StoreStack(model: Self.model(extra: [unknown])) }
    #expect(
      error?.message.contains("Folder") == true && error?.message.contains("weird = reverse:(name)") == true, "\(error?.message ?? "")")
    let mistyped = NSDerivedAttributeDescription(name: "countText", type: .date)
    mistyped.derivationExpression = NSExpression(forKeyPath: "name")
    let second = try StoreStack(model: Self.model(extra: [mistyped]))
    second.context.performAndWait {
      NSManagedObject(entity: second.entity("Folder"), insertInto: second.context).setValue("x", forKey: "name")
      let error = expectCode(.invalidValue) { try second.context.save() }
      #expect(error?.message.contains("Folder.countText") == true)
    }
  }

  @Test("The fixture's derived attribute (posts.@count) is computed", .needsFixtures)
  func fixture() throws {
    let url = try Fixtures.folder().appendingPathComponent("hstdt__AppleSamples__CoreDataCloudKitDemo.xcdatamodeld")
    let model = try NSManagedObjectModel(loadingContentsOf: url)
    let tag = try #require(model.entitiesByName["Tag"])
    #expect(tag.attributesByName["postCount"]?.isSupportedAtRunTime == true)
    let stack = try StoreStack(model: model)
    try stack.context.performAndWait {
      let object = NSManagedObject(entity: tag, insertInto: stack.context)
      for slot in tag.layout.slots where !slot.isOptional && slot.attribute != nil { object.setValue("t", forKey: slot.name) }
      try stack.context.save()
      #expect(object.value(forKey: "postCount") as? Int64 == 0)
    }
  }
}
