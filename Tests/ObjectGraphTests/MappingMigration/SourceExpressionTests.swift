import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// An entity mapping's `sourceExpression`: by default the fetch its source predicate makes, or an expression of
/// the app's own, evaluated by the migration manager with `$manager` standing for itself.
@Suite("Entity mapping source expressions", .temporaryFolders)
struct SourceExpressionTests {
  typealias Manager = MigrationManagerTests

  /// The note mapping of the migration manager tests' mapping model, with `change` applied to it.
  static func mappingModel(_ change: (NSEntityMapping) -> Void) throws -> NSMappingModel {
    let model = Manager.mappingModel()
    change(try #require(model.entityMappingsByName["NoteToNote"]))
    return model
  }

  static func fetch(_ predicate: NSPredicate?, context: String = "$manager.sourceContext") -> NSExpression {
    let request = NSFetchRequest<any NSFetchRequestResult>(entityName: "Note")
    request.predicate = predicate
    return NSFetchRequestExpression.expression(
      forFetch: NSExpression(forConstantValue: request), context: NSExpression(format: context), countOnly: false)
  }

  @Test("without one set, it is the fetch of the source entity's own instances with the source predicate")
  func defaultExpression() throws {
    let predicate = NSPredicate(format: "fullName BEGINSWITH %@", "First1")
    let mapping = try #require(Manager.mappingModel(notePredicate: predicate).entityMappingsByName["NoteToNote"])
    let expression = try #require(mapping.sourceExpression as? NSFetchRequestExpression)
    #expect(expression.expressionType == NSFetchRequestExpressionType && !expression.isCountOnlyRequest)
    let request = try #require(expression.requestExpression.constantValue as? NSFetchRequest<any NSFetchRequestResult>)
    #expect(request.entityName == "Note" && !request.includesSubentities)
    #expect(request.predicate?.formatText == predicate.formatText)
    #expect(expression.contextExpression.description == "$manager.sourceContext")
    // Setting one replaces it; setting nil goes back to the predicate's.
    let own = NSExpression(forConstantValue: [NSManagedObject]())
    mapping.sourceExpression = own
    #expect(mapping.sourceExpression === own)
    mapping.sourceExpression = nil
    #expect(mapping.sourceExpression is NSFetchRequestExpression)
    // An added entity has no source, so no source expression.
    let added = NSEntityMapping(name: "Add", mappingType: .addEntityMappingType, sourceEntityName: nil, destinationEntityName: "Note")
    #expect(added.sourceExpression == nil)
  }

  @Test("a fetch request expression of the app's own chooses the instances, run in $manager.sourceContext")
  func ownFetch() throws {
    let mapping = try Self.mappingModel { $0.sourceExpression = Self.fetch(NSPredicate(format: "fullName BEGINSWITH %@", "First1")) }
    let (_, _, migratedURL) = try Manager.migratedWithMappingModel(mapping)
    #expect(try Manager.notes(at: migratedURL) == Manager.expected([1, 10, 11]))
    #expect(try Manager.notebooks(at: migratedURL) == ["Notebook 0: 0", "Notebook 1: 2", "Notebook 2: 1"])
    // The expression wins over a source predicate that would choose others.
    let both = try Self.mappingModel { mapping in
      mapping.sourcePredicate = NSPredicate(value: false)
      mapping.sourceExpression = Self.fetch(nil)
    }
    #expect(try Manager.notes(at: Manager.migratedWithMappingModel(both).migratedURL) == Manager.expected(0..<12))
  }

  @Test("an expression whose value is not source objects fails the migration naming the mapping, and writes nothing")
  func refused() throws {
    let cases: [(NSExpression, String)] = [
      (NSExpression(forConstantValue: "Note"), "not a collection of objects of the source store"),
      (Self.fetch(nil, context: "$nobody"), "could not run its source expression"),
      (Self.fetch(nil, context: "$manager.noSuchKey"), "could not run its source expression"),
    ]
    for (expression, words) in cases {
      let folder = try TemporaryFolder()
      let storeURL = folder.appending("Store.sqlite")
      let migratedURL = folder.appending("Migrated.sqlite")
      try Manager.writeStore(at: storeURL)
      let before = try Data(contentsOf: storeURL)
      let manager = NSMigrationManager(sourceModel: try Manager.version1(), destinationModel: try Manager.version2())
      let mapping = try Self.mappingModel { $0.sourceExpression = expression }
      do {
        try manager.migrateStore(from: storeURL, type: .sqlite, mapping: mapping, to: migratedURL, type: .sqlite)
        Issue.record("\(expression) migrated")
      } catch let error as ObjectGraphError {
        #expect(error.code == 134110, "\(error)")
        #expect(error.message.contains("NoteToNote") && error.message.contains(words), "\(error.message)")
      }
      #expect(Manager.noFiles(at: migratedURL))
      #expect(try Data(contentsOf: storeURL) == before)
    }
  }
}
