import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// Fetch indexes in the model: read from Xcode's `<fetchIndex>` and the legacy `indexed` flag, set in code, checked
/// when the model is made, and kept out of the version hash.
@Suite("Fetch indexes in the model", .temporaryFolders)
struct FetchIndexModelTests {
  /// An entity `E` with attributes `a` (String), `b` (Date), a to-one `one` and a to-many `many` (to `F`), plus
  /// `extra` inside `E`.
  private static func entities(extra: String = "") -> String {
    """
    <entity name="E" representedClassName="E">
        <attribute name="a" optional="YES" attributeType="String"/>
        <attribute name="b" optional="YES" attributeType="Date"/>
        <relationship name="one" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="F" \
    inverseName="back" inverseEntity="F"/>
        <relationship name="many" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="F" \
    inverseName="owner" inverseEntity="F"/>
        \(extra)
    </entity>
    <entity name="F">
        <relationship name="back" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="E" \
    inverseName="one" inverseEntity="E"/>
        <relationship name="owner" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="E" \
    inverseName="many" inverseEntity="E"/>
    </entity>
    """
  }

  private static func load(_ body: String) throws -> NSManagedObjectModel {
    let folder = try TemporaryFolder()
    return try NSManagedObjectModel(loadingContentsOf: folder.writeModel(named: "Indexes", body: body))
  }

  private static func entity(_ name: String, in model: NSManagedObjectModel) throws -> NSEntityDescription {
    try #require(model.entitiesByName[name], "model has no entity \(name)")
  }

  /// The tutorial's model, `Stages/NotesModel/DataModel.xcdatamodeld`, found from this file's place.
  static func tutorialModelURL(filePath: String = #filePath) throws -> URL {
    var folder = URL(fileURLWithPath: filePath).deletingLastPathComponent()
    while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
      let parent = folder.deletingLastPathComponent()
      try #require(parent.path != folder.path, "No Package.swift above \(filePath)")
      folder = parent
    }
    return folder.appendingPathComponent("Stages/NotesModel/DataModel.xcdatamodeld", isDirectory: true)
  }

  // MARK: - Loading

  @Test("the tutorial's DataModel 2 has byCreatedAt on Note.createdAt, descending; version 1 has no index")
  func tutorialModel() throws {
    let url = try Self.tutorialModelURL()
    let current = try Self.entity("Note", in: NSManagedObjectModel(loadingContentsOf: url))
    #expect(
      current.indexes == [
        NSFetchIndexDescription(
          name: "byCreatedAt",
          elements: [NSFetchIndexElementDescription(propertyName: "createdAt", isAscending: false, collationType: .binary)])
      ])
    let versions = try NSManagedObjectModel.versions(in: url)
    #expect(versions.map(\.name) == ["DataModel", "DataModel 2"])
    for (_, model) in versions {
      for entity in model.entities where !(model.versionIdentifiers == ["2"] && entity.entityName == "Note") {
        #expect(entity.indexes.isEmpty, "\(entity.entityName) in version \(model.versionIdentifiers)")
      }
    }
  }

  @Test("<fetchIndex> elements load in order, with their order and type; missing ones default to ascending Binary")
  func loadsFetchIndexes() throws {
    let model = try Self.load(
      Self.entities(
        extra: """
          <fetchIndex name="compound">
              <fetchIndexElement property="b" type="Binary" order="descending"/>
              <fetchIndexElement property="a" type="Binary" order="ascending"/>
              <fetchIndexElement property="one"/>
          </fetchIndex>
          <fetchIndex name="spatial">
              <fetchIndexElement property="a" type="RTree" order="ascending"/>
          </fetchIndex>
          """))
    let e = try Self.entity("E", in: model)
    #expect(e.indexes.map(\.name) == ["compound", "spatial"])
    #expect(
      e.indexes.first?.elements == [
        NSFetchIndexElementDescription(propertyName: "b", isAscending: false),
        NSFetchIndexElementDescription(propertyName: "a", isAscending: true),
        NSFetchIndexElementDescription(propertyName: "one", isAscending: true, collationType: .binary),
      ])
    #expect(e.indexes.last?.elements.first?.collationType == .rTree)
    #expect(e.indexes.first?.description == "compound(b desc, a asc, one asc)")
    #expect(try Self.entity("F", in: model).indexes.isEmpty)
  }

  @Test("the legacy indexed=\"YES\" flag is a one-element ascending index named by<Attribute>Index")
  func legacyIndexedFlag() throws {
    let model = try Self.load(
      """
      <entity name="E">
          <attribute name="remoteID" optional="YES" attributeType="String" indexed="YES"/>
          <attribute name="date" optional="YES" attributeType="Date" indexed="YES"/>
          <attribute name="plain" optional="YES" attributeType="String" indexed="NO"/>
          <attribute name="scratch" optional="YES" transient="YES" attributeType="String" indexed="YES"/>
          <fetchIndex name="byDateIndex">
              <fetchIndexElement property="date" type="Binary" order="descending"/>
          </fetchIndex>
      </entity>
      """)
    let e = try Self.entity("E", in: model)
    // Written indexes come first; a legacy flag whose index name is already written is not added twice, and the
    // flag on a transient attribute (which has no column) is not read.
    #expect(
      e.indexes == [
        NSFetchIndexDescription(
          name: "byDateIndex", elements: [NSFetchIndexElementDescription(propertyName: "date", isAscending: false)]),
        NSFetchIndexDescription(name: "byRemoteIDIndex", elements: [NSFetchIndexElementDescription(propertyName: "remoteID")]),
      ])
  }

  @Test("legacy flags load from the fixtures: Moody's remoteID and markedForDeletionDate", .needsFixtures)
  func legacyFlagsInFixtures() throws {
    let moody = try NSManagedObjectModel(
      loadingContentsOf: Fixtures.folder().appendingPathComponent("objcio__core-data__Moody.xcdatamodeld/Moody 6.xcdatamodel"))
    let names = Set(moody.entities.flatMap { $0.indexes.map(\.name) })
    #expect(names.isSuperset(of: ["byRemoteIDIndex", "byMarkedForDeletionDateIndex"]), "\(names.sorted())")
  }

  @Test("an older file's <compoundIndexes> become the fetch indexes Xcode converts them to: compoundIndex, compoundIndex1…")
  func compoundIndexesInFile() throws {
    let model = try Self.load(
      """
      <entity name="E">
          <attribute name="a" optional="YES" attributeType="String"/>
          <attribute name="b" optional="YES" attributeType="Date"/>
          <attribute name="scratch" optional="YES" transient="YES" attributeType="String"/>
          <fetchIndex name="compoundIndex1">
              <fetchIndexElement property="b" type="Binary" order="descending"/>
          </fetchIndex>
          <compoundIndexes>
              <compoundIndex>
                  <index value="a"/>
                  <index value="b"/>
              </compoundIndex>
              <compoundIndex>
                  <index value="b"/>
              </compoundIndex>
              <compoundIndex>
                  <index value="scratch"/>
                  <index value="b"/>
              </compoundIndex>
              <compoundIndex>
                  <index value="scratch"/>
              </compoundIndex>
          </compoundIndexes>
      </entity>
      """)
    let e = try Self.entity("E", in: model)
    // A written <fetchIndex> of a converted name wins; a transient element is left out, and an index left empty.
    #expect(e.indexes.map(\.description) == ["compoundIndex1(b desc)", "compoundIndex(a asc, b asc)", "compoundIndex2(b asc)"])
  }

  @Test("Moody's <compoundIndexes> load as fetch indexes", .needsFixtures)
  func compoundIndexesInFixtures() throws {
    let moody = try NSManagedObjectModel(
      loadingContentsOf: Fixtures.folder().appendingPathComponent("objcio__core-data__Moody.xcdatamodeld/Moody 6.xcdatamodel"))
    let compound = moody.entities.flatMap(\.indexes).filter { $0.name.hasPrefix("compoundIndex") }
    #expect(!compound.isEmpty)
    #expect(
      compound.contains { $0.elements.map(\.propertyName) == ["markedForRemoteDeletion", "markedForDeletionDate", "date"] },
      "\(compound)")
  }

  @Test("an element naming a to-many in an Xcode file is dropped, as Wikipedia 8 ships one", .needsFixtures)
  func toManyElementInXcodeFile() throws {
    let url = try Fixtures.folder().appendingPathComponent(
      "wikimedia__wikipedia-ios__Wikipedia.xcdatamodeld/Wikipedia 8.xcdatamodel")
    let article = try Self.entity("WMFArticle", in: NSManagedObjectModel(loadingContentsOf: url))
    let compound = try #require(article.indexes.first { $0.name == "compoundIndex3" })
    #expect(compound.elements.map(\.propertyName) == ["imageURLString", "savedDate"])

    let model = try Self.load(
      Self.entities(
        extra: #"<fetchIndex name="onlyMany"><fetchIndexElement property="many"/></fetchIndex>"#))
    #expect(try Self.entity("E", in: model).indexes.isEmpty)
  }

  @Test("an unknown index type or order in a file is refused, naming the line")
  func unknownTypeOrOrder() throws {
    for (element, fragment) in [
      (#"<fetchIndexElement property="a" type="Hash"/>"#, "type 'Hash'"),
      (#"<fetchIndexElement property="a" order="sideways"/>"#, "order 'sideways'"),
      (#"<fetchIndexElement type="Binary"/>"#, "has no property"),
    ] {
      let error = expectCode(.modelInvalid) {
        _ = try Self.load(Self.entities(extra: #"<fetchIndex name="x">\#(element)</fetchIndex>"#))
      }
      #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "")")
      #expect(error?.message.contains("(line ") == true, "\(error?.message ?? "")")
    }
  }

  // MARK: - Validation

  /// The notes model with `indexes` set on `Note` (before the model is made).
  private static func notesModel(noteIndexes: [NSFetchIndexDescription], transient: Bool = false) throws
    -> NSManagedObjectModel
  {
    let title = NSAttributeDescription(name: "title", type: .string)
    let scratch = NSAttributeDescription(name: "scratch", type: .string)
    scratch.isTransient = true
    let draft = NSRelationshipDescription(name: "draft", destination: "Notebook", inverse: nil)
    draft.isTransient = true
    let note = NSEntityDescription(
      name: "Note",
      properties: [
        .attribute(title), .attribute(scratch), .relationship(draft),
        .relationship(NSRelationshipDescription(name: "notebook", destination: "Notebook", inverse: "notes")),
      ])
    note.indexes = noteIndexes
    let notebook = NSEntityDescription(
      name: "Notebook",
      properties: [
        .relationship(NSRelationshipDescription(name: "notes", destination: "Note", inverse: "notebook", toMany: true))
      ])
    return try NSManagedObjectModel(entities: [notebook, note])
  }

  private static func index(_ name: String, _ properties: String...) -> NSFetchIndexDescription {
    NSFetchIndexDescription(name: name, elements: properties.map { NSFetchIndexElementDescription(propertyName: $0) })
  }

  @Test("indexes on attributes and to-one relationships are valid")
  func validIndexes() throws {
    let model = try Self.notesModel(noteIndexes: [Self.index("byTitle", "title", "notebook")])
    #expect(try Self.entity("Note", in: model).indexes.map(\.name) == ["byTitle"])
  }

  @Test(
    "each invalid index is modelInvalid naming entity, index and property",
    arguments: [
      ("missing", "Fetch index 'byMissing' of entity 'Note' names property 'missing', which the entity does not have"),
      ("scratch", "Fetch index 'byScratch' of entity 'Note' names property 'scratch', which is transient"),
      ("draft", "Fetch index 'byDraft' of entity 'Note' names property 'draft', which is transient"),
    ])
  func invalidElement(property: String, message: String) throws {
    let name = "by" + property.prefix(1).uppercased() + property.dropFirst()
    let error = expectCode(.modelInvalid) { _ = try Self.notesModel(noteIndexes: [Self.index(name, "title", property)]) }
    #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
  }

  @Test("an index on a to-many relationship made in code is refused")
  func toManyInCode() throws {
    let notebook = NSEntityDescription(
      name: "Notebook",
      properties: [
        .relationship(NSRelationshipDescription(name: "notes", destination: "Note", inverse: "notebook", toMany: true))
      ])
    notebook.indexes = [Self.index("byNotes", "notes")]
    let note = NSEntityDescription(
      name: "Note",
      properties: [.relationship(NSRelationshipDescription(name: "notebook", destination: "Notebook", inverse: "notes"))])
    let error = expectCode(.modelInvalid) { _ = try NSManagedObjectModel(entities: [notebook, note]) }
    #expect(
      error?.message.contains(
        "Fetch index 'byNotes' of entity 'Notebook' names property 'notes', which is a to-many relationship") == true,
      "\(error?.message ?? "")")
  }

  @Test("two indexes of one entity with the same name are refused; an index with no elements too")
  func duplicateNamesAndEmpty() throws {
    let error = expectCode(.modelInvalid) {
      _ = try Self.notesModel(noteIndexes: [Self.index("byTitle", "title"), Self.index("byTitle", "notebook")])
    }
    #expect(
      error?.message.contains("Entity 'Note' has two fetch indexes named 'byTitle'") == true, "\(error?.message ?? "")")
    let empty = expectCode(.modelInvalid) { _ = try Self.notesModel(noteIndexes: [Self.index("none")]) }
    #expect(empty?.message.contains("'none' of entity 'Note' has no elements") == true, "\(empty?.message ?? "")")
  }

  @Test("an index mixing R-tree and binary elements is refused, as Apple documents")
  func mixedKinds() throws {
    let mixed = NSFetchIndexDescription(
      name: "byBoth",
      elements: [
        NSFetchIndexElementDescription(propertyName: "title", collationType: .rTree),
        NSFetchIndexElementDescription(propertyName: "notebook"),
      ])
    let error = expectCode(.modelInvalid) { _ = try Self.notesModel(noteIndexes: [mixed]) }
    #expect(error?.message.contains("'byBoth' of entity 'Note' mixes R-tree and binary elements") == true, "\(error?.message ?? "")")
  }

  @Test("an Xcode file with an invalid index is refused naming the file")
  func invalidInFile() throws {
    let error = expectCode(.modelInvalid) {
      _ = try Self.load(Self.entities(extra: #"<fetchIndex name="byZ"><fetchIndexElement property="z"/></fetchIndex>"#))
    }
    #expect(error?.message.contains("Indexes.xcdatamodel/contents") == true, "\(error?.message ?? "")")
    #expect(error?.message.contains("Fetch index 'byZ' of entity 'E' names property 'z'") == true)
  }

  @Test("an index on an inherited property is fine, on the subentity")
  func inheritedProperty() throws {
    let model = try Self.load(
      """
      <entity name="Base" isAbstract="YES">
          <attribute name="createdAt" optional="YES" attributeType="Date"/>
      </entity>
      <entity name="Child" parentEntity="Base">
          <attribute name="title" optional="YES" attributeType="String"/>
          <fetchIndex name="byCreatedAtAndTitle">
              <fetchIndexElement property="createdAt" type="Binary" order="descending"/>
              <fetchIndexElement property="title" type="Binary" order="ascending"/>
          </fetchIndex>
      </entity>
      """)
    #expect(try Self.entity("Child", in: model).indexes.first?.elements.map(\.propertyName) == ["createdAt", "title"])
  }

  // MARK: - Version hash

  @Test("adding, changing or removing an index leaves the version hash as it was")
  func versionHashUnchanged() throws {
    let plain = try Self.notesModel(noteIndexes: [])
    let indexed = try Self.notesModel(noteIndexes: [Self.index("byTitle", "title"), Self.index("byNotebook", "notebook")])
    #expect(plain.entityVersionHashesByName == indexed.entityVersionHashesByName)

    let url = try Self.tutorialModelURL()
    let current = try NSManagedObjectModel(loadingContentsOf: url)
    let note = try Self.entity("Note", in: current)
    let before = note.versionHash
    note.indexes = []
    #expect(note.versionHash == before)
  }

  @Test("indexes are frozen with the model")
  func frozenWithModel() throws {
    let model = try Self.notesModel(noteIndexes: [Self.index("byTitle", "title")])
    model.freeze()
    #expect(model.isFrozen)
    #expect(try Self.entity("Note", in: model).state.isFrozen)
  }

  @Test("an index read from its entity knows the entity, and its elements their property and index")
  func backReferences() throws {
    let title = NSAttributeDescription(name: "title", type: .string)
    let created = NSAttributeDescription(name: "created", type: .date)
    let byCreated = NSFetchIndexElementDescription(property: created, collationType: .binary)
    byCreated.isAscending = false
    #expect(byCreated.propertyName == "created" && byCreated.property === created && byCreated.indexDescription == nil)
    let entity = NSEntityDescription(name: "Memo", properties: [.attribute(title), .attribute(created)])
    entity.indexes = [
      NSFetchIndexDescription(name: "byCreated", elements: [byCreated, NSFetchIndexElementDescription(propertyName: "title")])
    ]
    let index = try #require(entity.indexes.first)
    #expect(index.entity === entity)
    #expect(index.elements.map { $0.property?.name } == ["created", "title"])
    #expect(index.elements[1].property === title, "an element made by name finds its entity's property")
    #expect(index.elements.allSatisfy { $0.indexDescription?.name == "byCreated" && $0.indexDescription?.entity === entity })
    #expect(
      index == NSFetchIndexDescription(name: "byCreated", elements: [byCreated, NSFetchIndexElementDescription(propertyName: "title")]))
    #expect(index.elements[0] === byCreated, "the entity keeps the element objects it was given")
    index.name = "newestFirst"
    #expect(entity.indexes.map(\.name) == ["newestFirst"], "an index is an object: changing it changes the entity's")
    #expect(NSFetchIndexDescription(name: "x", elements: []).entity == nil)
  }

  @Test("an index given to a second entity, or one whose model is in use, is copied; a copy belongs to nobody")
  func adoptionCopies() throws {
    let model = try Self.notesModel(noteIndexes: [Self.index("byTitle", "title")])
    let first = try #require(try Self.entity("Note", in: model).indexes.first)
    let other = NSEntityDescription(name: "Memo", properties: [.attribute(NSAttributeDescription(name: "title", type: .string))])
    other.indexes = [first]
    let adopted = try #require(other.indexes.first)
    #expect(adopted !== first && adopted == first)
    #expect(adopted.entity === other && first.entity?.name == "Note")
    #expect(adopted.elements[0] !== first.elements[0] && adopted.elements[0].indexDescription === adopted)
    #expect(adopted.elements[0].property === other.propertiesByName["title"])

    model.freeze()
    #expect(first.state.isFrozen && first.elements.allSatisfy { $0.state.isFrozen })
    let third = NSEntityDescription(name: "Jot", properties: [.attribute(NSAttributeDescription(name: "title", type: .string))])
    third.indexes = [first]
    let unfrozen = try #require(third.indexes.first)
    #expect(unfrozen !== first && !unfrozen.state.isFrozen, "a frozen index given to a new entity is copied")
    unfrozen.name = "byTitleToo"
    #expect(first.name == "byTitle")

    let copy = try #require(first.copy() as? NSFetchIndexDescription)
    #expect(copy == first && copy !== first && copy.entity == nil && !copy.state.isFrozen)
    #expect(copy.elements[0].indexDescription === copy && copy.elements[0] !== first.elements[0])
    let element = try #require(first.elements[0].copy() as? NSFetchIndexElementDescription)
    #expect(element == first.elements[0] && element.indexDescription == nil)
  }

  @Test("indexes and elements are equal by value, with hashes to match")
  func equality() {
    let a = Self.index("byTitle", "title")
    let b = Self.index("byTitle", "title")
    #expect(a == b && a.hash == b.hash && Set([a, b]).count == 1)
    #expect(a != Self.index("byTitle", "title", "createdAt"))
    #expect(a != Self.index("byName", "title"))
    let descending = NSFetchIndexElementDescription(propertyName: "title", isAscending: false)
    #expect(descending != NSFetchIndexElementDescription(propertyName: "title"))
    #expect(descending != NSFetchIndexElementDescription(propertyName: "title", isAscending: false, collationType: .rTree))
    #expect(!a.isEqual("byTitle"))
  }
}
