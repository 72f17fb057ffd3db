import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Writes down the life-cycle and validation calls Core Data makes on an object, in order.
final class CallLog: @unchecked Sendable {
  // `@unchecked Sendable`: each test makes its own log and uses it on one context's queue only.
  var calls: [String] = []
}

/// An item whose hooks write to a log: validation per key (a code must not be "XXX"), a check of two
/// properties together at insert, and a refusal to be deleted while `locked`.
final class Item: NSManagedObject {
  @ObjectGraphManaged var name: String?
  @ObjectGraphManaged var code: String?
  @ObjectGraphManaged var count: Int32
  @ObjectGraphManaged var price: Double
  @ObjectGraphManaged var due: Date?
  @ObjectGraphManaged var locked: Bool
  nonisolated(unsafe) static var log: CallLog?

  private func record(_ call: String) { Self.log?.calls.append("\(name ?? "?"): \(call)") }

  override func validateValue(_ value: inout Any?, forKey key: String) throws {
    if key == "code" { record("validateValue(code)") }
    if key == "code", value as? String == "XXX" {
      throw ObjectGraphError(.managedObjectValidation, "Item.code may not be XXX.")
    }
    try super.validateValue(&value, forKey: key)
  }

  override func validateForInsert() throws {
    record("validateForInsert")
    try super.validateForInsert()
    if count > 0 && price == 0 {
      throw ObjectGraphError(.managedObjectValidation, "Item \(name ?? "?"): items in stock need a price.")
    }
  }

  override func validateForUpdate() throws {
    record("validateForUpdate")
    try super.validateForUpdate()
  }

  override func validateForDelete() throws {
    record("validateForDelete")
    try super.validateForDelete()
    if locked { throw ObjectGraphError(.managedObjectValidation, "Item \(name ?? "?") is locked and cannot be deleted.") }
  }

  override func willSave() { record("willSave") }
  override func didSave() { record("didSave") }
  override func prepareForDeletion() { record("prepareForDeletion") }
  override func willTurnIntoFault() { record("willTurnIntoFault") }
  // Not `record`: reading the name would fire the fault again.
  override func didTurnIntoFault() { Self.log?.calls.append("didTurnIntoFault") }
}

/// An item whose hook, asked about `name`, also checks a count of 101 through `super`.
final class CrossCheckedItem: NSManagedObject {
  @ObjectGraphManaged var name: String?

  override func validateValue(_ value: inout Any?, forKey key: String) throws {
    if key == "name" {
      var count: Any? = Int32(101)
      try super.validateValue(&count, forKey: "count")
    }
    try super.validateValue(&value, forKey: key)
  }
}

@Suite("Validation rules and life-cycle hooks", .temporaryFolders, .serialized)
struct ValidationRuleTests {
  static let dueMin = Date(timeIntervalSinceReferenceDate: 0)
  static let dueMax = Date(timeIntervalSinceReferenceDate: 86_400)

  static func model() throws -> NSManagedObjectModel {
    let name = NSAttributeDescription(name: "name", type: .string, isOptional: false)
    name.minValue = 3
    name.maxValue = 10
    let code = NSAttributeDescription(name: "code", type: .string)
    code.regularExpression = "[A-Z]{3}"
    let count = NSAttributeDescription(name: "count", type: .integer32, defaultValue: Int32(0))
    count.minValue = 0
    count.maxValue = 100
    let price = NSAttributeDescription(name: "price", type: .double, defaultValue: 0.0)
    price.minValue = 0
    let due = NSAttributeDescription(name: "due", type: .date)
    due.minValue = dueMin.timeIntervalSinceReferenceDate
    due.maxValue = dueMax.timeIntervalSinceReferenceDate
    let locked = NSAttributeDescription(name: "locked", type: .boolean, defaultValue: false)
    let item = NSEntityDescription(
      name: "Item", managedObjectClass: Item.self,
      properties: [name, code, count, price, due, locked].map { .attribute($0) })
    return try NSManagedObjectModel(entities: [item])
  }

  private func stack() throws -> StoreStack { try StoreStack(model: Self.model()) }

  @Test("Each rule, broken alone, fails the save with Core Data's code, naming the object and the property")
  func eachRule() throws {
    let stack = try stack()
    let context = stack.context
    let cases: [(String, (Item) -> Void, ObjectGraphError.Code, String)] = [
      ("short name", { $0.name = "ab" }, .validationStringTooShort, "Item.name is 2 character(s) long, below"),
      ("long name", { $0.name = "abcdefghijk" }, .validationStringTooLong, "above the model's maximum of 10 character(s)"),
      ("bad code", { $0.code = "abc" }, .validationStringPatternMatching, "does not match the model's regular expression [A-Z]{3}"),
      ("too many", { $0.count = 101 }, .validationNumberTooLarge, "Item.count is 101, above the model's maximum of 100"),
      ("negative", { $0.count = -1 }, .validationNumberTooSmall, "Item.count is -1, below"),
      ("cheap", { $0.price = -0.5 }, .validationNumberTooSmall, "Item.price is -0.5"),
      (
        "early", { $0.due = Self.dueMin.addingTimeInterval(-1) }, .validationDateTooSoon,
        "below the model's minimum of 2001-01-01T00:00:00Z"
      ),
      ("late", { $0.due = Self.dueMax.addingTimeInterval(1) }, .validationDateTooLate, "above the model's maximum of 2001-01-02T00:00:00Z"),
      ("no name", { $0.name = nil }, .validationMissingMandatoryProperty, "Item.name is required"),
      ("XXX", { $0.code = "XXX" }, .managedObjectValidation, "Item.code may not be XXX."),
      ("stock", { $0.count = 3 }, .managedObjectValidation, "items in stock need a price"),
    ]
    for (label, breakIt, code, mentioned) in cases {
      context.performAndWait {
        let item = Item(context: context)
        item.name = "valid"
        breakIt(item)
        let error = expectCode(code) { try context.save() }
        #expect(error?.message.contains(mentioned) == true, "\(label): \(error?.message ?? "")")
        if code != .managedObjectValidation && code != .validationMissingMandatoryProperty {
          #expect(error?.message.contains("(object ") == true, "\(label)")
        }
        context.rollback()
      }
    }
    // Values on the bounds pass.
    try context.performAndWait {
      let item = Item(context: context)
      item.name = "abc"
      item.code = "ABC"
      item.count = 100
      item.price = 0.01
      item.due = Self.dueMax
      try context.save()
    }
    #expect(try stack.storedCount("Item") == 1)
  }

  @Test("Several broken rules are one 1560 listing each; nothing is written")
  func severalAtOnce() throws {
    let stack = try stack()
    stack.context.performAndWait {
      let first = Item(context: stack.context)
      first.name = "x"
      first.count = 500
      let second = Item(context: stack.context)
      second.name = "fine"
      second.code = "no"
      let error = expectCode(.validationMultipleErrors) { try stack.context.save() }
      #expect(
        Set(error?.detailedErrors.map(\.code) ?? [])
          == [NSValidationStringTooShortError, NSValidationNumberTooLargeError, NSValidationStringPatternMatchingError])
      #expect(error?.detailedErrors.count == 3)
    }
    #expect(try stack.storedCount("Item") == 0)
  }

  @Test(
    "A hook that checks another key through super during a save gets that key's rules, and so does a direct call after the save"
  )
  func hookValidatesAnotherKey() throws {
    let stack = try stack()
    try stack.context.performAndWait {
      let entity = try #require(stack.context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Item"])
      let item = CrossCheckedItem(entity: entity, insertInto: stack.context)
      item.name = "Widget"
      // While "name" is validated, the hook asks super about "count" with 101 (above its maximum of 100):
      // the answer must be count's rule, not name's.
      let error = expectCode(.validationNumberTooLarge) { try stack.context.save() }
      #expect(error?.message.contains("Item.count is 101") == true)
      #expect(try stack.storedCount("Item") == 0)
      var fine: Any? = "ABC"
      try item.validateValue(&fine, forKey: "code")
      var many: Any? = Int32(101)
      _ = expectCode(.validationNumberTooLarge) { try item.validateValue(&many, forKey: "count") }
    }
  }

  @Test("validateValue(_:forKey:) checks one value without saving; unknown keys are refused")
  func validateValueDirectly() throws {
    let stack = try stack()
    try stack.context.performAndWait {
      let item = Item(context: stack.context)
      var good: Any? = "Widget"
      try item.validateValue(&good, forKey: "name")
      var bad: Any? = "Wi"
      _ = expectCode(.validationStringTooShort) { try item.validateValue(&bad, forKey: "name") }
      var none: Any? = nil
      _ = expectCode(.validationMissingMandatoryProperty) { try item.validateValue(&none, forKey: "name") }
      var number: Any? = Int32(7)
      try item.validateValue(&number, forKey: "count")
      var unknown: Any? = 1
      _ = expectCode(.unknownKey) { try item.validateValue(&unknown, forKey: "colour") }
      try item.validateForDelete()
    }
  }

  @Test(
    "The hooks run in Core Data's order: willSave, validateFor…, validateValue, didSave; prepareForDeletion before the delete rules; willTurnIntoFault before didTurnIntoFault"
  )
  func callOrder() throws {
    let stack = try stack()
    let log = CallLog()
    Item.log = log
    defer { Item.log = nil }
    let context = stack.context
    try context.performAndWait {
      let item = Item(context: context)
      item.name = "first"
      item.code = "ABC"
      try context.save()
      #expect(
        log.calls == [
          "first: willSave", "first: validateForInsert", "first: validateValue(code)", "first: didSave",
        ])
      log.calls = []
      item.count = 2
      item.price = 1
      try context.save()
      #expect(log.calls == ["first: willSave", "first: validateForUpdate", "first: validateValue(code)", "first: didSave"])
      log.calls = []
      context.refresh(item, mergeChanges: false)
      #expect(log.calls == ["first: willTurnIntoFault", "didTurnIntoFault"])
      log.calls = []
      item.locked = true
      context.delete(item)
      context.processPendingChanges()
      #expect(log.calls == ["first: prepareForDeletion"])
      log.calls = []
      let refused = expectCode(.managedObjectValidation) { try context.save() }
      #expect(refused?.message.contains("locked") == true)
      #expect(log.calls == ["first: willSave", "first: validateForDelete"])
      log.calls = []
      context.rollback()
      item.locked = false
      context.delete(item)
      try context.save()
      #expect(log.calls == ["first: prepareForDeletion", "first: willSave", "first: validateForDelete", "first: didSave"])
    }
  }

  @Test("The rules of an Xcode model are read, enforced and written back", .needsFixtures)
  func xcodeModel() throws {
    let url = try Fixtures.folder().appendingPathComponent("ChristianKienle__Core-Data-Editor__iOS_Example.xcdatamodel")
    let model = try NSManagedObjectModel(loadingContentsOf: url)
    let validation = try #require(model.entitiesByName["ValidationTest"])
    let date = try #require(validation.attributesByName["dateAttribute"])
    #expect(date.minValue == 407_847_600 && date.maxValue == 439_470_000)
    let email = try #require(validation.attributesByName["email"])
    #expect(email.minValue == 3 && email.maxValue == 1000 && email.regularExpression == #"\A[^@]+@([^@\.]+\.)+[^@\.]+\z"#)
    #expect(validation.attributesByName["integer64Attribute"]?.minValue == 45)
    #expect(validation.attributesByName["stringAttribute"]?.minValue == nil)

    let stack = try StoreStack(model: model)
    try stack.context.performAndWait {
      let pet = NSManagedObject(entity: try #require(model.entitiesByName["Pet"]), insertInto: stack.context)
      pet.setValue("Al", forKey: "name")
      _ = expectCode(.validationStringTooShort) { try stack.context.save() }
      pet.setValue("Alfred", forKey: "name")
      try stack.context.save()

      let test = NSManagedObject(entity: validation, insertInto: stack.context)
      var address: Any? = "someone@example"
      _ = expectCode(.validationStringPatternMatching) { try test.validateValue(&address, forKey: "email") }
      address = "someone@example.com"
      try test.validateValue(&address, forKey: "email")
      var early: Any? = Date(timeIntervalSinceReferenceDate: 407_847_599)
      _ = expectCode(.validationDateTooSoon) { try test.validateValue(&early, forKey: "dateAttribute") }
      var small: Any? = Int16(9)
      _ = expectCode(.validationNumberTooSmall) { try test.validateValue(&small, forKey: "integer16Attribute") }
      stack.context.rollback()
    }

    // Written back: the same rules come out of the written file.
    let written = XcodeModelWriter.contents(of: model)
    let reread = try #require(
      try NSManagedObjectModel.fromXcodeContents(written, origin: "the written model").entitiesByName["ValidationTest"])
    for attribute in validation.attributesByName.values {
      let again = try #require(reread.attributesByName[attribute.name])
      #expect(again.minValue == attribute.minValue && again.maxValue == attribute.maxValue, "\(attribute.name)")
      #expect(again.regularExpression == attribute.regularExpression)
    }
  }
}
