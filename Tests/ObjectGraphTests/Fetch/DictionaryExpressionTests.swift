import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Dictionary fetches whose `propertiesToFetch` hold expressions beyond a key path or one aggregate of one:
/// arithmetic, `NSExpression`'s functions and constants of each row, aggregates of such expressions, grouped by
/// expressions and filtered by `havingPredicate`, typed by `expressionResultType`.
@Suite("Dictionary fetch expressions", .temporaryFolders)
struct DictionaryExpressionTests {
  static func model() throws -> NSManagedObjectModel {
    let shop = NSEntityDescription(
      name: "Shop",
      properties: [
        .attribute(NSAttributeDescription(name: "name", type: .string)),
        .attribute(NSAttributeDescription(name: "markup", type: .double, defaultValue: 1.0)),
        .relationship(NSRelationshipDescription(name: "items", destination: "Item", inverse: "shop", toMany: true)),
      ])
    let item = NSEntityDescription(
      name: "Item",
      properties: [
        .attribute(NSAttributeDescription(name: "name", type: .string)),
        .attribute(NSAttributeDescription(name: "category", type: .string)),
        .attribute(NSAttributeDescription(name: "price", type: .double, defaultValue: 0.0)),
        .attribute(NSAttributeDescription(name: "quantity", type: .integer64, defaultValue: Int64(0))),
        .relationship(NSRelationshipDescription(name: "shop", destination: "Shop", inverse: "items")),
      ])
    return try NSManagedObjectModel(entities: [shop, item])
  }

  /// Five items: fruit sells 12.0 (apple 1.5 × 4, pear 2.0 × 3), veg 11.0 (kale 3.0 × 2, "Veg" leek 0.5 × 10),
  /// spice 4.0 (salt 4.0 × 1, in no shop).
  static func populated(_ type: NSPersistentStore.StoreType) throws -> StoreStack {
    let stack = try StoreStack(model: model(), type: type)
    try stack.context.performAndWait {
      let shop = NSManagedObject(entity: stack.entity("Shop"), insertInto: stack.context)
      shop.setValue("Corner", forKey: "name")
      shop.setValue(2.0, forKey: "markup")
      for (name, category, price, quantity) in [
        ("apple", "fruit", 1.5, 4), ("pear", "fruit", 2.0, 3), ("kale", "veg", 3.0, 2), ("leek", "Veg", 0.5, 10),
        ("salt", "spice", 4.0, 1),
      ] {
        let item = NSManagedObject(entity: stack.entity("Item"), insertInto: stack.context)
        item.setValue(name, forKey: "name")
        item.setValue(category, forKey: "category")
        item.setValue(price, forKey: "price")
        item.setValue(Int64(quantity), forKey: "quantity")
        if name != "salt" { item.setValue(shop, forKey: "shop") }
      }
      try stack.context.save()
    }
    return stack
  }

  static func key(_ path: String) -> NSExpression { NSExpression(forKeyPath: path) }

  static func function(_ name: String, _ arguments: Any...) -> NSExpression {
    NSExpression(forFunction: name, arguments: arguments)
  }

  static func described(_ name: String, _ expression: NSExpression, _ type: NSAttributeType = .undefinedAttributeType)
    -> NSExpressionDescription
  {
    NSExpressionDescription(name: name, expression: expression, expressionResultType: type)
  }

  static func fetch(_ stack: StoreStack, _ configure: (NSFetchRequest<NSDictionary>) -> Void) throws -> [NSDictionary] {
    try stack.context.performAndWait {
      let request = NSFetchRequest<NSDictionary>(entityName: "Item")
      configure(request)
      return try stack.context.fetch(request)
    }
  }

  @Test("Arithmetic, functions, nested functions, constants and to-one key paths of each row", arguments: bothStoreTypes)
  func perRow(type: NSPersistentStore.StoreType) throws {
    let stack = try Self.populated(type)
    let rows = try Self.fetch(stack) {
      $0.propertiesToFetch = [
        "name",
        Self.described("total", Self.function("multiply:by:", Self.key("price"), Self.key("quantity"))),
        Self.described("more", Self.function("add:to:", Self.key("quantity"), NSExpression(forConstantValue: 1))),
        Self.described("shout", Self.function("uppercase:", Self.key("name"))),
        Self.described("magnitude", Self.function("abs:", Self.function("from:subtract:", 0, Self.key("quantity")))),
        Self.described("root", Self.function("sqrt:", Self.function("multiply:by:", Self.key("quantity"), Self.key("quantity")))),
        Self.described("marked", Self.function("multiply:by:", Self.key("price"), Self.key("shop.markup"))),
        Self.described("parsed", NSExpression(format: "price * 2 + quantity")),
        Self.described("label", NSExpression(forConstantValue: "each")),
      ]
      $0.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
    }
    #expect(rows.map { $0["name"] as? String } == ["apple", "kale", "leek", "pear", "salt"])
    #expect(rows.map { $0["total"] as? Double } == [6.0, 6.0, 5.0, 6.0, 4.0])
    #expect(rows.map { $0["more"] as? Int64 } == [5, 3, 11, 4, 2], "integer arithmetic stays an integer")
    #expect(rows.map { $0["shout"] as? String } == ["APPLE", "KALE", "LEEK", "PEAR", "SALT"])
    #expect(rows.map { $0["magnitude"] as? Double } == [4, 2, 10, 3, 1], "NSExpression's numeric functions give doubles")
    #expect(rows.map { $0["root"] as? Double } == [4, 2, 10, 3, 1])
    #expect(rows.map { $0["marked"] as? Double } == [3.0, 6.0, 1.0, 4.0, nil], "salt has no shop: nil, left out")
    #expect(rows.last?["marked"] == nil)
    #expect(rows.map { $0["parsed"] as? Double } == [7.0, 8.0, 11.0, 7.0, 9.0])
    #expect(rows.allSatisfy { $0["label"] as? String == "each" })
  }

  @Test(
    "Aggregates of expressions, grouped by a property or by an expression, filtered by havingPredicate on their names",
    arguments: bothStoreTypes)
  func grouped(type: NSPersistentStore.StoreType) throws {
    let stack = try Self.populated(type)
    let revenue = Self.described(
      "revenue", Self.function("sum:", Self.function("multiply:by:", Self.key("price"), Self.key("quantity"))))
    let byCategory = try Self.fetch(stack) {
      $0.propertiesToFetch = [
        "category", revenue,
        Self.described(
          "mean", Self.function("divide:by:", Self.function("sum:", Self.key("price")), Self.function("count:", Self.key("price")))),
        Self.described("most", Self.function("max:", Self.function("uppercase:", Self.key("name")))),
      ]
      $0.propertiesToGroupBy = ["category"]
      $0.havingPredicate = NSPredicate(format: "$revenue > 4.5")
      $0.sortDescriptors = [NSSortDescriptor(key: "category", ascending: true)]
    }
    #expect(byCategory.map { $0["category"] as? String } == ["Veg", "fruit", "veg"])
    #expect(byCategory.map { $0["revenue"] as? Double } == [5.0, 12.0, 6.0])
    #expect(byCategory.map { $0["mean"] as? Double } == [0.5, 1.75, 3.0])
    #expect(byCategory.map { $0["most"] as? String } == ["LEEK", "PEAR", "KALE"])

    // Grouped by an expression: "Veg" and "veg" are one group under lowercase:.
    let folded = Self.described("folded", Self.function("lowercase:", Self.key("category")))
    let byFolded = try Self.fetch(stack) {
      $0.propertiesToFetch = [folded, revenue, Self.described("lines", Self.function("count:", Self.key("name")))]
      $0.propertiesToGroupBy = [folded]
      $0.havingPredicate = NSPredicate(format: "$lines >= 2 AND $revenue > 5.0")
    }
    let revenues = Dictionary(uniqueKeysWithValues: byFolded.compactMap { row in (row["folded"] as? String).map { ($0, row["revenue"]) } })
    #expect(revenues.count == 2)
    #expect(revenues["fruit"] as? Double == 12.0)
    #expect(revenues["veg"] as? Double == 11.0)
  }

  @Test("expressionResultType decides the type of each value; undefined, the expression's own type", arguments: bothStoreTypes)
  func resultTypes(type: NSPersistentStore.StoreType) throws {
    let stack = try Self.populated(type)
    let before = Date()
    let rows = try Self.fetch(stack) {
      let total = Self.function("sum:", Self.function("multiply:by:", Self.key("price"), Self.key("quantity")))
      $0.propertiesToFetch = [
        Self.described("whole", total, .integer64AttributeType),
        Self.described("exact", total, .doubleAttributeType),
        Self.described("text", Self.function("count:", Self.key("name")), .stringAttributeType),
        Self.described("average", Self.function("average:", Self.key("quantity"))),
        Self.described("when", Self.function("now")),
        Self.described("median", Self.function("median:", Self.key("quantity"))),
      ]
    }
    let row = try #require(rows.first)
    #expect(rows.count == 1)
    #expect(row["whole"] as? Int64 == 27)
    #expect(row["exact"] as? Double == 27.0)
    #expect(row["text"] as? String == "5")
    #expect(row["average"] as? Double == 4.0)
    #expect(row["median"] as? Double == 3.0)
    let when = try #require(row["when"] as? Date)
    #expect(when >= before.addingTimeInterval(-1) && when <= Date().addingTimeInterval(1))
  }

  @Test("The object itself (expressionForEvaluatedObject) gives its object ID")
  func evaluatedObject() throws {
    let stack = try Self.populated(.sqlite)
    let rows = try Self.fetch(stack) {
      $0.propertiesToFetch = [
        "name", Self.described("objectID", NSExpression.expressionForEvaluatedObject(), .objectIDAttributeType),
      ]
      $0.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
    }
    let ids = try stack.context.performAndWait {
      let request = NSFetchRequest<NSManagedObjectID>(entityName: "Item")
      request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
      return try stack.context.fetch(request)
    }
    #expect(rows.compactMap { $0["objectID"] as? NSManagedObjectID } == ids)
  }

  @Test("The same requests answer the same on SQLite, in-memory, binary and atomic stores")
  func storesAgree() throws {
    NSPersistentStoreCoordinator.registerStoreClass(PlistAtomicStore.self, forStoreType: PlistAtomicStore.typeName)
    let requests: [(NSFetchRequest<NSDictionary>) -> Void] = [
      {
        $0.propertiesToFetch = [
          "name", Self.described("total", NSExpression(format: "price * quantity")),
          Self.described("shout", Self.function("uppercase:", Self.key("shop.name"))),
        ]
        $0.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
      },
      {
        let folded = Self.described("folded", Self.function("lowercase:", Self.key("category")))
        $0.propertiesToFetch = [
          folded, Self.described("revenue", Self.function("sum:", Self.function("multiply:by:", Self.key("price"), Self.key("quantity")))),
          Self.described("spread", Self.function("stddev:", Self.key("quantity"))),
        ]
        $0.propertiesToGroupBy = [folded]
        $0.havingPredicate = NSPredicate(format: "$revenue < 12")
      },
    ]
    func rendered(_ rows: [NSDictionary]) -> [String] {
      rows.map { row in
        row.allKeys.compactMap { $0 as? String }.sorted().map { "\($0)=\(row[$0] ?? "nil")" }.joined(separator: " ")
      }.sorted()
    }
    let types: [NSPersistentStore.StoreType] = [.sqlite, .inMemory, .binary, .init(rawValue: PlistAtomicStore.typeName)]
    let stacks = try types.map { try Self.populated($0) }
    for configure in requests {
      let answers = try stacks.map { rendered(try Self.fetch($0, configure)) }
      #expect(!answers[0].isEmpty)
      #expect(answers[1] == answers[0], "in-memory store")
      #expect(answers[2] == answers[0], "binary store")
      #expect(answers[3] == answers[0], "atomic store")
    }
  }

  @Test("What a dictionary cannot hold or the store cannot compute is refused, naming the expression")
  func refusals() throws {
    let stack = try Self.populated(.sqlite)
    func refused(_ code: ObjectGraphError.Code, _ mentioned: String, _ configure: (NSFetchRequest<NSDictionary>) -> Void) {
      let error = expectCode(code) { _ = try Self.fetch(stack, configure) }
      #expect(error?.message.contains(mentioned) == true, "\(error?.message ?? "")")
    }
    refused(.invalidValue, "mixes aggregates") {
      $0.propertiesToFetch = [Self.described("bad", Self.function("add:to:", Self.function("sum:", Self.key("price")), Self.key("price")))]
    }
    refused(.invalidValue, "aggregate inside sum:") {
      $0.propertiesToFetch = [Self.described("bad", Self.function("sum:", Self.function("max:", Self.key("price"))))]
    }
    refused(.unsupportedFeature, "mode:") {
      $0.propertiesToFetch = [Self.described("bad", Self.function("mode:", Self.key("quantity")))]
    }
    refused(.unsupportedFeature, "reverse:") {
      $0.propertiesToFetch = [Self.described("bad", Self.function("reverse:", Self.key("name")))]
    }
    refused(.invalidValue, "works on numbers") {
      $0.propertiesToFetch = [Self.described("bad", Self.function("sum:", Self.function("uppercase:", Self.key("name"))))]
    }
    refused(.invalidValue, "cannot be computed by a dictionary fetch") {
      $0.propertiesToFetch = [Self.described("bad", NSExpression(forVariable: "x"))]
    }
    refused(.invalidValue, "neither grouped nor an aggregate") {
      $0.propertiesToFetch = ["category", Self.described("each", NSExpression(format: "price * quantity"))]
      $0.propertiesToGroupBy = ["category"]
    }
    refused(.unknownKey, "'colour'") {
      $0.propertiesToFetch = [Self.described("bad", Self.function("uppercase:", Self.key("colour")))]
    }
  }
}
