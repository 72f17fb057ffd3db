import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

/// The predicate constructs over collections and bits: `median:`, `mode:`, `stddev:` of a to-many's values,
/// an aggregate or an array; the bitwise functions; the `noindex:` hint; Key-Value Coding's gathering
/// operators (`@distinctUnionOfObjects`, …); and a to-many's members by position, which is refused. Each
/// predicate is answered by SQLite and by the in-memory evaluator on the same objects, which must agree.
@Suite("Predicate collections and bits", .temporaryFolders)
struct PredicateCollectionTests {
  /// Notebooks A (notes a1…a5 rated 1, 2, 2, 3, 9), B (b1…b4 rated 4, 4, 6, 6), C (c1 rated 7) and Empty.
  /// Bodies: a1 and a2 "x", a4 "y", b1 "x", the others nil.
  private func populated(_ type: NSPersistentStore.StoreType) throws -> StoreStack {
    let stack = try StoreStack(type: type)
    try stack.context.performAndWait {
      let books: [(String, [(Int64, String?)])] = [
        ("A", [(1, "x"), (2, "x"), (2, nil), (3, "y"), (9, nil)]), ("B", [(4, "x"), (4, nil), (6, nil), (6, nil)]),
        ("C", [(7, nil)]), ("Empty", []),
      ]
      for (name, notes) in books {
        let notebook = Notebook(context: stack.context)
        notebook.name = name
        for (index, (rating, body)) in notes.enumerated() {
          let note = Note(context: stack.context)
          note.title = name.lowercased() + String(index + 1)
          note.rating = rating
          note.body = body
          note.notebook = notebook
        }
      }
      try stack.context.save()
    }
    return stack
  }

  private func notes(_ stack: StoreStack, _ format: String, _ arguments: Any?..., sourceLocation: SourceLocation = #_sourceLocation)
    throws -> [String]
  {
    try stack.agreedMatches(
      "Note", "title", NSPredicate(format: format, argumentArray: arguments.map { $0 as Any }), sourceLocation: sourceLocation)
  }

  private func notebooks(_ stack: StoreStack, _ format: String, _ arguments: Any?..., sourceLocation: SourceLocation = #_sourceLocation)
    throws -> [String]
  {
    try stack.agreedMatches(
      "Notebook", "name", NSPredicate(format: format, argumentArray: arguments.map { $0 as Any }), sourceLocation: sourceLocation)
  }

  @Test("median: and stddev: of a to-many's values: nil for none, the mean of the middle two for an even count", arguments: bothStoreTypes)
  func medianAndDeviation(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try notebooks(stack, "median:(notes.rating) == 2") == ["A"])
    #expect(try notebooks(stack, "median(notes.rating) == 5") == ["B"])
    #expect(try notebooks(stack, "median(notes.rating) == nil") == ["Empty"])
    #expect(try notebooks(stack, "median(notes.rating) > 4") == ["B", "C"])
    #expect(try notebooks(stack, "stddev:(notes.rating) == 1") == ["B"])
    #expect(try notebooks(stack, "stddev(notes.rating) == 0") == ["C"])
    // A: mean 3.4, squared distances 41.2 over 5 members: the population's deviation, 2.87…
    #expect(try notebooks(stack, "stddev(notes.rating) BETWEEN {2.87, 2.871}") == ["A"])
    #expect(try notebooks(stack, "stddev(notes.rating) == nil") == ["Empty"])
    // Through a to-one, and from the other side.
    #expect(try notes(stack, "median(notebook.notes.rating) == 5") == ["b1", "b2", "b3", "b4"])
    #expect(try notes(stack, "rating >= median(notebook.notes.rating) + stddev(notebook.notes.rating)") == ["a5", "b3", "b4", "c1"])
  }

  @Test("median:, mode:, stddev: of aggregates and array arguments", arguments: bothStoreTypes)
  func literalCollections(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try notes(stack, "median({rating, 4, 8}) == 4") == ["a1", "a2", "a3", "a4", "b1", "b2"])
    #expect(try notes(stack, "median(%@) == rating", [1, 2, 3]) == ["a2", "a3"])
    #expect(try notes(stack, "median(%@) == rating", [1, 2, 3, 3]).isEmpty, "2.5, which no rating is")
    #expect(try notes(stack, "stddev({1, 3}) == rating") == ["a1"])
    #expect(try notes(stack, "stddev({2, 4, 4, 4, 5, 5, 7, 9}) * 3 == rating") == ["b3", "b4"])
    #expect(try notes(stack, "rating IN mode({2, 2, rating})") == ["a2", "a3"])
    #expect(try notes(stack, "mode({rating, 4, 4, 6, 6})[SIZE] == 2") == ["a1", "a2", "a3", "a4", "a5", "c1"])
    #expect(try notes(stack, "median(%@) == nil", nil).count == 10)
    #expect(try notes(stack, "median({}) == nil").count == 10)
  }

  @Test(
    "mode: gives the most frequent values, compared as a to-many's: ANY, ALL, NONE, IN, CONTAINS, [FIRST], [SIZE]",
    arguments: bothStoreTypes)
  func mode(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try notebooks(stack, "mode:(notes.rating) == 6") == ["B"])
    #expect(try notebooks(stack, "ANY mode(notes.rating) == 2") == ["A"])
    #expect(try notebooks(stack, "ALL mode(notes.rating) > 3") == ["B", "C", "Empty"], "ALL of none is true")
    #expect(try notebooks(stack, "NONE mode(notes.rating) == 2") == ["B", "C", "Empty"])
    #expect(try notebooks(stack, "2 IN mode(notes.rating)") == ["A"])
    #expect(try notebooks(stack, "mode(notes.rating) CONTAINS 4") == ["B"])
    #expect(try notebooks(stack, "mode(notes.rating)[SIZE] == 2") == ["B"])
    #expect(try notebooks(stack, "mode(notes.rating)[SIZE] == 0") == ["Empty"])
    #expect(try notebooks(stack, "mode(notes.rating)[FIRST] == 4") == ["B"])
    #expect(try notebooks(stack, "mode(notes.rating)[LAST] == 6") == ["B"])
    #expect(try notebooks(stack, "mode(notes.rating)[1] == 6") == ["B"])
    #expect(try notebooks(stack, "mode(notes.rating)[FIRST] == nil") == ["Empty"])
    #expect(try notebooks(stack, "median(mode(notes.rating)) == 5") == ["B"])
    #expect(try notes(stack, "rating IN mode(notebook.notes.rating)") == ["a2", "a3", "b1", "b2", "b3", "b4", "c1"])
  }

  @Test("The bitwise functions work on whole numbers, as SQLite's operators do", arguments: bothStoreTypes)
  func bitwise(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try notes(stack, "bitwiseAnd:with:(rating, 1) == 1") == ["a1", "a4", "a5", "c1"])
    #expect(try notes(stack, "bitwiseOr(rating, 4) == 6") == ["a2", "a3", "b3", "b4"])
    #expect(try notes(stack, "bitwiseXor:with:(rating, 3) == 5") == ["b3", "b4"])
    #expect(try notes(stack, "bitwiseXor(rating, %@) == 0", 7) == ["c1"])
    #expect(try notes(stack, "leftshift:by:(rating, 2) == 36") == ["a5"])
    #expect(try notes(stack, "rightshift:by:(rating, 1) == 3") == ["b3", "b4", "c1"])
    #expect(try notes(stack, "onesComplement:(rating) == -8") == ["c1"])
    // SQLite's rules at the edges: 64 or more shifts everything out, a negative shift goes the other way,
    // a right shift keeps the sign, a double is cut toward zero.
    #expect(try notes(stack, "leftshift(rating, 64) == 0").count == 10)
    #expect(try notes(stack, "rightshift(-rating, 70) == -1").count == 10)
    #expect(try notes(stack, "leftshift(rating, -1) == 1") == ["a2", "a3", "a4"])
    #expect(try notes(stack, "bitwiseAnd(%@, rating) == 1", 3.7) == ["a1", "a5"])
    #expect(try notes(stack, "bitwiseAnd(-3.7, 7) == 5").count == 10)
    #expect(try notes(stack, "bitwiseOr(%@, rating) == nil", nil).count == 10)
    #expect(try notebooks(stack, "bitwiseAnd(notes.@count, 4) == 4") == ["A", "B"])
  }

  @Test("noindex: is its argument, on attributes, to-manys and collection operators", arguments: bothStoreTypes)
  func noindex(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try notes(stack, "noindex:(title) == 'a1'") == ["a1"])
    #expect(try notes(stack, "noindex(rating) > 8") == ["a5"])
    #expect(try notes(stack, "noindex(notebook.name) == 'C'") == ["c1"])
    #expect(try notebooks(stack, "ANY noindex:(notes.rating) == 7") == ["C"])
    #expect(try notebooks(stack, "noindex(notes.@count) == 4") == ["B"])
    #expect(try notebooks(stack, "3 IN noindex(notes.rating)") == ["A"])
  }

  @Test("noindex: reaches SQLite as its unary +, which keeps a column's index out of the query")
  func noindexInSQL() throws {
    let log = Locked<[String]>([])
    let stack = try StoreStack(
      model: try Models.notes(), type: .sqlite, fileName: "Traced.sqlite",
      options: [ObjectGraphSQLTraceOption: { sql in log.withLock { $0.append(sql) } } as @Sendable (String) -> Void])
    try stack.context.performAndWait {
      let request = NSFetchRequest<Note>(entityName: "Note")
      request.predicate = NSPredicate(format: "noindex:(title) == 'a' AND noindex(rating) > 1")
      _ = try stack.context.fetch(request)
    }
    let fetch = log.withLock { $0 }.last { $0.contains("ZTITLE") } ?? ""
    #expect(fetch.contains("(+t0.ZTITLE)") && fetch.contains("(+t0.ZRATING)"), "\(fetch)")
  }

  @Test(
    "@distinctUnionOfObjects and the other gathering operators: the values without nils, each once for @distinct…",
    arguments: bothStoreTypes)
  func unions(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    #expect(try notebooks(stack, "ANY notes.@distinctUnionOfObjects.body == 'x'") == ["A", "B"])
    #expect(try notebooks(stack, "'y' IN notes.@distinctUnionOfSets.body") == ["A"])
    // The nils are not in the union, so ALL ranges over the bodies there are.
    #expect(try notebooks(stack, "ALL notes.@unionOfObjects.body == 'x'") == ["B", "C", "Empty"])
    #expect(try notebooks(stack, "ALL notes.body == 'x'") == ["Empty"])
    #expect(try notebooks(stack, "NONE notes.@unionOfArrays.body == 'x'") == ["C", "Empty"])
    #expect(try notebooks(stack, "notes.@distinctUnionOfObjects.body[SIZE] == 2") == ["A"])
    #expect(try notebooks(stack, "notes.@unionOfObjects.body[SIZE] == 3") == ["A"])
    #expect(try notebooks(stack, "notes.@unionOfArrays.rating[SIZE] == 4") == ["B"])
    #expect(try notebooks(stack, "notes.@distinctUnionOfArrays.rating[SIZE] == 2") == ["B"])
    #expect(try notebooks(stack, "median(notes.@distinctUnionOfObjects.rating) == 2.5") == ["A"])
    #expect(try notebooks(stack, "ANY %K == 'x'", "notes.@distinctUnionOfObjects.body") == ["A", "B"])
    #expect(try notes(stack, "ANY notebook.notes.@distinctUnionOfObjects.body == 'y'") == ["a1", "a2", "a3", "a4", "a5"])
    #expect(try notebooks(stack, "SUBQUERY(notes, $n, $n.notebook.notes.@distinctUnionOfObjects.body[SIZE] == 1).@count > 0") == ["B"])
  }

  @Test("Unsaved objects answer in memory as the store answers once they are saved", arguments: bothStoreTypes)
  func pendingChanges(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    try stack.context.performAndWait {
      let notebook = Notebook(context: stack.context)
      notebook.name = "New"
      for rating in [5, 5, 8] as [Int64] {
        let note = Note(context: stack.context)
        note.title = "n\(rating)"
        note.rating = rating
        note.body = "x"
        note.notebook = notebook
      }
      let request = NSFetchRequest<Notebook>(entityName: "Notebook")
      request.predicate = NSPredicate(
        format: "median(notes.rating) == 5 AND 5 IN mode(notes.rating) AND notes.@distinctUnionOfObjects.body[SIZE] == 1")
      #expect(try stack.context.fetch(request).compactMap(\.name) == ["New"])
      try stack.context.save()
    }
    #expect(
      try notebooks(stack, "median(notes.rating) == 5 AND 5 IN mode(notes.rating) AND notes.@distinctUnionOfObjects.body[SIZE] == 1") == [
        "New"
      ])
  }

  @Test("NSExpression(forFunction:arguments:) builds them as the format does")
  func builtInCode() throws {
    let stack = try populated(.sqlite)
    let median = NSComparisonPredicate(
      leftExpression: NSExpression(forFunction: "median:", arguments: [NSExpression(forKeyPath: "notes.rating")]),
      rightExpression: NSExpression(forConstantValue: 5), modifier: .direct, type: .equalTo, options: [])
    #expect(try stack.agreedMatches("Notebook", "name", median) == ["B"])
    #expect(median.engineFormat == "median:(notes.rating) == 5")
    let deviation = NSComparisonPredicate(
      leftExpression: NSExpression(forFunction: "stddev:", arguments: [NSExpression(forConstantValue: [2, 4, 4, 4, 5, 5, 7, 9])]),
      rightExpression: NSExpression(forKeyPath: "rating"), modifier: .direct, type: .equalTo, options: [])
    #expect(try stack.agreedMatches("Note", "title", deviation) == ["a2", "a3"])
    let bits = NSComparisonPredicate(
      leftExpression: NSExpression(
        forFunction: "bitwiseAnd:with:", arguments: [NSExpression(forKeyPath: "rating"), NSExpression(forConstantValue: 6)]),
      rightExpression: NSExpression(forConstantValue: 6), modifier: .direct, type: .equalTo, options: [])
    #expect(try stack.agreedMatches("Note", "title", bits) == ["b3", "b4", "c1"])
    let hint = NSComparisonPredicate(
      leftExpression: NSExpression(forFunction: "noindex:", arguments: [NSExpression(forKeyPath: "title")]),
      rightExpression: NSExpression(forConstantValue: "c1"), modifier: .direct, type: .equalTo, options: [])
    #expect(try stack.agreedMatches("Note", "title", hint) == ["c1"])
  }

  @Test("predicateFormat prints them as Apple names them, and the print parses back to the same predicate")
  func formatRoundTrip() throws {
    for format in [
      "median:(notes.rating) == 2", "mode(notes.rating)[FIRST] == 1", "2 IN mode:({1, 2, 2})", "stddev(%@) > 1",
      "bitwiseAnd:with:(rating, 1) == 1", "onesComplement(rating) < 0", "leftshift(rating, 2) == 4", "noindex:(title) == 'a'",
      "ANY notes.@distinctUnionOfObjects.body == 'x'", "notes.@unionOfObjects.body[SIZE] == 2", "ALL notes.@distinctUnionOfSets.rating > 1",
    ] {
      let predicate = NSPredicate(format: format, argumentArray: format.contains("%@") ? [[1, 2]] : [])
      let reparsed = NSPredicate(format: predicate.engineFormat)
      #expect(reparsed.node == predicate.node, "\(format) printed as \(predicate.engineFormat)")
    }
    #expect(NSPredicate(format: "median(notes.rating) == 2").engineFormat == "median:(notes.rating) == 2")
    #expect(NSPredicate(format: "bitwiseXor(rating, 1) == 2").engineFormat == "bitwiseXor:with:(rating, 1) == 2")
    #expect(
      NSPredicate(format: "ANY notes.@distinctunionofobjects.body == 'x'").engineFormat == #"ANY notes.@distinctUnionOfObjects.body == "x""#
    )
  }

  @Test(
    "Misuse is refused alike by the store and in memory: one value to median:, strings to bits, a union or mode: as one value",
    arguments: bothStoreTypes)
  func misuse(type: NSPersistentStore.StoreType) throws {
    let stack = try populated(type)
    let context = stack.freshContext()
    try context.performAndWait {
      let note = try context.fetch(NSFetchRequest<Note>(entityName: "Note"))[0]
      let notebook = try context.fetch(NSFetchRequest<Notebook>(entityName: "Notebook")).first { $0.name == "A" }
      /// Checks that the store and the evaluator refuse the predicate alike, each naming `mentioned`.
      func refused(_ entity: String, _ format: String, _ code: ObjectGraphError.Code, _ mentioned: String) {
        let predicate = NSPredicate(format: format)
        let request = NSFetchRequest<NSManagedObject>(entityName: entity)
        request.predicate = predicate
        let inSQL = expectCode(code) { _ = try context.fetch(request) }
        let object: NSManagedObject? = entity == "Note" ? note : notebook
        let inMemory = expectCode(code) { _ = try FetchPredicate(predicate).evaluate(with: object) }
        for error in [inSQL, inMemory] {
          #expect(error?.message.contains(mentioned) == true, "\(format): \(error?.message ?? "")")
        }
      }
      refused("Note", "median(rating) == 1", .predicateSyntax, "reduces a collection")
      refused("Note", "stddev(title) == 1", .predicateSyntax, "reduces a collection")
      refused("Notebook", "median(notes.title) == 1", .invalidValue, "'median:' works on numbers")
      refused("Note", "bitwiseAnd(title, 1) == 1", .invalidValue, "'bitwiseAnd:with:' works on numbers")
      refused("Note", "onesComplement(%@) == 1".replacingOccurrences(of: "%@", with: "'a'"), .invalidValue, "onesComplement:")
      refused("Notebook", "sqrt(notes.@unionOfObjects.rating) > 1", .predicateSyntax, "collection")
      refused("Notebook", "mode(notes.rating) + 1 > 2", .predicateSyntax, "collection")
      // A to-many's members by position: an unordered to-many has no order to pick by.
      refused("Notebook", "notes[FIRST] == nil", .predicateSyntax, "by position")
      refused("Notebook", "notes.rating[0] == 1", .predicateSyntax, "by position")
      refused("Notebook", "notes.@distinctUnionOfObjects.rating[LAST] == 1", .predicateSyntax, "by position")
    }
    for (format, mentioned) in [
      ("notes.@unionOfObjects == 1", "needs the key"), ("notes.@median.rating > 1", "@distinctUnionOfObjects"),
      ("notes.@distinctUnionOfObjects.tags.@sum.rating > 1", "one collection operator"),
      ("rating IN sqrt(4)", "IN needs a collection"), ("distanceToLocation:fromLocation:(a, b) > 1", "distanceToLocation"),
    ] {
      let error = expectCode(.predicateSyntax) { _ = try FetchPredicate(NSPredicate(format: format)) }
      #expect(error?.message.contains(mentioned) == true, "\(format): \(error?.message ?? "")")
    }
  }

  /// Playlists whose songs (an ordered to-many, kept on the songs' side) each have a title, a length and an
  /// artist, and tags (an ordered many-to-many, kept in a join table).
  private func playlists(_ type: NSPersistentStore.StoreType) throws -> StoreStack {
    let songs = NSRelationshipDescription(name: "songs", destination: "Song", inverse: "playlist", toMany: true)
    songs.isOrdered = true
    let tags = NSRelationshipDescription(name: "tags", destination: "Label", inverse: "playlists", toMany: true)
    tags.isOrdered = true
    let model = try NSManagedObjectModel(entities: [
      NSEntityDescription(
        name: "Playlist",
        properties: [
          .attribute(NSAttributeDescription(name: "name", type: .string)), .relationship(songs), .relationship(tags),
          .relationship(NSRelationshipDescription(name: "fans", destination: "Artist", inverse: "favourite", toMany: true)),
        ]),
      NSEntityDescription(
        name: "Song",
        properties: [
          .attribute(NSAttributeDescription(name: "title", type: .string)),
          .attribute(NSAttributeDescription(name: "length", type: .integer64)),
          .relationship(NSRelationshipDescription(name: "playlist", destination: "Playlist", inverse: "songs")),
          .relationship(NSRelationshipDescription(name: "artist", destination: "Artist", inverse: "songs")),
        ]),
      NSEntityDescription(
        name: "Artist",
        properties: [
          .attribute(NSAttributeDescription(name: "name", type: .string)),
          .relationship(NSRelationshipDescription(name: "songs", destination: "Song", inverse: "artist", toMany: true)),
          .relationship(NSRelationshipDescription(name: "favourite", destination: "Playlist", inverse: "fans")),
        ]),
      NSEntityDescription(
        name: "Label",
        properties: [
          .attribute(NSAttributeDescription(name: "name", type: .string)),
          .relationship(NSRelationshipDescription(name: "playlists", destination: "Playlist", inverse: "tags", toMany: true)),
        ]),
    ])
    let stack = try StoreStack(model: model, type: type)
    try stack.context.performAndWait {
      let context = stack.context
      func make(_ entity: String, _ values: [String: Any]) -> NSManagedObject {
        let object = NSEntityDescription.insertNewObject(forEntityName: entity, into: context)
        for (key, value) in values { object.setValue(value, forKey: key) }
        return object
      }
      let ann = make("Artist", ["name": "Ann"])
      let bob = make("Artist", ["name": "Bob"])
      let labels = ["calm", "loud", "old"].map { make("Label", ["name": $0]) }
      // Songs are made in an order of their own, so that the lists' order is not their rows'.
      let z = make("Song", ["title": "Zed", "length": Int64(300), "artist": bob])
      let a = make("Song", ["title": "Aye", "length": Int64(200), "artist": ann])
      let m = make("Song", ["title": "Em", "length": Int64(100)])
      let b = make("Song", ["title": "Bee", "length": Int64(250), "artist": ann])
      make("Playlist", ["name": "Morning", "songs": NSOrderedSet(array: [m, z, a]), "tags": NSOrderedSet(array: [labels[2], labels[0]])])
        .setValue(NSSet(object: ann), forKey: "fans")
      _ = make("Playlist", ["name": "Night", "songs": NSOrderedSet(array: [b]), "tags": NSOrderedSet(array: [labels[1]])])
      _ = make("Playlist", ["name": "Silent"])
      try context.save()
    }
    return stack
  }

  @Test("[FIRST], [LAST] and [n] pick from an ordered to-many in its order, from a join table too", arguments: bothStoreTypes)
  func orderedPositions(type: NSPersistentStore.StoreType) throws {
    let stack = try playlists(type)
    func lists(_ format: String, _ arguments: Any?..., sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
      try stack.agreedMatches(
        "Playlist", "name", NSPredicate(format: format, argumentArray: arguments.map { $0 as Any }), sourceLocation: sourceLocation)
    }
    #expect(try lists("songs.title[FIRST] == 'Em'") == ["Morning"])
    #expect(try lists("songs.title[LAST] == 'Aye'") == ["Morning"])
    #expect(try lists("songs.title[1] == 'Zed'") == ["Morning"])
    #expect(try lists("songs.title[3] == nil") == ["Morning", "Night", "Silent"], "past the end is nil")
    #expect(try lists("songs.title[FIRST] == nil") == ["Silent"])
    #expect(try lists("songs.length[LAST] > 220") == ["Night"])
    #expect(try lists("songs.artist.name[LAST] == 'Ann'") == ["Morning", "Night"])
    #expect(try lists("songs.artist.name[FIRST] == nil") == ["Morning", "Silent"], "Em has no artist")
    #expect(try lists("tags.name[FIRST] == 'old'") == ["Morning"])
    #expect(try lists("tags.name[LAST] == 'calm'") == ["Morning"])
    #expect(try lists("songs.length[0] + songs.length[2] == 300") == ["Morning"])
    #expect(try lists("SUBQUERY(songs, $s, $s.playlist.songs.title[LAST] == $s.title).@count == 1") == ["Morning", "Night"])
    let (_, context) = try stack.reader()
    let zed = try context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Song")
      request.predicate = NSPredicate(format: "title == 'Zed'")
      return try context.fetch(request)[0].objectID
    }
    #expect(try stack.agreedMatches("Playlist", "name", NSPredicate(format: "songs[1] == %@", zed)) == ["Morning"])
    // Through a to-one, from the song's side.
    #expect(try stack.agreedMatches("Song", "title", NSPredicate(format: "playlist.songs[FIRST] == SELF")) == ["Bee", "Em"])
    // Reordered: the store and memory follow the new order.
    try stack.context.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Playlist")
      request.predicate = NSPredicate(format: "name == 'Morning'")
      let morning = try stack.context.fetch(request)[0]
      morning.mutableOrderedSetValue(forKey: "songs").moveObjects(at: IndexSet(integer: 2), to: 0)
      #expect(try FetchPredicate(NSPredicate(format: "songs.title[FIRST] == 'Aye'")).evaluate(with: morning))
      try stack.context.save()
    }
    #expect(try lists("songs.title[FIRST] == 'Aye'") == ["Morning"])
    #expect(try lists("songs.title[LAST] == 'Zed'") == ["Morning"])
  }

  @Test("Positions in an unordered to-many, or through two to-manys, are refused alike", arguments: bothStoreTypes)
  func unorderedPositions(type: NSPersistentStore.StoreType) throws {
    let stack = try playlists(type)
    let (_, context) = try stack.reader()
    try context.performAndWait {
      let artist = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Artist"))[0]
      for format in [
        "songs[FIRST] == nil", "songs.title[0] == 'Aye'", "favourite.fans.name[LAST] == nil", "songs.playlist.songs.title[FIRST] == nil",
      ] {
        let predicate = NSPredicate(format: format)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Artist")
        request.predicate = predicate
        let inSQL = expectCode(.predicateSyntax) { _ = try context.fetch(request) }
        let inMemory = expectCode(.predicateSyntax) { _ = try FetchPredicate(predicate).evaluate(with: artist) }
        for error in [inSQL, inMemory] {
          #expect(error?.message.contains("have no order") == true, "\(format): \(error?.message ?? "")")
        }
      }
    }
  }
}
