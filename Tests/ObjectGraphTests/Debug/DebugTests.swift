import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

@Suite("Debug switches", .serialized, .temporaryFolders)
struct DebugTests {
  @Test("SQL debug logs each statement with its time", arguments: bothStoreTypes)
  func sqlDebug(type: NSPersistentStore.StoreType) throws {
    let lines = Locked<[String]>([])
    SQLDebug.isEnabled = true
    SQLDebug.logHandler = { line in lines.withLock { $0.append(line) } }
    defer {
      SQLDebug.isEnabled = false
      SQLDebug.logHandler = nil
    }
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let note = Note(context: stack.context)
      note.title = "logged"
      try stack.context.save()
      _ = try stack.context.fetch(NSFetchRequest<Note>(entityName: "Note"))
    }
    let logged = lines.withLock { $0 }
    #expect(logged.contains { $0.contains("INSERT INTO ZNOTE") && $0.hasSuffix("ms)") })
    #expect(logged.contains { $0.contains("SELECT t0.Z_PK") })
  }
}
