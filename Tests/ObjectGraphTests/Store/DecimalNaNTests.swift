import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// A decimal that is not a number: Core Data stores `NSDecimalNumber.notANumber` as the text `NaN` in the
/// attribute's column, and reads that text back as `notANumber` (`Decimal.nan` in Swift), not as no value.
@Suite("Decimals that are not a number", .temporaryFolders)
struct DecimalNaNTests {
  /// The `Everything` table's name and entity number in a store made for ``Models/allTypes()``.
  static func everything(_ url: URL) throws -> (table: String, entity: Int64) {
    let row = try #require(try rawRows(url, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Everything'").first)
    return ("ZEVERYTHING", row[0])
  }

  @Test("A row Core Data wrote with the text NaN reads as Decimal.nan, not as nil")
  func readsNaN() throws {
    let stack = try StoreStack(model: try Models.allTypes())
    try stack.coordinator.remove(try #require(stack.coordinator.persistentStores.first))
    let (table, entity) = try Self.everything(stack.storeURL)
    // As Core Data writes the row: the decimal column holds the text NaN.
    try DatabaseQueue(path: stack.storeURL.path).write { db in
      try db.execute(
        sql: "INSERT INTO \(table) (Z_PK, Z_ENT, Z_OPT, ZDECIMAL, ZSTRING) VALUES (1, ?, 1, 'NaN', 'nan')", arguments: [entity])
      try db.execute(
        sql: "INSERT INTO \(table) (Z_PK, Z_ENT, Z_OPT, ZDECIMAL, ZSTRING) VALUES (2, ?, 1, '2.5', 'number')", arguments: [entity])
      try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = 2 WHERE Z_ENT = ?", arguments: [entity])
    }
    let (_, context) = try stack.reopened()
    let values = try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Everything")
      request.sortDescriptors = [NSSortDescriptor(key: "string", ascending: true)]
      return try context.fetch(request).map { $0.value(forKey: "decimal") as? Decimal }
    }
    #expect(values.count == 2)
    #expect(values.first??.isNaN == true, "\(values)")
    #expect(values.last == Decimal(string: "2.5"))
  }

  @Test("A NaN decimal is saved as the text NaN, as Core Data writes it, and reads back as Decimal.nan")
  func writesNaN() throws {
    let stack = try StoreStack(model: try Models.allTypes())
    try stack.context.performAndWait {
      let object = NSManagedObject(entity: try #require(stack.model.entitiesByName["Everything"]), insertInto: stack.context)
      object.setValue(Decimal.nan, forKey: "decimal")
      object.setValue("nan", forKey: "string")
      let number = NSManagedObject(entity: try #require(stack.model.entitiesByName["Everything"]), insertInto: stack.context)
      number.setValue(Decimal(string: "-0.125"), forKey: "decimal")
      number.setValue("number", forKey: "string")
      try stack.context.save()
    }
    let (table, _) = try Self.everything(stack.storeURL)
    let rows = try rawRows(stack.storeURL, "SELECT ZDECIMAL, typeof(ZDECIMAL) FROM \(table) ORDER BY ZSTRING")
    #expect(rows.map { $0[0] as String? } == ["NaN", "-0.125"])
    #expect(rows.map { $0[1] as String } == ["text", "text"])

    // Round trip: another coordinator reads both back, and saves them again unchanged.
    let (_, context) = try stack.reopened()
    try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Everything")
      request.sortDescriptors = [NSSortDescriptor(key: "string", ascending: true)]
      let objects = try context.fetch(request)
      #expect((objects.first?.value(forKey: "decimal") as? Decimal)?.isNaN == true)
      #expect(objects.last?.value(forKey: "decimal") as? Decimal == Decimal(string: "-0.125"))
      objects.first?.setValue("nan, saved again", forKey: "string")
      try context.save()
    }
    #expect(try rawRows(stack.storeURL, "SELECT ZDECIMAL FROM \(table) WHERE ZSTRING = 'nan, saved again'").first?[0] as String? == "NaN")
  }
}
