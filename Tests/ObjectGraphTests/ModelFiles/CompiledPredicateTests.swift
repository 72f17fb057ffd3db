import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Archived `NSPredicate`s in compiled models (`.mom`): validation predicates, fetch request templates' and
/// fetched properties' predicates, decoded to formats and used; and validation predicates of relationships.
///
/// No fixture's compiled model holds a predicate (the CoreDataPlus `.mom`s have none, and the engine writes no
/// compiled models), so the archives here are the fixture's real `SampleModel.mom` with predicate objects added
/// under the keys and classes Foundation's and Core Data's `encodeWithCoder:` write (`NSComparisonPredicate`:
/// `NSLeftExpression`, `NSRightExpression`, `NSPredicateOperator` with `NSOperatorType`, `NSModifier`,
/// `NSOptions`; `NSCompoundPredicate`: `NSCompoundPredicateType`, `NSSubpredicates`; key paths as the fixture's
/// `.cdm` archives them, an `NSKeyPathExpression` of type 4 calling `valueForKeyPath:`): built by hand, not
/// written by Apple's tools.
@Suite("Compiled models' predicates", .temporaryFolders)
struct CompiledPredicateTests {
  /// Adds objects to a keyed archive's `$objects`.
  struct Archive {
    var objects: [PropertyListValue]

    mutating func add(_ value: PropertyListValue) -> PropertyListValue {
      objects.append(value)
      return .uid(UInt64(objects.count - 1))
    }

    mutating func object(_ classes: [String], _ fields: [String: PropertyListValue]) -> PropertyListValue {
      let classObject = add(
        .dictionary(["$classname": .string(classes[0]), "$classes": .array((classes + ["NSObject"]).map { .string($0) })]))
      var all = fields
      all["$class"] = classObject
      return add(.dictionary(all))
    }

    mutating func string(_ text: String) -> PropertyListValue { add(.string(text)) }

    mutating func array(_ members: [PropertyListValue]) -> PropertyListValue {
      object(["NSArray"], ["NS.objects": .array(members)])
    }

    mutating func evaluatedObject() -> PropertyListValue {
      object(["NSSelfExpression", "NSExpression"], ["NSExpressionType": .integer(1)])
    }

    mutating func variable(_ name: String) -> PropertyListValue {
      object(["NSVariableExpression", "NSExpression"], ["NSExpressionType": .integer(2), "NSVariable": string(name)])
    }

    /// A key path as Apple archives one: `valueForKeyPath:` of `operand` (SELF when `nil`).
    mutating func keyPath(_ path: String, of operand: PropertyListValue? = nil) -> PropertyListValue {
      let specifier = object(
        ["NSKeyPathSpecifierExpression", "NSExpression"], ["NSExpressionType": .integer(10), "NSKeyPath": string(path)])
      let target = operand ?? evaluatedObject()
      return object(
        ["NSKeyPathExpression", "NSFunctionExpression", "NSExpression"],
        [
          "NSExpressionType": .integer(4), "NSOperand": target, "NSSelectorName": string("valueForKeyPath:"),
          "NSArguments": array([specifier]),
        ])
    }

    mutating func constant(_ value: PropertyListValue) -> PropertyListValue {
      let stored = add(value)
      return object(["NSConstantValueExpression", "NSExpression"], ["NSExpressionType": .integer(0), "NSConstantValue": stored])
    }

    mutating func aggregate(_ members: [PropertyListValue]) -> PropertyListValue {
      object(["NSAggregateExpression", "NSExpression"], ["NSExpressionType": .integer(14), "NSCollection": array(members)])
    }

    mutating func comparison(
      _ lhs: PropertyListValue, _ type: Int64, _ rhs: PropertyListValue, modifier: Int64 = 0, options: Int64 = 0,
      operatorClass: String = "NSComparisonPredicateOperator"
    ) -> PropertyListValue {
      let operation = object(
        [operatorClass, "NSPredicateOperator"],
        ["NSOperatorType": .integer(type), "NSModifier": .integer(modifier), "NSOptions": .integer(options)])
      return object(
        ["NSComparisonPredicate", "NSPredicate"],
        ["NSLeftExpression": lhs, "NSRightExpression": rhs, "NSPredicateOperator": operation])
    }

    mutating func compound(_ type: Int64, _ members: [PropertyListValue]) -> PropertyListValue {
      object(["NSCompoundPredicate", "NSPredicate"], ["NSCompoundPredicateType": .integer(type), "NSSubpredicates": array(members)])
    }

    func index(ofEntity name: String) throws -> Int {
      try CompiledModelTests.index(of: "NSEntityName", name, in: objects)
    }

    /// The index of the property `name` of entity `entity`.
    func index(ofProperty name: String, in entity: String) throws -> Int {
      let entityIndex = try index(ofEntity: entity)
      return try #require(
        objects.indices.first { index in
          guard let fields = objects[index].dictionary, case .uid(let owner)? = fields["NSEntity"], owner == UInt64(entityIndex),
            case .uid(let nameIndex)? = fields["NSPropertyName"]
          else { return false }
          return objects[Int(nameIndex)] == .string(name)
        })
    }

    mutating func set(_ key: String, _ value: PropertyListValue, at index: Int) {
      guard case .dictionary(var fields) = objects[index] else { return }
      fields[key] = value
      objects[index] = .dictionary(fields)
    }
  }

  /// The fixture's version 1 `.mom` with `edit` applied to its objects, as a model.
  static func model(_ edit: (inout Archive) throws -> Void) throws -> NSManagedObjectModel {
    let url = try CompiledModelTests.momd().appendingPathComponent("SampleModel.mom")
    guard case .dictionary(var top) = try BinaryPropertyList.read(Data(contentsOf: url)), case .array(let objects)? = top["$objects"]
    else {
      throw ObjectGraphError(.modelInvalid, "the fixture is not a keyed archive")
    }
    var archive = Archive(objects: objects)
    try edit(&archive)
    top["$objects"] = .array(archive.objects)
    return try NSManagedObjectModel.fromCompiledArchive(TestPropertyListWriter.write(.dictionary(top)), origin: "the test's archive")
  }

  /// The fixture with:
  /// - Person.firstName: `firstName BEGINSWITH[c] "a"` (warning a string) and
  ///   `NOT (SELF ENDSWITH "x") AND SELF != "Zed"` (warning 1680, Core Data's pattern-mismatch code);
  /// - Person.cars: `SELF.@count <= 2`; Car.owner: `lastName != "Banned"`;
  /// - a template `byName`: `firstName == $name OR lastName IN {"Doe", "Roe"}`;
  /// - a fetched property Person.namesakes: `lastName == $FETCH_SOURCE.lastName AND SELF != $FETCH_SOURCE`.
  static func predicatedModel() throws -> NSManagedObjectModel {
    try model { archive in
      let firstName = try archive.index(ofProperty: "firstName", in: "Person")
      let startsWithA = archive.comparison(archive.evaluatedObject(), 8, archive.constant(.string("a")), options: 1)
      let notX = archive.compound(0, [archive.comparison(archive.evaluatedObject(), 9, archive.constant(.string("x")))])
      let notZed = archive.comparison(
        archive.evaluatedObject(), 5, archive.constant(.string("Zed")), operatorClass: "NSEqualityPredicateOperator")
      let both = archive.compound(1, [notX, notZed])
      archive.set("NSValidationPredicates", archive.array([startsWithA, both]), at: firstName)
      archive.set(
        "NSValidationWarnings", archive.array([archive.string("A first name starts with A."), archive.add(.integer(1680))]), at: firstName)

      let cars = try archive.index(ofProperty: "cars", in: "Person")
      let atMostTwo = archive.comparison(archive.keyPath("@count"), 1, archive.constant(.integer(2)))
      archive.set("NSValidationPredicates", archive.array([atMostTwo]), at: cars)
      archive.set("NSValidationWarnings", archive.array([archive.string("A person has at most two cars.")]), at: cars)

      let owner = try archive.index(ofProperty: "owner", in: "Car")
      let notBanned = archive.comparison(archive.keyPath("lastName"), 5, archive.constant(.string("Banned")))
      archive.set("NSValidationPredicates", archive.array([notBanned]), at: owner)
      archive.set("NSValidationWarnings", archive.array([archive.string("A banned owner cannot own a car.")]), at: owner)

      let person = try archive.index(ofEntity: "Person")
      let byFirstName = archive.comparison(archive.keyPath("firstName"), 4, archive.variable("name"))
      let inList = archive.comparison(
        archive.keyPath("lastName"), 10, archive.aggregate([archive.constant(.string("Doe")), archive.constant(.string("Roe"))]))
      let templateRequest = archive.object(
        ["NSFetchRequest", "NSPersistentStoreRequest"],
        [
          "NSEntity": .uid(UInt64(person)), "NSPredicate": archive.compound(2, [byFirstName, inList]), "NSFetchLimit": .integer(3),
          "NSBatchSize": .integer(2),
        ])
      let templates = archive.object(
        ["NSDictionary"], ["NS.keys": .array([archive.string("byName")]), "NS.objects": .array([templateRequest])])
      archive.set("NSFetchRequestTemplates", templates, at: 1)

      let sameLastName = archive.comparison(
        archive.keyPath("lastName"), 4, archive.keyPath("lastName", of: archive.variable("FETCH_SOURCE")))
      let notItself = archive.comparison(archive.evaluatedObject(), 5, archive.variable("FETCH_SOURCE"))
      let fetchedRequest = archive.object(
        ["NSFetchRequest", "NSPersistentStoreRequest"],
        ["NSEntity": .uid(UInt64(person)), "NSPredicate": archive.compound(1, [sameLastName, notItself])])
      let namesakes = archive.object(
        ["NSFetchedPropertyDescription", "NSPropertyDescription"],
        ["NSPropertyName": archive.string("namesakes"), "NSEntity": .uid(UInt64(person)), "NSFetchRequest": fetchedRequest])
      let properties = try #require(
        archive.objects[person].dictionary?["NSProperties"].flatMap { value -> Int? in
          if case .uid(let index) = value { return Int(index) }
          return nil
        })
      guard case .dictionary(var dictionary) = archive.objects[properties], case .array(let keys)? = dictionary["NS.keys"],
        case .array(let values)? = dictionary["NS.objects"]
      else { return }
      dictionary["NS.keys"] = .array(keys + [archive.string("namesakes")])
      dictionary["NS.objects"] = .array(values + [namesakes])
      archive.objects[properties] = .dictionary(dictionary)
    }
  }

  @Test(
    "archived predicates are read back as formats: validation predicates with their warnings, templates, fetched properties", .needsFixtures
  )
  func decoded() throws {
    let model = try Self.predicatedModel()
    let person = try #require(model.entitiesByName["Person"])
    let firstName = try #require(person.attributesByName["firstName"])
    let formats = firstName.validationPredicates.map { FetchPredicate.format(of: $0) }
    #expect(formats.count == 2)
    #expect(formats.first == #"SELF BEGINSWITH[c] "a""#, "\(formats)")
    #expect(formats.last?.contains(#"SELF ENDSWITH "x""#) == true && formats.last?.contains("NOT") == true, "\(formats)")
    #expect(firstName.validationWarnings.first as? String == "A first name starts with A.")
    #expect(firstName.validationWarnings.last as? Int == 1680)
    let cars = person.relationshipsByName["cars"]?.validationPredicates.map { FetchPredicate.format(of: $0) } ?? []
    #expect(cars.count == 1 && cars.first?.hasSuffix("@count <= 2") == true, "\(cars)")

    let template = try #require(model.fetchRequestFromTemplate(withName: "byName", substitutionVariables: ["name": "Ann"]))
    #expect(template.entityName == "Person")
    #expect(template.fetchLimit == 3 && template.fetchBatchSize == 2)
    #expect(model.fetchRequestTemplates.first?.predicateFormat == #"(firstName == $name) OR (lastName IN {"Doe", "Roe"})"#)

    let namesakes = try #require(person.fetchedPropertiesByName["namesakes"])
    #expect(namesakes.destinationEntityName == "Person")
    #expect(namesakes.predicateFormat == "(lastName == $FETCH_SOURCE.lastName) AND (SELF != $FETCH_SOURCE)")
  }

  @Test(
    "an archived predicate the language cannot write fails where it is used, naming it; one that is not a predicate fails the load",
    .needsFixtures)
  func unreadable() throws {
    let model = try Self.model { archive in
      let lastName = try archive.index(ofProperty: "lastName", in: "Person")
      let custom = archive.comparison(
        archive.evaluatedObject(), 11, archive.constant(.string("x")), operatorClass: "NSCustomPredicateOperator")
      archive.set("NSValidationPredicates", archive.array([custom]), at: lastName)
    }
    let format = model.entitiesByName["Person"]?.attributesByName["lastName"]?.validationPredicates.map { FetchPredicate.format(of: $0) }
    #expect(format?.first?.contains("NSCustomPredicateOperator") == true, "\(format ?? [])")
    let stack = try StoreStack(model: model)
    try stack.context.performAndWait {
      _ = Self.person("Ann", "Doe", in: stack.context)
      let error = try #require(throws: ObjectGraphError.self) { try stack.context.save() }
      #expect(error.localizedDescription.contains("cannot be evaluated") && error.localizedDescription.contains("operator 11"))
    }
    let notAPredicate = #expect(throws: ObjectGraphError.self) {
      _ = try Self.model { archive in
        let lastName = try archive.index(ofProperty: "lastName", in: "Person")
        archive.set("NSValidationPredicates", archive.array([archive.evaluatedObject()]), at: lastName)
      }
    }
    #expect(notAPredicate?.localizedDescription.contains("not an NSPredicate") == true)
  }

  /// A person of the fixture's model with its required values.
  static func person(_ first: String?, _ last: String, in context: NSManagedObjectContext) -> NSManagedObject {
    let person = NSEntityDescription.insertNewObject(forEntityName: "Person", into: context)
    person.setValue(first, forKey: "firstName")
    person.setValue(last, forKey: "lastName")
    person.setValue(UUID(), forKey: "id")
    person.setValue(Date(), forKey: "updatedAt")
    person.setValue(false, forKey: "isDriving")
    return person
  }

  @discardableResult
  static func car(_ plate: String, owner: NSManagedObject?, in context: NSManagedObjectContext) -> NSManagedObject {
    let car = NSEntityDescription.insertNewObject(forEntityName: "Car", into: context)
    car.setValue(plate, forKey: "numberPlate")
    car.setValue(owner, forKey: "owner")
    return car
  }

  @Test("a compiled model's validation predicates are enforced as code-set ones; a warning that is a code gives that code", .needsFixtures)
  func enforced() throws {
    let stack = try StoreStack(model: try Self.predicatedModel())
    let context = stack.context
    try context.performAndWait {
      let ann = Self.person("Ann", "Doe", in: context)
      try context.save()

      ann.setValue("Bob", forKey: "firstName")
      let error = try #require(throws: ObjectGraphError.self) { try context.save() }
      #expect(error.code == NSManagedObjectValidationError)
      #expect(error.localizedDescription == "A first name starts with A.")
      #expect(error.userInfo[NSValidationPredicateErrorKey] is NSPredicate)

      ann.setValue("Alex", forKey: "firstName")
      let coded = try #require(throws: ObjectGraphError.self) { try context.save() }
      #expect(coded.code == NSValidationStringPatternMatchingError)
      #expect(coded.localizedDescription.contains("firstName"))

      ann.setValue("Anna", forKey: "firstName")
      try context.save()
    }
    // A string's `length` (NSString's key-value coding), as a string attribute's validation predicate reads it.
    #expect(try FetchPredicate(format: "SELF.length >= 3 AND length < 5", argumentArray: []).evaluate(with: "café"))
    #expect(try !FetchPredicate(format: "length >= 3", argumentArray: []).evaluate(with: "ab"))
  }

  @Test("a compiled model's template and fetched property predicates run", .needsFixtures)
  func templatesAndFetchedProperties() throws {
    let stack = try StoreStack(model: try Self.predicatedModel())
    let context = stack.context
    try context.performAndWait {
      let ann = Self.person("Ann", "Doe", in: context)
      _ = Self.person("Abe", "Doe", in: context)
      _ = Self.person("Amy", "Roe", in: context)
      _ = Self.person("Ava", "Poe", in: context)
      _ = Self.person("Ada", "Poe", in: context)
      try context.save()
      let request = try #require(stack.model.fetchRequestFromTemplate(withName: "byName", substitutionVariables: ["name": "Ava"]))
      let found = try context.fetch(request).compactMap { ($0 as? NSManagedObject)?.value(forKey: "firstName") as? String }
      #expect(found.count == 3 && Set(found).isSubset(of: ["Ann", "Abe", "Amy", "Ava"]), "the template's fetch limit: \(found)")
      let namesakes = (ann.value(forKey: "namesakes") as? [NSManagedObject])?.compactMap { $0.value(forKey: "firstName") as? String }
      #expect(namesakes == ["Abe"])
    }
  }

  @Test("relationship validation predicates: a to-one's with the related object as SELF, a to-many's with the set", .needsFixtures)
  func relationshipPredicatesFromCompiledModel() throws {
    let stack = try StoreStack(model: try Self.predicatedModel())
    let context = stack.context
    try context.performAndWait {
      let ann = Self.person("Ann", "Doe", in: context)
      Self.car("A-1", owner: ann, in: context)
      Self.car("A-2", owner: ann, in: context)
      try context.save()

      Self.car("A-3", owner: ann, in: context)
      let tooMany = try #require(throws: ObjectGraphError.self) { try context.save() }
      #expect(tooMany.code == NSManagedObjectValidationError)
      #expect(tooMany.localizedDescription == "A person has at most two cars.")
      #expect(tooMany.userInfo[NSValidationKeyErrorKey] as? String == "cars")
      #expect((tooMany.userInfo[NSValidationValueErrorKey] as? Set<NSManagedObject>)?.count == 3)
      context.rollback()

      let banned = Self.person("Al", "Banned", in: context)
      let car = Self.car("B-1", owner: banned, in: context)
      let refused = try #require(throws: ObjectGraphError.self) { try context.save() }
      #expect(refused.localizedDescription == "A banned owner cannot own a car.")
      #expect(refused.userInfo[NSValidationKeyErrorKey] as? String == "owner")
      #expect(refused.userInfo[NSValidationObjectErrorKey] as? NSManagedObject === car)
      car.setValue(nil, forKey: "owner")  // optional and empty: the predicate is not evaluated
      try context.save()
    }
  }

  @Test("relationship validation predicates set in code are enforced on save and by validateValue(_:forKey:)")
  func relationshipPredicatesInCode() throws {
    let notes = NSRelationshipDescription(name: "notes", destination: "Note", inverse: "notebook", toMany: true)
    notes.setValidationPredicates(
      [NSPredicate(format: "SELF.@count <= 1"), NSPredicate(format: "ALL SELF.title BEGINSWITH 'n'")],
      withValidationWarnings: ["One note at most.", "Every title starts with n."])
    let notebook = NSRelationshipDescription(name: "notebook", destination: "Notebook", inverse: "notes")
    notebook.setValidationPredicates([NSPredicate(format: "name != 'closed'")], withValidationWarnings: ["The notebook is closed."])
    let model = try NSManagedObjectModel(entities: [
      NSEntityDescription(
        name: "Notebook", properties: [.attribute(NSAttributeDescription(name: "name", type: .string)), .relationship(notes)]),
      NSEntityDescription(
        name: "Note", properties: [.attribute(NSAttributeDescription(name: "title", type: .string)), .relationship(notebook)]),
    ])
    let stack = try StoreStack(model: model)
    let context = stack.context
    try context.performAndWait {
      let book = NSEntityDescription.insertNewObject(forEntityName: "Notebook", into: context)
      book.setValue("open", forKey: "name")
      let first = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
      first.setValue("note", forKey: "title")
      first.setValue(book, forKey: "notebook")
      try context.save()

      let second = NSEntityDescription.insertNewObject(forEntityName: "Note", into: context)
      second.setValue("other", forKey: "title")
      second.setValue(book, forKey: "notebook")
      let both = try #require(throws: ObjectGraphError.self) { try context.save() }
      #expect(both.code == NSValidationMultipleErrorsError)
      let messages = Set(((both.userInfo[NSDetailedErrorsKey] as? [NSError]) ?? []).map(\.localizedDescription))
      #expect(messages == ["One note at most.", "Every title starts with n."])
      second.setValue(nil, forKey: "notebook")
      try context.save()

      book.setValue("closed", forKey: "name")
      try context.save()  // the notebook's own rules hold; its notes are not changed
      var value: Any? = book
      let closed = try #require(throws: ObjectGraphError.self) { try first.validateValue(&value, forKey: "notebook") }
      #expect(closed.localizedDescription == "The notebook is closed.")
      first.setValue("n2", forKey: "title")
      #expect(throws: ObjectGraphError.self) { try context.save() }
    }
  }
}
