import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Derived attributes whose expressions are function expressions of `NSExpression`'s predefined functions
/// (arithmetic, `abs:`, string functions, nested), computed at save; and the expressions the engine cannot
/// compute, refused when the store is added.
@Suite("Derived attribute expressions", .temporaryFolders)
struct DerivedExpressionTests {
  static func derived(_ name: String, _ type: NSAttributeType, _ expression: NSExpression) -> NSAttributeDescription {
    let attribute = NSDerivedAttributeDescription(name: name, type: .init(rawValue: type))
    attribute.derivationExpression = expression
    return attribute
  }

  static func model(extra: [NSAttributeDescription] = []) throws -> NSManagedObjectModel {
    let order = NSEntityDescription(
      name: "Order",
      properties: [
        .attribute(NSAttributeDescription(name: "name", type: .string)),
        .attribute(
          derived("lineCount", .integer64AttributeType, NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "lines")]))
        ),
        .attribute(derived("priceTotal", .doubleAttributeType, NSExpression(format: "lines.@sum.price * 2"))),
        .relationship(NSRelationshipDescription(name: "lines", destination: "Line", inverse: "order", toMany: true)),
      ])
    let line = NSEntityDescription(
      name: "Line",
      properties: ([
        NSAttributeDescription(name: "name", type: .string),
        NSAttributeDescription(name: "price", type: .double, defaultValue: 0.0),
        NSAttributeDescription(name: "quantity", type: .integer64, defaultValue: Int64(0)),
        derived(
          "total", .doubleAttributeType,
          NSExpression(forFunction: "multiply:by:", arguments: [NSExpression(forKeyPath: "price"), NSExpression(forKeyPath: "quantity")])),
        derived("doubled", .integer64AttributeType, NSExpression(format: "quantity * 2 + 1")),
        derived(
          "loss", .doubleAttributeType,
          NSExpression(
            forFunction: "abs:",
            arguments: [
              NSExpression(
                forFunction: "from:subtract:", arguments: [NSExpression(forConstantValue: 10), NSExpression(forKeyPath: "price")])
            ])),
        derived("shout", .stringAttributeType, NSExpression(format: "uppercase:(lowercase:(name))")),
        derived("label", .stringAttributeType, NSExpression(format: "uppercase:(order.name)")),
        derived("folded", .stringAttributeType, NSExpression(format: "canonical:(uppercase:(name))")),
      ] + extra).map { .attribute($0) } + [
        .relationship(NSRelationshipDescription(name: "order", destination: "Order", inverse: "lines"))
      ])
    return try NSManagedObjectModel(entities: [order, line])
  }

  @Test(
    "Arithmetic, abs:, nested string functions and aggregates computed at save, kept current, and fetched on", arguments: bothStoreTypes)
  func computed(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: Self.model(), type: type)
    let context = stack.context
    let (order, lines) = try context.performAndWait {
      let order = NSManagedObject(entity: stack.entity("Order"), insertInto: context)
      order.setValue("Spring", forKey: "name")
      let lines = [("Café", 2.5, 4), ("tea", 12.0, 1)].map { name, price, quantity in
        let line = NSManagedObject(entity: stack.entity("Line"), insertInto: context)
        line.setValue(name, forKey: "name")
        line.setValue(price, forKey: "price")
        line.setValue(Int64(quantity), forKey: "quantity")
        line.setValue(order, forKey: "order")
        return line
      }
      try context.save()
      return (order, lines)
    }
    try context.performAndWait {
      #expect(lines.map { $0.value(forKey: "total") as? Double } == [10.0, 12.0])
      #expect(lines.map { $0.value(forKey: "doubled") as? Int64 } == [9, 3])
      #expect(lines.map { $0.value(forKey: "loss") as? Double } == [7.5, 2.0])
      #expect(lines.map { $0.value(forKey: "shout") as? String } == ["CAFÉ", "TEA"])
      #expect(lines.map { $0.value(forKey: "label") as? String } == ["SPRING", "SPRING"])
      #expect(lines.map { $0.value(forKey: "folded") as? String } == ["cafe", "tea"])
      #expect(order.value(forKey: "lineCount") as? Int64 == 2)
      #expect(order.value(forKey: "priceTotal") as? Double == 29.0)

      lines[0].setValue(Int64(10), forKey: "quantity")
      order.setValue("Summer", forKey: "name")
      lines[1].setValue(4.0, forKey: "price")
      try context.save()
      #expect(lines[0].value(forKey: "total") as? Double == 25.0)
      #expect(lines[0].value(forKey: "doubled") as? Int64 == 21)
      #expect(lines[1].value(forKey: "loss") as? Double == 6.0)
      #expect(lines.map { $0.value(forKey: "label") as? String } == ["SUMMER", "SUMMER"], "a to-one's change reaches it")
      #expect(order.value(forKey: "priceTotal") as? Double == 13.0)
    }
    let fresh = stack.freshContext()
    try fresh.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Line")
      request.predicate = NSPredicate(format: "total > 20 AND label == 'SUMMER'")
      let found = try fresh.fetch(request)
      #expect(found.map { $0.value(forKey: "name") as? String } == ["Café"])
    }
  }

  @Test(
    "An expression the engine cannot compute, or a key path the entity cannot reach, fails the store's add naming them",
    arguments: bothStoreTypes)
  func refusedAtAdd(type: NSPersistentStore.StoreType) throws {
    for (expression, mentioned) in [
      ("reverse:(name)", "reverse:"), ("order.colour", "no property 'colour'"), ("price.amount", "goes on past the attribute"),
      ("nothing * 2", "no property 'nothing'"), ("mode:(order.lines.price)", "collection"), ("price + $x", "$x"),
      ("abs:(order.lines.price)", "several values"), ("order.lines", "several values"),
    ] {
      let attribute = NSDerivedAttributeDescription(name: "odd", type: .double)
      attribute.derivationExpression = NSExpression(format: expression)
      let model = try Self.model(extra: [attribute])
      let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
      let url = try TemporaryFolder().appending("Store.sqlite")
      let error = expectCode(.modelInvalid) { _ = try coordinator.addPersistentStore(type: type, at: url) }
      let message = error?.message ?? ""
      #expect(message.contains("Entity Line") && message.contains("odd = ") && message.contains(mentioned), "\(message)")
      #expect(coordinator.persistentStores.isEmpty)
    }
  }

  @Test("Xcode's model file writes derived expressions as text: the reader keeps them and the saves compute them")
  func xcodeModelFile() throws {
    let folder = try TemporaryFolder()
    let version = folder.appending("Lines.xcdatamodel")
    try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
    let xml = #"""
      <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
      <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        <entity name="Line" syncable="YES">
          <attribute name="price" optional="YES" attributeType="Double" defaultValueString="0" usesScalarValueType="YES"/>
          <attribute name="quantity" optional="YES" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
          <attribute name="total" optional="YES" attributeType="Double" derived="YES" derivationExpression="price * quantity" usesScalarValueType="YES"/>
          <attribute name="next" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="add:to:(quantity, 1)" usesScalarValueType="YES"/>
          <attribute name="rounded" optional="YES" attributeType="Double" derived="YES" derivationExpression="ceiling:(price)" usesScalarValueType="YES"/>
        </entity>
      </model>
      """#
    try Data(xml.utf8).write(to: version.appendingPathComponent("contents"))
    let model = try NSManagedObjectModel(loadingContentsOf: version)
    let line = try #require(model.entitiesByName["Line"])
    #expect(line.attributesByName["total"]?.derivationFormat == "price * quantity")
    #expect(line.attributesByName["next"]?.derivationFormat == "add:to:(quantity, 1)")
    let stack = try StoreStack(model: model)
    try stack.context.performAndWait {
      let object = NSManagedObject(entity: line, insertInto: stack.context)
      object.setValue(2.25, forKey: "price")
      object.setValue(Int64(4), forKey: "quantity")
      try stack.context.save()
      #expect(object.value(forKey: "total") as? Double == 9.0)
      #expect(object.value(forKey: "next") as? Int64 == 5)
      #expect(object.value(forKey: "rounded") as? Double == 3.0)
    }
  }

  @Test("An expression made in code is kept as NSExpression prints it, and read back parsed from that text")
  func printedForm() throws {
    let attribute = NSDerivedAttributeDescription(name: "total", type: .double)
    let expression = NSExpression(
      forFunction: "multiply:by:", arguments: [NSExpression(forKeyPath: "price"), NSExpression(forKeyPath: "quantity")])
    attribute.derivationExpression = expression
    #expect(attribute.derivationFormat == "multiply:by:(price, quantity)")
    // Read back parsed from that text, it prints as the predicate language writes arithmetic.
    #expect(attribute.derivationExpression?.description == "price * quantity")
    let parsed = try DerivationExpression("multiply:by:(price, quantity)")
    #expect(parsed.keyPaths == [["price"], ["quantity"]])
  }
}
