import EngineTestSupport
import Foundation
import ObjectGraph
import Testing

@Suite("NSPersistentStoreCoordinator.name")
struct CoordinatorNameTests {
  @Test("nil until set; set from many threads at once, it reads back one of the names set; description shows it")
  func name() async throws {
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: try Models.notes())
    #expect(coordinator.name == nil)
    #expect(coordinator.description == "<NSPersistentStoreCoordinator 0 store(s)>")
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<16 {
        group.addTask {
          coordinator.name = "stack \(index)"; _ = coordinator.name
        }
      }
    }
    let name = try #require(coordinator.name)
    #expect((0..<16).map { "stack \($0)" }.contains(name))
    coordinator.name = "app"
    #expect(coordinator.description == "<NSPersistentStoreCoordinator \"app\" 0 store(s)>")
  }
}
