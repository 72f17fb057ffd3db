import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Core Data's attribute types in both spellings (issue 37): the Objective-C enum `NSAttributeType` with its
/// raw values, and Swift's `NSAttributeDescription.AttributeType` wrapped around it, written as Core Data code.
@Suite("Attribute types as Core Data spells them", .temporaryFolders)
struct AttributeTypeFormsTests {
  /// Every case with Core Data's raw value, and the struct's static member for it.
  static let table: [(NSAttributeType, UInt, NSAttributeDescription.AttributeType)] = [
    (.undefinedAttributeType, 0, .undefined), (.integer16AttributeType, 100, .integer16),
    (.integer32AttributeType, 200, .integer32), (.integer64AttributeType, 300, .integer64),
    (.decimalAttributeType, 400, .decimal), (.doubleAttributeType, 500, .double), (.floatAttributeType, 600, .float),
    (.stringAttributeType, 700, .string), (.booleanAttributeType, 800, .boolean), (.dateAttributeType, 900, .date),
    (.binaryDataAttributeType, 1000, .binaryData), (.UUIDAttributeType, 1100, .uuid), (.URIAttributeType, 1200, .uri),
    (.transformableAttributeType, 1800, .transformable), (.objectIDAttributeType, 2000, .objectID),
    (.compositeAttributeType, 2100, .composite),
  ]

  @Test("NSAttributeType has Core Data's raw values, and init(rawValue:) reads them back (nil for any other)")
  func rawValues() {
    for (type, raw, _) in Self.table {
      #expect(type.rawValue == raw)
      #expect(NSAttributeType(rawValue: raw) == type)
    }
    #expect(NSAttributeType(rawValue: 150) == nil)
    #expect(NSAttributeType(rawValue: 1300) == nil)
  }

  @Test("NSAttributeDescription.AttributeType wraps NSAttributeType: each static member's rawValue is its case")
  func structAndEnumAgree() {
    for (type, _, wrapped) in Self.table {
      #expect(wrapped.rawValue == type)
      #expect(NSAttributeDescription.AttributeType(rawValue: type) == wrapped)
    }
    #expect(Set(Self.table.map(\.2)).count == Self.table.count)
  }

  @Test("attribute.type = .string and attribute.attributeType = .stringAttributeType set the same thing")
  func bothPropertiesAreOneValue() {
    let attribute = NSAttributeDescription(name: "title", type: .undefined)
    attribute.type = .string
    #expect(attribute.attributeType == .stringAttributeType)
    attribute.attributeType = .dateAttributeType
    #expect(attribute.type == .date)
    #expect(attribute.type.rawValue == .dateAttributeType)
    for (type, _, wrapped) in Self.table {
      attribute.attributeType = type
      #expect(attribute.type == wrapped)
      attribute.type = wrapped
      #expect(attribute.attributeType == type)
    }
  }

  @Test("An attribute typed either way stores and reads its values the same")
  func eitherSpellingWorksInAModel() throws {
    let older = NSAttributeDescription(name: "count", type: .undefined)
    older.attributeType = .integer64AttributeType
    let newer = NSAttributeDescription(name: "title", type: .undefined)
    newer.type = .string
    let entity = NSEntityDescription(name: "Item", properties: [.attribute(older), .attribute(newer)])
    let model = try NSManagedObjectModel(entities: [entity])
    let context = try StoreStack(model: model, type: .inMemory).context
    try context.performAndWait {
      let item = NSManagedObject(entity: entity, insertInto: context)
      item.setValue(Int64(3), forKey: "count")
      item.setValue("three", forKey: "title")
      try context.save()
      let fetched = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Item"))
      #expect(fetched.first?.value(forKey: "count") as? Int64 == 3)
      #expect(fetched.first?.value(forKey: "title") as? String == "three")
    }
    #expect(model.entitiesByName["Item"]?.attributesByName["count"]?.type == .integer64)
    #expect(model.entitiesByName["Item"]?.attributesByName["title"]?.attributeType == .stringAttributeType)
  }

  @Test("NSExpressionDescription's resultType and expressionResultType are one value")
  func expressionDescriptionResultType() {
    let description = NSExpressionDescription()
    #expect(description.expressionResultType == .undefinedAttributeType)
    #expect(description.resultType == .undefined)
    description.resultType = .integer64
    #expect(description.expressionResultType == .integer64AttributeType)
    description.expressionResultType = .doubleAttributeType
    #expect(description.resultType == .double)
  }

  @Test("NSDeleteRule has Core Data's cases and raw values; a relationship's deleteRule takes them")
  func deleteRules() {
    let rules: [(NSDeleteRule, UInt)] = [
      (.noActionDeleteRule, 0), (.nullifyDeleteRule, 1), (.cascadeDeleteRule, 2), (.denyDeleteRule, 3),
    ]
    for (rule, raw) in rules {
      #expect(rule.rawValue == raw)
      #expect(NSDeleteRule(rawValue: raw) == rule)
    }
    #expect(NSDeleteRule(rawValue: 4) == nil)
    let notes = NSRelationshipDescription(name: "notes", destination: "Note", inverse: "notebook", toMany: true)
    notes.deleteRule = .cascadeDeleteRule
    #expect(notes.deleteRule == .cascadeDeleteRule)
    #expect(NSDeleteRule(rawValue: notes.deleteRule.rawValue) == .cascadeDeleteRule)
  }

  @Test("NSFetchIndexElementType is Core Data's top-level enum, the element description's collationType")
  func fetchIndexElementType() {
    #expect(NSFetchIndexElementType.binary.rawValue == 0)
    #expect(NSFetchIndexElementType.rTree.rawValue == 1)
    #expect(NSFetchIndexElementType(rawValue: 1) == .rTree)
    #expect(NSFetchIndexElementType(rawValue: 2) == nil)
    let element = NSFetchIndexElementDescription(propertyName: "createdAt")
    #expect(element.collationType == .binary)
    element.collationType = .rTree
    let type: NSFetchIndexElementType = element.collationType
    #expect(type == .rTree)
  }

  @Test("NSEntityMappingType has Core Data's cases and raw values")
  func entityMappingTypes() {
    let types: [(NSEntityMappingType, UInt)] = [
      (.undefinedEntityMappingType, 0x00), (.customEntityMappingType, 0x01), (.addEntityMappingType, 0x02),
      (.removeEntityMappingType, 0x03), (.copyEntityMappingType, 0x04), (.transformEntityMappingType, 0x05),
    ]
    for (type, raw) in types {
      #expect(type.rawValue == raw)
      #expect(NSEntityMappingType(rawValue: raw) == type)
    }
    #expect(NSEntityMappingType(rawValue: 0x06) == nil)
  }
}
