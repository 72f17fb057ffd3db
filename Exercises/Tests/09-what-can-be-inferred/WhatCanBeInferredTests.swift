// The checks of exercise 09. They run against your code in Exercises/09-what-can-be-inferred/Sources, or
// against the reference solution when WORKSHOP_SOLUTIONS=1. Each check runs in a child process, so that code
// which stops the process (fatalError(), try!, a force unwrap) fails one check with an explanation instead of
// ending the whole run.
//
// Nothing here says what can be inferred: every check writes a real store with version 1, opens it with your
// version 2, lets ObjectGraph migrate it as Core Data's lightweight migration would, and then reads what the
// user's notes became.
import EngineTestSupport
import Exercise09
import Exercise09Solution
import ExerciseChecks
import Foundation
import ObjectGraph
import TestSupport
import Testing

/// The function under test: your `makeVersion2()`, or the solution's.
enum Subject {
  static let makeVersion2: @Sendable () throws -> NSManagedObjectModel = CodeUnderTest.pick(
    starter: Exercise09.makeVersion2, solution: Exercise09Solution.makeVersion2)
}

/// Said when a check's child process stopped (a crash) instead of finishing.
let stoppedAdvice: Comment = """
  The check stopped the whole process. makeVersion2() builds a model: nothing in it should stop the program. \
  Look for a force unwrap (!), a try! or a fatalError() in it.
  """

@Suite("Exercise 09: what can be inferred", .temporaryFolders)
struct WhatCanBeInferredTests {
  @Test("A store written by version 1 opens with version 2: the migration is inferred, every note and notebook kept")
  func oldStoresOpen() async throws { try await runInChildProcess(.oldStoresOpen) }

  @Test("updatedAt is now modifiedAt, and every note keeps its date")
  func renameKeepsValues() async throws { try await runInChildProcess(.renameKeepsValues) }

  @Test("The new required wordCount is 0 in every old note")
  func newRequiredAttribute() async throws { try await runInChildProcess(.newRequiredAttribute) }

  @Test("body is now required: old notes without one have an empty body, the others keep theirs")
  func bodyBecomesRequired() async throws { try await runInChildProcess(.bodyBecomesRequired) }

  @Test("Notes have attachments: a new entity, and the migrated notes take attachments")
  func attachments() async throws { try await runInChildProcess(.attachments) }

  @Test("A numeric priorityLevel, and every note's old priority text still there to convert")
  func priorityKept() async throws { try await runInChildProcess(.priorityKept) }
}

/// Runs `check` in a child process (``ChildProcess``): code that stops or hangs the process fails this one
/// check, with ``stoppedAdvice`` and what the process printed, instead of ending the whole test run.
func runInChildProcess(_ check: ChildCheck) async throws {
  let scope = try TemporaryFolder()  // both runs' folders, removed by the suite's .temporaryFolders scope
  let finished = await #expect(processExitsWith: .success, stoppedAdvice) {
    [check = check as ChildCheck, scope = scope as TemporaryFolder] in ChildProcess.run(check, in: scope)
  }
  guard finished == nil else { return }
  // The process stopped. Run the check once more, only to collect what it printed before stopping.
  let stopped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
    [check = check as ChildCheck, scope = scope as TemporaryFolder] in ChildProcess.run(check, in: scope, recordingErrors: false)
  }
  ChildProcess.reportStop(stopped)
}

// MARK: - Version 1 and its store

/// Version 1 of the app, as it shipped, and a store it wrote.
enum VersionOne {
  /// The model, as the exercise's starter has it, made the way Core Data's documentation makes one.
  static func model() -> NSManagedObjectModel {
    func attribute(_ name: String, _ type: NSAttributeDescription.AttributeType, required: Bool = false)
      -> NSAttributeDescription
    {
      let attribute = NSAttributeDescription()
      attribute.name = name
      attribute.type = type
      attribute.isOptional = !required
      if required { attribute.defaultValue = "" }
      return attribute
    }
    let notebook = NSEntityDescription()
    notebook.name = "Notebook"
    let note = NSEntityDescription()
    note.name = "Note"
    let notes = NSRelationshipDescription()
    notes.name = "notes"
    notes.destinationEntity = note
    notes.maxCount = 0
    let notebookOfNote = NSRelationshipDescription()
    notebookOfNote.name = "notebook"
    notebookOfNote.destinationEntity = notebook
    notebookOfNote.maxCount = 1
    notes.inverseRelationship = notebookOfNote
    notebookOfNote.inverseRelationship = notes
    notebook.properties = [attribute("name", .string, required: true), notes]
    note.properties = [
      attribute("title", .string, required: true), attribute("body", .string), attribute("updatedAt", .date),
      attribute("priority", .string), notebookOfNote,
    ]
    let model = NSManagedObjectModel()
    model.entities = [notebook, note]
    return model
  }

  static let noteCount = 12

  /// Note `index`'s body: every third note has none.
  static func body(_ index: Int) -> String? { index.isMultiple(of: 3) ? nil : "Body \(index)" }
  /// Note `index`'s updatedAt: the even notes have one.
  static func updatedAt(_ index: Int) -> Date? {
    index.isMultiple(of: 2) ? Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index) * 3600) : nil
  }
  /// Note `index`'s priority: every fourth note has none.
  static func priority(_ index: Int) -> String? { index.isMultiple(of: 4) ? nil : ["low", "medium", "high"][index % 3] }
  /// Note `index`'s notebook's name.
  static func notebook(_ index: Int) -> String { index.isMultiple(of: 2) ? "Home" : "Work" }

  /// Writes the store: two notebooks, and ``noteCount`` notes, "Note 0", "Note 1", …, with the values above.
  static func writeStore(at url: URL) throws {
    let model = model()
    let stack = try StoreStack(model: model, at: url)
    let writer = stack.context
    try writer.performAndWait {
      guard let notebookEntity = model.entitiesByName["Notebook"], let noteEntity = model.entitiesByName["Note"] else {
        throw CocoaError(.coreData, userInfo: [NSLocalizedDescriptionKey: "Version 1 lacks an entity."])
      }
      let notebooks = Dictionary(
        uniqueKeysWithValues: ["Home", "Work"].map { name -> (String, NSManagedObject) in
          let notebook = NSManagedObject(entity: notebookEntity, insertInto: writer)
          notebook.setValue(name, forKey: "name")
          return (name, notebook)
        })
      for index in 0..<noteCount {
        let note = NSManagedObject(entity: noteEntity, insertInto: writer)
        note.setValue("Note \(index)", forKey: "title")
        note.setValue(body(index), forKey: "body")
        note.setValue(updatedAt(index), forKey: "updatedAt")
        note.setValue(priority(index), forKey: "priority")
        note.setValue(notebooks[notebook(index)], forKey: "notebook")
      }
      try writer.save()
    }
    try stack.close()
  }
}

// MARK: - Migrating with your version 2

/// A version 1 store, opened (and migrated) with your version 2.
struct Migrated {
  let model: NSManagedObjectModel
  let coordinator: NSPersistentStoreCoordinator
  let context: NSManagedObjectContext

  /// Builds your version 2, writes a version 1 store and opens it with version 2. Records why, and returns
  /// `nil`, when version 2 cannot be built or the store cannot be opened with it: in full when `explains` (the
  /// check that a version 1 store opens), else briefly, pointing to that check, since every check meets it.
  static func make(explains: Bool) throws -> Migrated? {
    let model: NSManagedObjectModel
    do {
      model = try Subject.makeVersion2()
    } catch {
      try rethrowIfNotDone(error)
      Issue.record(
        Comment(
          rawValue: explains
            ? "makeVersion2() threw, so there is no version 2 to open the store with. It threw: \(sentence(error))"
            : "Not checked: makeVersion2() threw (the check \(Explained.opens) shows the error)."))
      return nil
    }
    let storeURL = try TemporaryFolder().appending("Notes.sqlite")
    try VersionOne.writeStore(at: storeURL)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
    do {
      // As an app's stack opens its store: migration on, mapping inferred. (An app finds version 1 next to
      // version 2 in its .xcdatamodeld; here it is handed over.)
      try coordinator.addPersistentStore(
        type: .sqlite, at: storeURL,
        options: [
          NSMigratePersistentStoresAutomaticallyOption: true, NSInferMappingModelAutomaticallyOption: true,
          ObjectGraphMigrationSourceModelsOption: [VersionOne.model()],
        ])
    } catch {
      Issue.record(
        Comment(
          rawValue: explains
            ? explainFailedMigration(error)
            : """
            Not checked: the version 1 store did not open with your version 2 (error \((error as NSError).code)); the \
            check \(Explained.opens) says why.
            """))
      return nil
    }
    return Migrated(model: model, coordinator: coordinator, context: TutorialStack.context(.privateQueue, on: coordinator))
  }

  /// Each migrated note's value of `key`, by the note's title (`nil` when it has none, or not of type `T`).
  func values<T: Sendable>(_ key: String, as type: T.Type) throws -> [String: T?] {
    try context.performAndWait {
      let notes = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note"))
      return Dictionary(
        notes.map { note in ((note.value(forKey: "title") as? String) ?? "?", note.value(forKey: key) as? T) },
        uniquingKeysWith: { first, _ in first })
    }
  }

  /// Version 2's attribute `name` of entity `entity`, or `nil` (with the reason recorded) when it has none.
  func attribute(_ name: String, of entity: String = "Note", what: String) -> NSAttributeDescription? {
    guard let attribute = model.entitiesByName[entity]?.attributesByName[name] else {
      Issue.record("Version 2's \(entity) has no attribute '\(name)': \(what)")
      return nil
    }
    return attribute
  }
}

/// The check that explains a failed migration, which every other check meets too, by the first words of its name.
enum Explained {
  static let opens = "\"A store written by version 1 opens with version 2…\""
}

/// What a failed migration means, said with ObjectGraph's own message, and explained when the message shows
/// which kind of change it refused.
func explainFailedMigration(_ error: any Error) -> String {
  let engine = error as NSError
  guard engine.domain == NSCocoaErrorDomain else {
    return "The version 1 store could not be opened with your version 2: \(error)"
  }
  let said = engine.localizedDescription
  switch engine.code {
  case NSMigrationError:
    let meaning =
      said.contains("no default value")
      ? """
      A required attribute needs a value in every existing row, and the rows version 1 wrote have none: with a \
      default value, the migration writes it into every row that lacks one.
      """ : ""
    return """
      The migration started and stopped before writing anything (134110, the store is left as it was). Every \
      user who updates would meet this at launch. ObjectGraph says: "\(said)"\(meaning.isEmpty ? "" : " " + meaning)
      """
  case NSMigrationMissingMappingModelError:
    let meaning: String
    if said.contains("changed type") {
      meaning = """
        A lightweight migration cannot turn a value of one type into another: a type change is refused, also when \
        it comes with a renaming identifier. An attribute of the new type next to the old one can be filled in the \
        app's own code, after the migration, from the old one's values.
        """
    } else if said.contains("both take their values from") {
      meaning = """
        A renaming identifier moves an old attribute's values to the attribute that carries it; it does not copy \
        them, so only one attribute of version 2 can take them.
        """
    } else {
      meaning = ""
    }
    return """
      ObjectGraph cannot infer a mapping from version 1 to your version 2 (134140, the store is left as it was): \
      every user who updates would meet this at launch. It says: "\(said)"\(meaning.isEmpty ? "" : " " + meaning)
      """
  case NSMigrationMissingSourceModelError:
    return """
      ObjectGraph found no model that made this store (134130): "\(said)" The checks hand it the same \
      version 1 your starter began with. \(error)
      """
  default:
    return "The version 1 store could not be opened with your version 2: \(error)"
  }
}

// MARK: - The checks

/// The checks; each runs in a child process.
enum ChildCheck: String, Codable, Sendable, ChildProcessCheck {
  case oldStoresOpen, renameKeepsValues, newRequiredAttribute, bodyBecomesRequired, attachments, priorityKept

  func run() throws {
    guard let migrated = try Migrated.make(explains: self == .oldStoresOpen) else { return }
    switch self {
    case .oldStoresOpen: try Self.checkOldStoresOpen(migrated)
    case .renameKeepsValues: try Self.checkRenameKeepsValues(migrated)
    case .newRequiredAttribute: try Self.checkNewRequiredAttribute(migrated)
    case .bodyBecomesRequired: try Self.checkBodyBecomesRequired(migrated)
    case .attachments: try Self.checkAttachments(migrated)
    case .priorityKept: try Self.checkPriorityKept(migrated)
    }
  }

  private static func checkOldStoresOpen(_ migrated: Migrated) throws {
    let notes = try migrated.values("title", as: String.self)
    #expect(
      notes.count == VersionOne.noteCount,
      "Version 1 wrote \(VersionOne.noteCount) notes; after the migration the store holds \(notes.count).")
    let notebooks = try migrated.context.performAndWait {
      try migrated.context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Note")).map { note -> String in
        let title = note.value(forKey: "title") as? String ?? "?"
        let notebook = (note.value(forKey: "notebook") as? NSManagedObject)?.value(forKey: "name") as? String ?? "none"
        return "\(title): \(notebook)"
      }.sorted()
    }
    let expected = (0..<VersionOne.noteCount).map { "Note \($0): \(VersionOne.notebook($0))" }.sorted()
    #expect(notebooks == expected, "Every note should still be in its notebook, as version 1 left it.")
  }

  private static func checkRenameKeepsValues(_ migrated: Migrated) throws {
    guard let modifiedAt = migrated.attribute("modifiedAt", what: "version 2 calls updatedAt modifiedAt.") else { return }
    #expect(modifiedAt.attributeType == .dateAttributeType, "modifiedAt should still be a Date; it is \(modifiedAt.attributeType).")
    #expect(
      migrated.model.entitiesByName["Note"]?.attributesByName["updatedAt"] == nil,
      "Version 2's Note should not have updatedAt any more: it is called modifiedAt now.")
    let notes = try migrated.values("modifiedAt", as: Date.self)
    var kept = 0
    var wrong: [String] = []
    for index in 0..<VersionOne.noteCount {
      let found = notes["Note \(index)"] ?? nil
      if found == VersionOne.updatedAt(index) {
        if found != nil { kept += 1 }
      } else {
        wrong.append("Note \(index)")
      }
    }
    if kept == 0 {
      Issue.record(Comment(rawValue: whyTheDatesAreGone(renamingIdentifier: modifiedAt.renamingIdentifier)))
    } else {
      #expect(wrong.isEmpty, "These notes' modifiedAt is not their old updatedAt: \(wrong.joined(separator: ", ")).")
    }
  }

  /// Why a migration that succeeded left no note a modifiedAt, from the renaming identifier version 2 gave it.
  static func whyTheDatesAreGone(renamingIdentifier: String?) -> String {
    let gone = "The migration succeeded, and every date is gone: no note has a modifiedAt."
    let howItSeesIt = """
      It sees one attribute removed and another added, both of which it can infer, so it drops the old column and \
      adds an empty one, and nothing fails.
      """
    let fix = """
      Tell it the old name: set modifiedAt's renamingIdentifier to "updatedAt" (in Xcode, the Renaming ID in the \
      attribute's inspector).
      """
    switch renamingIdentifier {
    case nil:
      return """
        \(gone) Without a renaming identifier the migration cannot know that modifiedAt is updatedAt under a new \
        name. \(howItSeesIt) \(fix)
        """
    case "modifiedAt":
      return """
        \(gone) modifiedAt's renaming identifier is "modifiedAt", its own new name. A renaming identifier names the \
        attribute as the older version called it: the migration looks in version 1 for an attribute called \
        "modifiedAt", finds none, and treats modifiedAt as new. \(howItSeesIt) The identifier must name the old \
        attribute, not the new one: set it to "updatedAt".
        """
    case let other?:
      return """
        \(gone) modifiedAt's renaming identifier is "\(other)", and version 1 has no attribute of that name (its \
        attributes are title, body, updatedAt and priority), so the migration finds nothing to rename and treats \
        modifiedAt as new. \(howItSeesIt) The identifier must be the old attribute's name, exactly: "updatedAt".
        """
    }
  }

  private static func checkNewRequiredAttribute(_ migrated: Migrated) throws {
    guard let wordCount = migrated.attribute("wordCount", what: "version 2 adds wordCount, an Integer 32.") else { return }
    #expect(wordCount.attributeType == .integer32AttributeType, "wordCount should be an Integer 32; it is \(wordCount.attributeType).")
    #expect(!wordCount.isOptional, "wordCount should be required (isOptional: false): every note has a word count.")
    let notes = try migrated.values("wordCount", as: Int32.self)
    let counts = Set(notes.values.map { $0.map(String.init) ?? "none" })
    #expect(
      counts == ["0"],
      """
      Every note version 1 wrote should have a wordCount of 0 after the migration (the app counts the words \
      later); they have \(counts.sorted()). The migration writes an attribute's default value into every \
      existing row: give wordCount the default value 0 (Int32(0)).
      """)
  }

  private static func checkBodyBecomesRequired(_ migrated: Migrated) throws {
    guard let body = migrated.attribute("body", what: "body stays, as a required String.") else { return }
    #expect(body.attributeType == .stringAttributeType, "body should still be a String; it is \(body.attributeType).")
    #expect(!body.isOptional, "body should be required in version 2 (isOptional: false).")
    let notes = try migrated.values("body", as: String.self)
    var wrong: [String] = []
    for index in 0..<VersionOne.noteCount {
      let expected = VersionOne.body(index) ?? ""
      let found = notes["Note \(index)"] ?? nil
      if found != expected { wrong.append("Note \(index): \(found.map { "\"\($0)\"" } ?? "no body"), expected \"\(expected)\"") }
    }
    #expect(
      wrong.isEmpty,
      """
      Old notes without a body should have the empty string now, and the others keep theirs. The migration gives \
      rows that have no value the attribute's default: make it "". Not as expected:
      \(wrong.joined(separator: "\n"))
      """)
  }

  private static func checkAttachments(_ migrated: Migrated) throws {
    let model = migrated.model
    guard let attachment = model.entitiesByName["Attachment"] else {
      Issue.record("Version 2 should have an entity Attachment; its entities are \(model.entities.compactMap(\.name).sorted()).")
      return
    }
    guard let fileName = migrated.attribute("fileName", of: "Attachment", what: "an attachment has a fileName, a String.") else { return }
    #expect(fileName.attributeType == .stringAttributeType, "Attachment.fileName should be a String; it is \(fileName.attributeType).")
    guard let toAttachments = model.entitiesByName["Note"]?.relationshipsByName["attachments"] else {
      Issue.record("Version 2's Note should have a to-many relationship 'attachments' to Attachment.")
      return
    }
    #expect(toAttachments.isToMany, "Note.attachments should be to-many: a note may have any number of attachments.")
    #expect(toAttachments.destinationEntityName == "Attachment", "Note.attachments should lead to Attachment.")
    #expect(
      toAttachments.inverseRelationshipName == "note" && attachment.relationshipsByName["note"]?.isToMany == false,
      "Note.attachments's inverse should be Attachment.note, a to-one back to the note.")

    // The app attaches a file to a note version 1 wrote.
    let context = migrated.context
    try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Note")
      request.predicate = NSPredicate(format: "title == %@", "Note 1")
      guard let note = try context.fetch(request).first else {
        Issue.record("The migrated store should still hold 'Note 1'.")
        return
      }
      let file = NSManagedObject(entity: attachment, insertInto: context)
      file.setValue("photo.jpg", forKey: "fileName")
      file.setValue(note, forKey: "note")
      try context.save()
    }
    let reader = TutorialStack.context(.privateQueue, on: migrated.coordinator)
    let attached = try reader.performAndWait {
      try reader.fetch(NSFetchRequest<NSManagedObject>(entityName: "Attachment")).map { file in
        "\(file.value(forKey: "fileName") as? String ?? "?") on \((file.value(forKey: "note") as? NSManagedObject)?.value(forKey: "title") as? String ?? "no note")"
      }
    }
    #expect(
      attached == ["photo.jpg on Note 1"], "After saving an attachment on a migrated note, the store should hold it; it holds \(attached).")
  }

  private static func checkPriorityKept(_ migrated: Migrated) throws {
    guard let level = migrated.attribute("priorityLevel", what: "version 2 adds the priority as a number, priorityLevel.") else { return }
    #expect(level.attributeType == .integer16AttributeType, "priorityLevel should be an Integer 16; it is \(level.attributeType).")
    guard let priority = migrated.attribute("priority", what: "the old text priority must stay, so the app can convert it.") else { return }
    #expect(
      priority.attributeType == .stringAttributeType,
      "priority should still be the String it was: the app reads the old text to convert it; it is \(priority.attributeType).")
    let notes = try migrated.values("priority", as: String.self)
    var wrong: [String] = []
    for index in 0..<VersionOne.noteCount where (notes["Note \(index)"] ?? nil) != VersionOne.priority(index) {
      wrong.append("Note \(index)")
    }
    #expect(
      wrong.isEmpty,
      "Every note should keep the priority text version 1 wrote, until the app converts it; these lost theirs: \(wrong.joined(separator: ", "))."
    )
  }
}
