import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// Inferred migrations that move rows between tables: an entity that joins a hierarchy, leaves one, moves
/// under another parent, or loses its parent. Each store is written by the old model with relationships and
/// to-many joins pointing at the rows that move, migrated by the new one, then read back through a fresh
/// coordinator.
@Suite("Migration: rows that move between tables", .temporaryFolders)
struct HierarchyMigrationTests {
  typealias M = MigrationTests

  // MARK: - The models

  /// Dog's own properties: breed, its owner (↔ Person.dogs), its fans (↔ Person.favorite), its tags (↔ Tag.dogs);
  /// with `name` when Dog is a root.
  static func dogProperties(withName: Bool) -> [NSPropertyDescription] {
    (withName ? [M.attribute("name")] : []) + [
      M.attribute("breed"), M.relationship("owner", to: "Person", inverse: "dogs"),
      M.relationship("fans", to: "Person", inverse: "favorite", toMany: true),
      M.relationship("tags", to: "Tag", inverse: "dogs", toMany: true),
    ]
  }

  /// Person (name, dogs, favorite) and Tag (label, dogs): the entities whose links point at the dogs.
  static func others() -> [NSEntityDescription] {
    [
      M.entity(
        "Person",
        [
          M.attribute("name"), M.relationship("dogs", to: "Dog", inverse: "owner", toMany: true),
          M.relationship("favorite", to: "Dog", inverse: "fans"),
        ]),
      M.entity("Tag", [M.attribute("label"), M.relationship("dogs", to: "Dog", inverse: "tags", toMany: true)]),
    ]
  }

  /// `parent` with `children` below it.
  static func hierarchy(_ parent: NSEntityDescription, _ children: [NSEntityDescription]) -> [NSEntityDescription] {
    parent.subentities = children
    return [parent] + children
  }

  static func cat(withName: Bool) -> NSEntityDescription {
    M.entity("Cat", (withName ? [M.attribute("name")] : []) + [M.attribute("lives", .integer16AttributeType)])
  }

  /// Animal as a root with a name and nothing below it.
  static func animal() -> NSEntityDescription { M.entity("Animal", [M.attribute("name")]) }

  // MARK: - The store

  /// What each dog is: name, breed, owner's name, favorite of, tags, in name order.
  struct DogRecord: Equatable, Sendable {
    let name: String
    let breed: String?
    let owner: String?
    let fans: [String]
    let tags: [String]
  }

  static let dogs = [
    DogRecord(name: "Fido", breed: "Pug", owner: "Ann", fans: [], tags: ["good"]),
    DogRecord(name: "Max", breed: "Lab", owner: "Bob", fans: ["Bob"], tags: []),
    DogRecord(name: "Rex", breed: "Boxer", owner: "Ann", fans: ["Ann"], tags: ["big", "good"]),
    DogRecord(name: "Spot", breed: nil, owner: nil, fans: [], tags: ["big"]),
  ]

  /// Writes the store with `model`: the objects of `extra` (entity name → names) first, so that their keys come
  /// before the dogs', then two people, two tags and ``dogs``.
  static func write(
    _ model: NSManagedObjectModel, at url: URL, extra: [(String, [String])], history: Bool = false
  ) throws {
    var options = StoreStack.migratingOptions
    if history { options[NSPersistentHistoryTrackingKey] = true }
    let stack = try StoreStack(model: model, at: url, options: options)
    try stack.context.performAndWait {
      let context = stack.context
      func make(_ entity: String) throws -> NSManagedObject {
        guard let description = model.entitiesByName[entity] else { throw ObjectGraphError(.unknownKey, "no \(entity)") }
        return NSManagedObject(entity: description, insertInto: context)
      }
      for (entity, names) in extra {
        for name in names { try make(entity).setValue(name, forKey: "name") }
      }
      var people: [String: NSManagedObject] = [:]
      for name in ["Ann", "Bob"] {
        people[name] = try make("Person")
        people[name]?.setValue(name, forKey: "name")
      }
      var tags: [String: NSManagedObject] = [:]
      for label in ["big", "good"] {
        tags[label] = try make("Tag")
        tags[label]?.setValue(label, forKey: "label")
      }
      for record in dogs {
        let dog = try make("Dog")
        dog.setValue(record.name, forKey: "name")
        dog.setValue(record.breed, forKey: "breed")
        dog.setValue(record.owner.flatMap { people[$0] }, forKey: "owner")
        for fan in record.fans { people[fan]?.setValue(dog, forKey: "favorite") }
        dog.setValue(Set(record.tags.compactMap { tags[$0] }), forKey: "tags")
      }
      try context.save()
    }
    try stack.close()
  }

  /// Migrates the store at `url` from `version1` to `version2`, then reads it back through a fresh coordinator
  /// and returns that stack.
  static func migrate(_ url: URL, from version1: NSManagedObjectModel, to version2: NSManagedObjectModel, history: Bool = false)
    throws -> StoreStack
  {
    var options = M.migrationOptions(sourceModels: [version1])
    if history { options[NSPersistentHistoryTrackingKey] = true }
    try StoreStack(model: version2, at: url, options: options).close()
    var fresh = StoreStack.migratingOptions
    if history { fresh[NSPersistentHistoryTrackingKey] = true }
    return try StoreStack(model: version2, at: url, options: fresh)
  }

  /// The dogs as `stack` reads them, and each side's inverse checked against them.
  static func readDogs(_ stack: StoreStack) throws -> [DogRecord] {
    let context = stack.context
    return try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Dog")
      request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
      let dogs = try context.fetch(request)
      let people = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
      let tags = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag"))
      #expect(people.count == 2)
      #expect(tags.count == 2)
      // The other side of each relationship names the same dogs.
      for person in people {
        let owned = ((person.value(forKey: "dogs") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }
        let name = person.value(forKey: "name") as? String
        #expect(owned.sorted() == Self.dogs.filter { $0.owner == name }.map(\.name))
      }
      for tag in tags {
        let tagged = ((tag.value(forKey: "dogs") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }
        let label = tag.value(forKey: "label") as? String
        #expect(tagged.sorted() == Self.dogs.filter { $0.tags.contains(label ?? "") }.map(\.name))
      }
      return dogs.map { dog in
        DogRecord(
          name: dog.value(forKey: "name") as? String ?? "?", breed: dog.value(forKey: "breed") as? String,
          owner: (dog.value(forKey: "owner") as? NSManagedObject)?.value(forKey: "name") as? String,
          fans: ((dog.value(forKey: "fans") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted(),
          tags: ((dog.value(forKey: "tags") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "label") as? String }.sorted())
      }
    }
  }

  /// The names of the objects of `entity` (its subentities' included), sorted.
  static func names(_ entity: String, in stack: StoreStack) throws -> [String] {
    try M.fetch(entity, in: stack.context).compactMap { object in stack.context.performAndWait { object.value(forKey: "name") as? String } }
      .sorted()
  }

  static func number(of entity: String, _ url: URL) throws -> Int64 {
    try rawRows(url, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = '\(entity)'").first?["Z_ENT"] ?? -1
  }

  /// Saves a new object of `entity` and returns its primary key.
  static func insertKey(_ entity: String, in stack: StoreStack) throws -> Int64? {
    try stack.context.performAndWait {
      let object = NSManagedObject(entity: stack.entity(entity), insertInto: stack.context)
      object.setValue("New", forKey: "name")
      try stack.context.save()
      return object.objectID.primaryKey
    }
  }

  // MARK: - Each kind of move

  @Test("an entity joins a hierarchy: its rows move into the root's table with new keys, and every link follows")
  func joinsAHierarchy() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let version1 = try NSManagedObjectModel(entities: [Self.animal(), M.entity("Dog", Self.dogProperties(withName: true))] + Self.others())
    try Self.write(version1, at: url, extra: [("Animal", ["Ant", "Bee", "Cow"])], history: true)
    #expect(try rawRows(url, "SELECT MAX(Z_PK) AS m FROM ZDOG")[0]["m"] as Int64 == 4)
    let version2 = try NSManagedObjectModel(
      entities: Self.hierarchy(Self.animal(), [M.entity("Dog", Self.dogProperties(withName: false))]) + Self.others())
    let stack = try Self.migrate(url, from: version1, to: version2, history: true)
    let read = try Self.readDogs(stack)
    #expect(read == Self.dogs)
    let animalNames = try Self.names("Animal", in: stack)
    #expect(animalNames == ["Ant", "Bee", "Cow", "Fido", "Max", "Rex", "Spot"])
    // One table for the hierarchy; the dogs' keys follow the animals', in their old order.
    #expect(try !M.tables(url).contains("ZDOG"))
    let dog = try Self.number(of: "Dog", url)
    let keys = try rawRows(url, "SELECT Z_PK FROM ZANIMAL WHERE Z_ENT = \(dog) ORDER BY Z_PK").map { $0["Z_PK"] as Int64 }
    #expect(keys == [4, 5, 6, 7])
    #expect(
      try rawRows(url, "SELECT ZNAME FROM ZANIMAL WHERE Z_ENT = \(dog) ORDER BY Z_PK").map { $0["ZNAME"] as String }
        == Self.dogs.map(\.name))
    // The root's Z_MAX covers the moved keys: the next object gets 8.
    #expect(try Self.insertKey("Animal", in: stack) == 8)
    // The history's changes of the dogs name their new entity number and keys.
    let changes = try rawRows(url, "SELECT ZENTITYPK FROM ACHANGE WHERE ZENTITY = \(dog) ORDER BY ZENTITYPK").map {
      $0["ZENTITYPK"] as Int64
    }
    #expect(changes == [4, 5, 6, 7])
    // The same layout as a store made fresh by version 2, but for the history's tables.
    let history = ["ACHANGE", "ATRANSACTION", "index ACHANGE", "sqlite_sequence"]
    let layout = try M.layout(url).filter { line in !history.contains { line.hasPrefix($0) } }
    let fresh = try M.freshLayout(version2)
    #expect(Set(layout).symmetricDifference(fresh).sorted() == [])
  }

  @Test("an entity leaves a hierarchy: its rows move to a table of their own with their keys")
  func leavesAHierarchy() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let version1 = try NSManagedObjectModel(
      entities: Self.hierarchy(Self.animal(), [M.entity("Dog", Self.dogProperties(withName: false)), Self.cat(withName: false)])
        + Self.others())
    try Self.write(version1, at: url, extra: [("Animal", ["Ant"]), ("Cat", ["Kit", "Tom"])])
    let oldKeys = try rawRows(url, "SELECT Z_PK FROM ZANIMAL WHERE ZBREED IS NOT NULL OR ZNAME = 'Spot' ORDER BY Z_PK").map {
      $0["Z_PK"] as Int64
    }
    let version2 = try NSManagedObjectModel(
      entities: Self.hierarchy(Self.animal(), [Self.cat(withName: false)])
        + [
          M.entity(
            "Dog", Self.dogProperties(withName: true) + [M.attribute("legs", .integer16AttributeType, optional: false, default: Int16(4))])
        ]
        + Self.others())
    let stack = try Self.migrate(url, from: version1, to: version2)
    let read = try Self.readDogs(stack)
    #expect(read == Self.dogs)
    let animalNames = try Self.names("Animal", in: stack)
    #expect(animalNames == ["Ant", "Kit", "Tom"])
    let catNames = try Self.names("Cat", in: stack)
    #expect(catNames == ["Kit", "Tom"])
    #expect(try rawRows(url, "SELECT Z_PK FROM ZDOG ORDER BY Z_PK").map { $0["Z_PK"] as Int64 } == oldKeys)
    #expect(try rawRows(url, "SELECT COUNT(*) AS c FROM ZANIMAL")[0]["c"] as Int == 3)
    // Dog's Z_MAX covers the keys it kept; Animal's still covers what the old table handed out.
    // A new attribute with a default gets it in every moved row.
    let legs = try M.fetch("Dog", in: stack.context).map { dog in stack.context.performAndWait { dog.value(forKey: "legs") as? Int16 } }
    #expect(legs == [4, 4, 4, 4])
    #expect(try Self.insertKey("Dog", in: stack) == 8)
    #expect(try Self.insertKey("Cat", in: stack) == 8)
    let layout = try M.layout(url)
    let fresh = try M.freshLayout(version2)
    #expect(Set(layout).symmetricDifference(fresh).sorted() == [])
  }

  @Test("an entity moves under another parent: its rows move into a table with rows of its own, with new keys")
  func movesUnderANewParent() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let version1 = try NSManagedObjectModel(
      entities: Self.hierarchy(Self.animal(), [M.entity("Dog", Self.dogProperties(withName: false))])
        + [M.entity("Pet", [M.attribute("name")])] + Self.others())
    try Self.write(version1, at: url, extra: [("Animal", ["Ant"]), ("Pet", ["Goldie", "Nemo"])])
    let version2 = try NSManagedObjectModel(
      entities: [Self.animal()]
        + Self.hierarchy(M.entity("Pet", [M.attribute("name")]), [M.entity("Dog", Self.dogProperties(withName: false))])
        + Self.others())
    let stack = try Self.migrate(url, from: version1, to: version2)
    let read = try Self.readDogs(stack)
    #expect(read == Self.dogs)
    let animalNames = try Self.names("Animal", in: stack)
    #expect(animalNames == ["Ant"])
    let petNames = try Self.names("Pet", in: stack)
    #expect(petNames == ["Fido", "Goldie", "Max", "Nemo", "Rex", "Spot"])
    let dog = try Self.number(of: "Dog", url)
    #expect(try rawRows(url, "SELECT Z_PK FROM ZPET WHERE Z_ENT = \(dog) ORDER BY Z_PK").map { $0["Z_PK"] as Int64 } == [3, 4, 5, 6])
    #expect(try Self.insertKey("Pet", in: stack) == 7)
    let layout = try M.layout(url)
    let fresh = try M.freshLayout(version2)
    #expect(Set(layout).symmetricDifference(fresh).sorted() == [])
  }

  @Test("a parent entity is removed: one child takes its table, the other moves to a table of its own")
  func parentRemoved() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let version1 = try NSManagedObjectModel(
      entities: Self.hierarchy(Self.animal(), [M.entity("Dog", Self.dogProperties(withName: false)), Self.cat(withName: false)])
        + Self.others())
    try Self.write(version1, at: url, extra: [("Cat", ["Kit", "Tom"])])
    let version2 = try NSManagedObjectModel(
      entities: [M.entity("Dog", Self.dogProperties(withName: true)), Self.cat(withName: true)] + Self.others())
    let stack = try Self.migrate(url, from: version1, to: version2)
    let read = try Self.readDogs(stack)
    #expect(read == Self.dogs)
    let catNames = try Self.names("Cat", in: stack)
    #expect(catNames == ["Kit", "Tom"])
    #expect(try !M.tables(url).contains("ZANIMAL"))
    let layout = try M.layout(url)
    let fresh = try M.freshLayout(version2)
    #expect(Set(layout).symmetricDifference(fresh).sorted() == [])
    #expect(try Self.insertKey("Dog", in: stack) == 7)
  }

  @Test("a parent entity is added over a root with rows of another hierarchy: both tables become one")
  func parentAddedOverTwoRoots() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let version1 = try NSManagedObjectModel(
      entities: [Self.cat(withName: true), M.entity("Dog", Self.dogProperties(withName: true))] + Self.others())
    try Self.write(version1, at: url, extra: [("Cat", ["Kit", "Tom"])])
    let version2 = try NSManagedObjectModel(
      entities: Self.hierarchy(Self.animal(), [M.entity("Dog", Self.dogProperties(withName: false)), Self.cat(withName: false)])
        + Self.others())
    let stack = try Self.migrate(url, from: version1, to: version2)
    let read = try Self.readDogs(stack)
    #expect(read == Self.dogs)
    let animalNames = try Self.names("Animal", in: stack)
    #expect(animalNames == ["Fido", "Kit", "Max", "Rex", "Spot", "Tom"])
    #expect(try Set(rawRows(url, "SELECT Z_PK FROM ZANIMAL").map { $0["Z_PK"] as Int64 }).count == 6)
    let layout = try M.layout(url)
    let fresh = try M.freshLayout(version2)
    #expect(Set(layout).symmetricDifference(fresh).sorted() == [])
  }

  @Test("a child's own to-many becomes its new parent's: the pairs of its old join table join the parent's")
  func ownToManyBecomesInherited() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    func tag(_ relationships: [NSPropertyDescription]) -> NSEntityDescription { M.entity("Tag", [M.attribute("label")] + relationships) }
    let animalTags = M.relationship("tags", to: "Tag", inverse: "animals", toMany: true)
    let version1 = try NSManagedObjectModel(entities: [
      M.entity("Animal", [M.attribute("name"), animalTags]),
      M.entity("Dog", [M.attribute("name"), M.relationship("tags", to: "Tag", inverse: "dogs", toMany: true)]),
      tag([
        M.relationship("animals", to: "Animal", inverse: "tags", toMany: true),
        M.relationship("dogs", to: "Dog", inverse: "tags", toMany: true),
      ]),
    ])
    let stack1 = try StoreStack(model: version1, at: url, options: StoreStack.migratingOptions)
    try stack1.context.performAndWait {
      let context = stack1.context
      let big = NSManagedObject(entity: stack1.entity("Tag"), insertInto: context)
      big.setValue("big", forKey: "label")
      let small = NSManagedObject(entity: stack1.entity("Tag"), insertInto: context)
      small.setValue("small", forKey: "label")
      for (entity, name, tags) in [
        ("Animal", "Ant", [small]), ("Animal", "Cow", [big]), ("Dog", "Rex", [big]), ("Dog", "Pip", [small, big]),
      ] {
        let object = NSManagedObject(entity: stack1.entity(entity), insertInto: context)
        object.setValue(name, forKey: "name")
        object.setValue(Set(tags), forKey: "tags")
      }
      try context.save()
    }
    try stack1.close()
    let version2 = try NSManagedObjectModel(
      entities: Self.hierarchy(
        M.entity("Animal", [M.attribute("name"), M.relationship("tags", to: "Tag", inverse: "animals", toMany: true)]),
        [M.entity("Dog", [])]) + [tag([M.relationship("animals", to: "Animal", inverse: "tags", toMany: true)])])
    let stack = try Self.migrate(url, from: version1, to: version2)
    let tagged = try stack.context.performAndWait {
      try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag")).map { tag in
        let names = ((tag.value(forKey: "animals") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }
        return "\(tag.value(forKey: "label") as? String ?? "?"): \(names.sorted().joined(separator: ", "))"
      }.sorted()
    }
    #expect(tagged == ["big: Cow, Pip, Rex", "small: Ant, Pip"])
    let dogs = try M.fetch("Dog", in: stack.context, sortedBy: "name")
    let dogTags = stack.context.performAndWait {
      dogs.map {
        ((($0.value(forKey: "tags") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "label") as? String }).sorted()
      }
    }
    #expect(dogTags == [["big", "small"], ["big"]])
  }

  @Test(
    "Core Data's own store (CoreDataPlus SampleModel_V2.sqlite): Car and Person merged under a new parent, owners intact",
    .needsFixtures)
  func appleStoreRootsMergedUnderANewParent() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("V2.sqlite")
    let momd = try Fixtures.sampleModelFolder().appendingPathComponent("SampleModel.momd")
    try FileManager.default.copyItem(at: try Fixtures.sampleModelFolder().appendingPathComponent("SampleModel_V2.sqlite"), to: url)
    if AttributeValueTransformer.valueTransformer(forName: "ColorTransformer") == nil {
      AttributeValueTransformer.setValueTransformer(UTF8Transformer(), forName: "ColorTransformer")
    }
    func version2() throws -> NSManagedObjectModel {
      try #require(try NSManagedObjectModel.versions(in: momd).first { $0.name == "SampleModel2" }?.model)
    }
    /// Each car's number plate with its owner's name, and each person's name, as `model` reads the store.
    func owners(_ model: NSManagedObjectModel, options: [AnyHashable: Any]) throws -> (cars: [String], people: [String]) {
      let stack = try StoreStack(model: model, at: url, options: options)
      defer { try? stack.close() }
      return try stack.context.performAndWait {
        let cars = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Car")).map { car in
          let owner = car.value(forKey: "owner") as? NSManagedObject
          let name = [owner?.value(forKey: "firstName") as? String, owner?.value(forKey: "lastName") as? String].compactMap { $0 }
          return "\(car.entity.entityName) \(car.value(forKey: "numberPlate") as? String ?? "?"): \(name.joined(separator: " "))"
        }
        let people = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).map { person in
          "\(person.value(forKey: "firstName") as? String ?? "") \(person.value(forKey: "lastName") as? String ?? "")"
        }
        return (cars.sorted(), people.sorted())
      }
    }
    let before = try owners(try version2(), options: [NSReadOnlyPersistentStoreOption: true])
    #expect(before.cars.count == 125)
    #expect(before.people.count == 20)
    #expect(before.cars.contains { !$0.hasSuffix(": ") })
    // Version 2 with an abstract Thing over both roots: Car's hierarchy and Person share one table.
    let merged = try version2()
    let thing = NSEntityDescription(name: "Thing", properties: [])
    thing.isAbstract = true
    let roots = merged.entities.filter { $0.superentity == nil }
    thing.subentities = roots
    let version3 = try NSManagedObjectModel(entities: [thing] + merged.entities)
    let after = try owners(version3, options: M.migrationOptions(sourceModels: [try version2()]))
    #expect(after.cars == before.cars)
    #expect(after.people == before.people)
    #expect(try M.tables(url).contains("ZTHING"))
    #expect(try !M.tables(url).contains("ZCAR") && !M.tables(url).contains("ZPERSON"))
    #expect(try Set(rawRows(url, "SELECT Z_PK FROM ZTHING").map { $0["Z_PK"] as Int64 }).count == 145)
  }

  @Test("an entity added before the others in name order renumbers them; the history's changes follow their entities")
  func historyFollowsRenumberedEntities() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let version1 = try NSManagedObjectModel(entities: [M.entity("Dog", Self.dogProperties(withName: true))] + Self.others())
    try Self.write(version1, at: url, extra: [], history: true)
    let oldDog = try Self.number(of: "Dog", url)
    let dogChanges = try rawRows(url, "SELECT COUNT(*) AS c FROM ACHANGE WHERE ZENTITY = \(oldDog)")[0]["c"] as Int
    #expect(dogChanges == 4)
    // "Aardvark" sorts first: every entity's number moves up by one.
    let version2 = try NSManagedObjectModel(
      entities: [M.entity("Aardvark", [M.attribute("name")]), M.entity("Dog", Self.dogProperties(withName: true))] + Self.others())
    let stack = try Self.migrate(url, from: version1, to: version2, history: true)
    let newDog = try Self.number(of: "Dog", url)
    #expect(newDog == oldDog + 1)
    #expect(try rawRows(url, "SELECT COUNT(*) AS c FROM ACHANGE WHERE ZENTITY = \(newDog)")[0]["c"] as Int == 4)
    // Through the history API: the dogs' insertions are changes of Dog.
    let names = try stack.context.performAndWait {
      let result = try stack.context.execute(NSPersistentHistoryChangeRequest.fetchHistory(after: nil as NSPersistentHistoryToken?))
      let transactions = (result as? NSPersistentHistoryResult)?.result as? [NSPersistentHistoryTransaction] ?? []
      return transactions.flatMap { $0.changes ?? [] }.map { $0.changedObjectID.entity.entityName }
    }
    #expect(names.filter { $0 == "Dog" }.count == 4)
    #expect(names.filter { $0 == "Person" }.count >= 2)
  }

  @Test("an entity with a subentity moves under another parent: both move, and links to either follow")
  func subtreeMovesUnderANewParent() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    func puppy() -> NSEntityDescription { M.entity("Puppy", [M.attribute("age", .integer16AttributeType)]) }
    func dog() -> NSEntityDescription {
      let dog = M.entity("Dog", Self.dogProperties(withName: false))
      dog.subentities = [puppy()]
      return dog
    }
    let oldDog = dog()
    let version1 = try NSManagedObjectModel(
      entities: Self.hierarchy(Self.animal(), [oldDog]) + oldDog.subentities + [M.entity("Pet", [M.attribute("name")])] + Self.others())
    let stack1 = try StoreStack(model: version1, at: url, options: StoreStack.migratingOptions)
    try stack1.context.performAndWait {
      let context = stack1.context
      for (entity, name) in [("Animal", "Ant"), ("Pet", "Goldie"), ("Dog", "Rex"), ("Puppy", "Bit"), ("Dog", "Max")] {
        NSManagedObject(entity: stack1.entity(entity), insertInto: context).setValue(name, forKey: "name")
      }
      let objects =
        try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Animal"))
        + context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Pet"))
      func named(_ name: String) -> NSManagedObject? { objects.first { $0.value(forKey: "name") as? String == name } }
      named("Bit")?.setValue(Int16(1), forKey: "age")
      let bob = NSManagedObject(entity: stack1.entity("Person"), insertInto: context)
      bob.setValue("Bob", forKey: "name")
      let big = NSManagedObject(entity: stack1.entity("Tag"), insertInto: context)
      big.setValue("big", forKey: "label")
      named("Bit")?.setValue(bob, forKey: "owner")
      named("Rex")?.setValue(bob, forKey: "owner")
      bob.setValue(named("Bit"), forKey: "favorite")
      named("Bit")?.setValue(Set([big]), forKey: "tags")
      named("Max")?.setValue(Set([big]), forKey: "tags")
      try context.save()
    }
    try stack1.close()
    let newDog = dog()
    let version2 = try NSManagedObjectModel(
      entities: [Self.animal()] + Self.hierarchy(M.entity("Pet", [M.attribute("name")]), [newDog]) + newDog.subentities + Self.others())
    let stack = try Self.migrate(url, from: version1, to: version2)
    let petNames = try Self.names("Pet", in: stack)
    #expect(petNames == ["Bit", "Goldie", "Max", "Rex"])
    let check = try stack.context.performAndWait { () -> [String] in
      let bob = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).first
      let big = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Tag")).first
      let favorite = bob?.value(forKey: "favorite") as? NSManagedObject
      return [
        ((bob?.value(forKey: "dogs") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
          .joined(separator: ","),
        "\(favorite?.entity.entityName ?? "?") \(favorite?.value(forKey: "name") as? String ?? "?") \(favorite?.value(forKey: "age") as? Int16 ?? -1)",
        ((big?.value(forKey: "dogs") as? Set<NSManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted()
          .joined(separator: ","),
      ]
    }
    #expect(check == ["Bit,Rex", "Puppy Bit 1", "Bit,Max"])
    let layout = try M.layout(url)
    let fresh = try M.freshLayout(version2)
    #expect(Set(layout).symmetricDifference(fresh).sorted() == [])
  }

  // MARK: - Failures leave the file as it was

  @Test("moved rows that break a uniqueness constraint fail the migration (134110) and leave the file byte for byte")
  func constraintBrokenByMovedRows() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let version1 = try NSManagedObjectModel(entities: [Self.animal(), M.entity("Dog", Self.dogProperties(withName: true))] + Self.others())
    try Self.write(version1, at: url, extra: [("Animal", ["Ant", "Rex"])])
    let before = try M.fileBytes(url)
    let animal = Self.animal()
    animal.uniquenessConstraints = [["name"]]
    let version2 = try NSManagedObjectModel(
      entities: Self.hierarchy(animal, [M.entity("Dog", Self.dogProperties(withName: false))]) + Self.others())
    let error = expectCode(.migration) {
      _ = try StoreStack(model: version2, at: url, options: M.migrationOptions(sourceModels: [version1]))
    }
    #expect(error?.message.contains("UNIQUE") == true)
    #expect(try M.fileBytes(url) == before)
    // The old model still opens it, with every row.
    let stack = try StoreStack(model: version1, at: url, options: StoreStack.migratingOptions)
    let read = try Self.readDogs(stack)
    #expect(read == Self.dogs)
  }

  // MARK: - Moved rows whose relationship also changes between a to-one and a to-many

  /// Dog (joining Animal) with `owner`, `fans` and `tags` declared as given (to-many or not), Person and Tag
  /// with `dogs` and `favorite` as given.
  static func reshapedModel(ownerToMany: Bool, fansToMany: Bool, favoriteToMany: Bool, tagsToMany: Bool, dogsOrdered: Bool = false)
    throws -> NSManagedObjectModel
  {
    let dogs = NSRelationshipDescription(name: "dogs", destination: "Dog", inverse: "owner", toMany: true)
    dogs.isOrdered = dogsOrdered
    let dog = M.entity(
      "Dog",
      [
        M.attribute("breed"), M.relationship("owner", to: "Person", inverse: "dogs", toMany: ownerToMany),
        M.relationship("fans", to: "Person", inverse: "favorite", toMany: fansToMany),
        M.relationship("tags", to: "Tag", inverse: "dogs", toMany: tagsToMany),
      ])
    let person = M.entity(
      "Person",
      [
        M.attribute("name"), .relationship(dogs), M.relationship("favorite", to: "Dog", inverse: "fans", toMany: favoriteToMany),
      ])
    let tag = M.entity("Tag", [M.attribute("label"), M.relationship("dogs", to: "Dog", inverse: "tags", toMany: true)])
    return try NSManagedObjectModel(entities: Self.hierarchy(Self.animal(), [dog]) + [person, tag])
  }

  /// `key` of every object of `entity`, by name (or label): the names (or labels) of the objects it holds,
  /// sorted, whether `key` is a to-one or a to-many.
  static func links(_ entity: String, _ key: String, in stack: StoreStack) throws -> [String: [String]] {
    try stack.context.performAndWait {
      func name(_ object: NSManagedObject) -> String {
        (object.value(forKey: object.entity.entityName == "Tag" ? "label" : "name") as? String) ?? "?"
      }
      var result: [String: [String]] = [:]
      for object in try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity)) {
        let value = object.value(forKey: key)
        let members =
          (value as? Set<NSManagedObject>).map(Array.init) ?? (value as? NSOrderedSet)?.array.compactMap { $0 as? NSManagedObject }
          ?? (value as? NSManagedObject).map { [$0] } ?? []
        result[name(object)] = members.map(name).sorted()
      }
      return result
    }
  }

  @Test("a moved entity whose to-many (join table) turns into a to-one keeps the member with the lowest key; the inverse follows")
  func movedToManyBecomesToOne() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let version1 = try NSManagedObjectModel(entities: [Self.animal(), M.entity("Dog", Self.dogProperties(withName: true))] + Self.others())
    try Self.write(version1, at: url, extra: [("Animal", ["Ant"])])
    let oldJoin = try M.tables(url).filter { $0.hasPrefix("Z_") && $0.contains("TAGS") }
    #expect(oldJoin.count == 1)
    let version2 = try Self.reshapedModel(ownerToMany: false, fansToMany: true, favoriteToMany: false, tagsToMany: false)
    let stack = try Self.migrate(url, from: version1, to: version2)
    // "big" was saved before "good": Rex, tagged with both, keeps "big".
    let tags = try Self.links("Dog", "tags", in: stack)
    #expect(tags == ["Fido": ["good"], "Max": [], "Rex": ["big"], "Spot": ["big"]])
    let dogs = try Self.links("Tag", "dogs", in: stack)
    #expect(dogs == ["big": ["Rex", "Spot"], "good": ["Fido"]])
    let owners = try Self.links("Dog", "owner", in: stack)
    #expect(owners == ["Fido": ["Ann"], "Max": ["Bob"], "Rex": ["Ann"], "Spot": []])
    // On disk: the dogs' rows in ZANIMAL hold the tag's key in a column; the join table is gone.
    let dog = try Self.number(of: "Dog", url)
    let rows = try rawRows(
      url,
      "SELECT A.ZNAME AS name, T.ZLABEL AS label FROM ZANIMAL AS A LEFT JOIN ZTAG AS T ON T.Z_PK = A.ZTAGS WHERE A.Z_ENT = \(dog) ORDER BY A.ZNAME"
    )
    #expect(rows.map { "\($0["name"] as String)=\(($0["label"] as String?) ?? "-")" } == ["Fido=good", "Max=-", "Rex=big", "Spot=big"])
    #expect(try M.tables(url).isDisjoint(with: oldJoin))
    #expect(Set(try M.layout(url)).symmetricDifference(try M.freshLayout(version2)).sorted() == [])
  }

  @Test("a moved entity whose to-one turns into a to-many (now many-to-many) gets one join row per value; the inverse follows")
  func movedToOneBecomesToMany() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let version1 = try NSManagedObjectModel(entities: [Self.animal(), M.entity("Dog", Self.dogProperties(withName: true))] + Self.others())
    try Self.write(version1, at: url, extra: [("Animal", ["Ant", "Bee"])])
    let version2 = try Self.reshapedModel(ownerToMany: true, fansToMany: true, favoriteToMany: false, tagsToMany: true)
    let stack = try Self.migrate(url, from: version1, to: version2)
    let owners = try Self.links("Dog", "owner", in: stack)
    #expect(owners == ["Fido": ["Ann"], "Max": ["Bob"], "Rex": ["Ann"], "Spot": []])
    let owned = try Self.links("Person", "dogs", in: stack)
    #expect(owned == ["Ann": ["Fido", "Rex"], "Bob": ["Max"]])
    let read = try Self.readDogs(stack)
    #expect(read.map(\.tags) == Self.dogs.map(\.tags))
    #expect(read.map(\.fans) == Self.dogs.map(\.fans))
    // On disk: one join row per dog that had an owner, naming the dog by its new key in ZANIMAL.
    let joins = try M.tables(url).filter { $0.hasPrefix("Z_") && $0.contains("OWNER") }
    #expect(joins.count == 1)
    if let join = joins.first {
      let columns = try rawRows(url, "PRAGMA table_info(\(join))").map { $0["name"] as String }
      let dogColumn = columns.first { $0.hasPrefix("Z_") && $0.hasSuffix("DOGS") } ?? columns[0]
      let personColumn = columns.first { $0 != dogColumn } ?? columns[1]
      let pairs = try rawRows(
        url,
        "SELECT A.ZNAME AS dog, P.ZNAME AS person FROM \(join) AS J JOIN ZANIMAL AS A ON A.Z_PK = J.\(dogColumn) JOIN ZPERSON AS P ON P.Z_PK = J.\(personColumn) ORDER BY A.ZNAME"
      ).map { "\($0["dog"] as String)=\($0["person"] as String)" }
      #expect(pairs == ["Fido=Ann", "Max=Bob", "Rex=Ann"])
    }
    #expect(Set(try M.layout(url)).symmetricDifference(try M.freshLayout(version2)).sorted() == [])
  }

  @Test("a moved entity whose to-many kept on its members' table turns into a to-one, its inverse into a to-many")
  func movedForeignKeyToManyBecomesToOne() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let version1 = try NSManagedObjectModel(entities: [Self.animal(), M.entity("Dog", Self.dogProperties(withName: true))] + Self.others())
    try Self.write(version1, at: url, extra: [("Animal", ["Ant"])])
    let version2 = try Self.reshapedModel(ownerToMany: false, fansToMany: false, favoriteToMany: true, tagsToMany: true)
    let stack = try Self.migrate(url, from: version1, to: version2)
    let fans = try Self.links("Dog", "fans", in: stack)
    #expect(fans == ["Fido": [], "Max": ["Bob"], "Rex": ["Ann"], "Spot": []])
    let favorites = try Self.links("Person", "favorite", in: stack)
    #expect(favorites == ["Ann": ["Rex"], "Bob": ["Max"]])
    #expect(Set(try M.layout(url)).symmetricDifference(try M.freshLayout(version2)).sorted() == [])
  }

  @Test("a moved entity's to-many whose inverse turns from a to-one into a to-many moves into a join table")
  func movedInverseBecomesToMany() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let version1 = try NSManagedObjectModel(entities: [Self.animal(), M.entity("Dog", Self.dogProperties(withName: true))] + Self.others())
    try Self.write(version1, at: url, extra: [("Animal", ["Ant", "Bee", "Cow"])])
    let version2 = try Self.reshapedModel(ownerToMany: false, fansToMany: true, favoriteToMany: true, tagsToMany: true)
    let stack = try Self.migrate(url, from: version1, to: version2)
    let fans = try Self.links("Dog", "fans", in: stack)
    #expect(fans == ["Fido": [], "Max": ["Bob"], "Rex": ["Ann"], "Spot": []])
    let favorites = try Self.links("Person", "favorite", in: stack)
    #expect(favorites == ["Ann": ["Rex"], "Bob": ["Max"]])
    // Saving through the new model writes the join table the migration filled.
    try stack.context.performAndWait {
      let people = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person"))
      let dogs = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Dog"))
      let ann = people.first { $0.value(forKey: "name") as? String == "Ann" }
      ann?.mutableSetValue(forKey: "favorite").addObjects(from: dogs.filter { $0.value(forKey: "name") as? String == "Spot" })
      try stack.context.save()
    }
    try stack.close()
    let after = try Self.links("Person", "favorite", in: StoreStack(model: version2, at: url, options: StoreStack.migratingOptions))
    #expect(after == ["Ann": ["Rex", "Spot"], "Bob": ["Max"]])
  }

  @Test("a moved entity's to-one turning into a to-many whose inverse becomes ordered: members read in key order, then as saved")
  func movedToOneBecomesOrderedToMany() throws {
    let url = try TemporaryFolder().appending("Store.sqlite")
    let version1 = try NSManagedObjectModel(entities: [Self.animal(), M.entity("Dog", Self.dogProperties(withName: true))] + Self.others())
    try Self.write(version1, at: url, extra: [("Animal", ["Ant"])])
    let version2 = try Self.reshapedModel(ownerToMany: true, fansToMany: true, favoriteToMany: false, tagsToMany: true, dogsOrdered: true)
    let stack = try Self.migrate(url, from: version1, to: version2)
    func ordered(_ stack: StoreStack) throws -> [String: [String]] {
      try stack.context.performAndWait {
        var result: [String: [String]] = [:]
        for person in try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")) {
          let dogs = (person.value(forKey: "dogs") as? NSOrderedSet)?.array.compactMap { $0 as? NSManagedObject } ?? []
          result[person.value(forKey: "name") as? String ?? "?"] = dogs.compactMap { $0.value(forKey: "name") as? String }
        }
        return result
      }
    }
    // The order the old to-one never had: the dogs' keys, which keep the old order.
    #expect(try ordered(stack) == ["Ann": ["Fido", "Rex"], "Bob": ["Max"]])
    #expect(try Self.links("Dog", "owner", in: stack) == ["Fido": ["Ann"], "Max": ["Bob"], "Rex": ["Ann"], "Spot": []])
    try stack.context.performAndWait {
      let ann = try stack.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Person")).first {
        $0.value(forKey: "name") as? String == "Ann"
      }
      ann?.mutableOrderedSetValue(forKey: "dogs").exchangeObject(at: 0, withObjectAt: 1)
      try stack.context.save()
    }
    try stack.close()
    #expect(
      try ordered(StoreStack(model: version2, at: url, options: StoreStack.migratingOptions)) == ["Ann": ["Rex", "Fido"], "Bob": ["Max"]])
  }
}
