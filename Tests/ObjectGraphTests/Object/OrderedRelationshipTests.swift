import EngineTestSupport
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ObjectGraph

/// A playlist whose songs keep the order the listener gave them, read as a typed array.
final class OrderedPlaylist: NSManagedObject {
  @ObjectGraphManaged var name: String?
  @ObjectGraphManaged var songs: [NSManagedObject]
  @ObjectGraphManaged var songSet: NSOrderedSet
}

/// Ordered to-many relationships: members kept in the order given, through saves, child contexts,
/// inverses, fetches and migrations, and stored in Core Data's ordering columns (`Z_FOK_…`).
@Suite("Ordered relationships", .temporaryFolders)
struct OrderedRelationshipTests {
  /// Playlist ->> Song (ordered, inverse to-one `playlist`: the order sits on the song's row);
  /// Mix ->> Song (ordered, inverse to-many `mixes`: the order sits in the join table).
  static func model(ordered: Bool = true) throws -> NSManagedObjectModel {
    let songs = NSRelationshipDescription(
      name: "songs", destination: "Song", inverse: "playlist", toMany: true, deleteRule: .cascadeDeleteRule)
    songs.isOrdered = ordered
    let mixSongs = NSRelationshipDescription(name: "songs", destination: "Song", inverse: "mixes", toMany: true)
    mixSongs.isOrdered = ordered
    return try NSManagedObjectModel(entities: [
      NSEntityDescription(
        name: "Playlist", managedObjectClass: OrderedPlaylist.self,
        properties: [.attribute(NSAttributeDescription(name: "name", type: .string)), .relationship(songs)]),
      NSEntityDescription(
        name: "Song",
        properties: [
          .attribute(NSAttributeDescription(name: "title", type: .string)),
          .relationship(NSRelationshipDescription(name: "playlist", destination: "Playlist", inverse: "songs")),
          .relationship(NSRelationshipDescription(name: "mixes", destination: "Mix", inverse: "songs", toMany: true)),
        ]),
      NSEntityDescription(
        name: "Mix", properties: [.attribute(NSAttributeDescription(name: "name", type: .string)), .relationship(mixSongs)]),
    ])
  }

  static func titles(_ value: Any?) -> [String] {
    ((value as? NSOrderedSet)?.array ?? []).compactMap { ($0 as? NSManagedObject)?.value(forKey: "title") as? String }
  }

  /// A playlist named "list" and a mix named "mix", both holding songs `titles` in that order.
  static func populate(_ context: NSManagedObjectContext, _ titles: [String]) -> (playlist: NSManagedObject, mix: NSManagedObject) {
    let model = context.persistentStoreCoordinator?.managedObjectModel
    let playlist = NSManagedObject(
      entity: model?.entitiesByName["Playlist"] ?? NSEntityDescription(name: "?", properties: []), insertInto: context)
    playlist.setValue("list", forKey: "name")
    let mix = NSManagedObject(entity: model?.entitiesByName["Mix"] ?? NSEntityDescription(name: "?", properties: []), insertInto: context)
    mix.setValue("mix", forKey: "name")
    let songs = titles.map { title -> NSManagedObject in
      let song = NSManagedObject(
        entity: model?.entitiesByName["Song"] ?? NSEntityDescription(name: "?", properties: []), insertInto: context)
      song.setValue(title, forKey: "title")
      return song
    }
    playlist.setValue(songs, forKey: "songs")
    mix.setValue(NSOrderedSet(array: songs.reversed()), forKey: "songs")
    return (playlist, mix)
  }

  static func fetchOne(_ entity: String, _ context: NSManagedObjectContext) throws -> NSManagedObject {
    try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: entity)).first)
  }

  @Test("The order given is the order read back, after a save and from another coordinator", arguments: bothStoreTypes)
  func roundTrip(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: Self.model(), type: type)
    try stack.context.performAndWait {
      let (playlist, mix) = Self.populate(stack.context, ["c", "a", "d", "b"])
      #expect(Self.titles(playlist.value(forKey: "songs")) == ["c", "a", "d", "b"])
      #expect(Self.titles(mix.value(forKey: "songs")) == ["b", "d", "a", "c"])
      try stack.context.save()
    }
    let (_, reader) = try stack.reader()
    try reader.performAndWait {
      let playlist = try Self.fetchOne("Playlist", reader)
      #expect(Self.titles(playlist.value(forKey: "songs")) == ["c", "a", "d", "b"])
      #expect(Self.titles(try Self.fetchOne("Mix", reader).value(forKey: "songs")) == ["b", "d", "a", "c"])
      // The typed property reads the same list.
      let typed = try #require(playlist as? OrderedPlaylist)
      #expect(typed.songs.compactMap { $0.value(forKey: "title") as? String } == ["c", "a", "d", "b"])
    }
    // What reached the file: Core Data's ordering columns, positions 1024 apart.
    if let rows = try stack.fileRows("SELECT ZTITLE, Z_FOK_PLAYLIST FROM ZSONG ORDER BY Z_FOK_PLAYLIST") {
      #expect(rows.map { $0["ZTITLE"] as String } == ["c", "a", "d", "b"])
      #expect(rows.map { $0["Z_FOK_PLAYLIST"] as Int64? } == [1024, 2048, 3072, 4096])
    }
    if let rows = try stack.fileRows("SELECT * FROM Z_1SONGS") {
      #expect(rows.count == 4)
      #expect(Set(rows.first.map { Array($0.columnNames) } ?? []) == ["Z_1MIXES", "Z_3SONGS", "Z_FOK_3SONGS"])
    }
  }

  @Test("mutableOrderedSetValue(forKey:) inserts, moves, swaps, replaces and removes, and the save writes the new order")
  func mutableOrderedSet() throws {
    let stack = try StoreStack(model: Self.model())
    let playlistID = try stack.context.performAndWait {
      let (playlist, _) = Self.populate(stack.context, ["a", "b", "c"])
      try stack.context.save()
      return playlist.objectID
    }
    let (_, editor) = try stack.reopened()
    try editor.performAndWait {
      let playlist = try editor.existingObject(with: playlistID)
      let songs = playlist.mutableOrderedSetValue(forKey: "songs")
      #expect(songs.count == 3 && songs.map { $0.value(forKey: "title") as? String } == ["a", "b", "c"])
      let extra = NSManagedObject(entity: try #require(stack.model.entitiesByName["Song"]), insertInto: editor)
      extra.setValue("x", forKey: "title")
      songs.insert(extra, at: 1)  // a x b c
      #expect(extra.value(forKey: "playlist") as? NSManagedObject === playlist)
      songs.moveObjects(at: IndexSet(integer: 3), to: 0)  // c a x b
      songs.exchangeObject(at: 1, withObjectAt: 3)  // c b x a
      songs.add(songs[0])  // already a member: stays where it is
      #expect(songs.index(of: extra) == 2)
      #expect(Self.titles(playlist.value(forKey: "songs")) == ["c", "b", "x", "a"])
      #expect(editor.updatedObjects.contains(playlist))
      #expect(Self.titles(playlist.changedValues()["songs"]) == ["c", "b", "x", "a"])
      #expect(Self.titles(playlist.committedValues(forKeys: ["songs"])["songs"]) == ["a", "b", "c"])
      try editor.save()
      let removed = songs[1]
      songs.removeObject(at: 1)  // c x a
      #expect(removed.value(forKey: "playlist") == nil)
      try editor.save()
    }
    let (_, reader) = try stack.reopened()
    try reader.performAndWait { () throws in
      #expect(Self.titles(try reader.existingObject(with: playlistID).value(forKey: "songs")) == ["c", "x", "a"])
    }
  }

  @Test("Moving a song to another playlist appends it there and closes the gap it leaves", arguments: bothStoreTypes)
  func inverseMove(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: Self.model(), type: type)
    try stack.context.performAndWait {
      let (first, _) = Self.populate(stack.context, ["a", "b", "c"])
      let second = NSManagedObject(entity: try #require(stack.model.entitiesByName["Playlist"]), insertInto: stack.context)
      second.setValue("second", forKey: "name")
      let lone = NSManagedObject(entity: try #require(stack.model.entitiesByName["Song"]), insertInto: stack.context)
      lone.setValue("z", forKey: "title")
      lone.setValue(second, forKey: "playlist")
      try stack.context.save()
      let b = first.mutableOrderedSetValue(forKey: "songs")[1]
      b.setValue(second, forKey: "playlist")
      #expect(Self.titles(first.value(forKey: "songs")) == ["a", "c"])
      #expect(Self.titles(second.value(forKey: "songs")) == ["z", "b"])
      try stack.context.save()
    }
    let (_, reader) = try stack.reader()
    try reader.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Playlist")
      request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
      let lists = try reader.fetch(request)
      #expect(lists.map { Self.titles($0.value(forKey: "songs")) } == [["a", "c"], ["z", "b"]])
    }
  }

  @Test("A child context's new order reaches the parent and the store")
  func childContext() throws {
    let stack = try StoreStack(model: Self.model())
    let mixID = try stack.context.performAndWait {
      let (_, mix) = Self.populate(stack.context, ["a", "b", "c"])
      try stack.context.save()
      return mix.objectID
    }
    let child = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    child.parent = stack.context
    try child.performAndWait {
      let mix = try child.existingObject(with: mixID)
      #expect(Self.titles(mix.value(forKey: "songs")) == ["c", "b", "a"])
      let songs = mix.mutableOrderedSetValue(forKey: "songs")
      songs.moveObjects(at: IndexSet(integer: 0), to: 2)
      let fresh = NSManagedObject(entity: try #require(stack.model.entitiesByName["Song"]), insertInto: child)
      fresh.setValue("new", forKey: "title")
      songs.insert(fresh, at: 0)
      try child.save()
    }
    try stack.context.performAndWait {
      #expect(Self.titles(try stack.context.existingObject(with: mixID).value(forKey: "songs")) == ["new", "b", "a", "c"])
      try stack.context.save()
    }
    let (_, reader) = try stack.reopened()
    try reader.performAndWait { () throws in
      #expect(Self.titles(try reader.existingObject(with: mixID).value(forKey: "songs")) == ["new", "b", "a", "c"])
    }
  }

  @Test("A sibling context that merges the save sees the new order")
  func merge() throws {
    let stack = try StoreStack(model: Self.model())
    let mixID = try stack.context.performAndWait {
      let (_, mix) = Self.populate(stack.context, ["a", "b", "c"])
      try stack.context.save()
      return mix.objectID
    }
    let sibling = stack.freshContext()
    try sibling.performAndWait { () throws in
      #expect(Self.titles(try sibling.existingObject(with: mixID).value(forKey: "songs")) == ["c", "b", "a"])
    }
    let observer = NotificationRecorder(NSManagedObjectContext.didSaveObjectIDsNotification, from: stack.context)
    try stack.context.performAndWait {
      try stack.context.existingObject(with: mixID).mutableOrderedSetValue(forKey: "songs").exchangeObject(at: 0, withObjectAt: 2)
      try stack.context.save()
    }
    let saved = SavedObjectIDs(userInfo: try #require(observer.userInfos.first))
    #expect(saved.updated.contains(mixID))
    try sibling.performAndWait { () throws in
      sibling.mergeChanges(fromContextDidSave: saved)
      #expect(Self.titles(try sibling.existingObject(with: mixID).value(forKey: "songs")) == ["a", "b", "c"])
    }
  }

  @Test("Predicates and prefetching see an ordered to-many as they see any to-many", arguments: bothStoreTypes)
  func fetching(type: NSPersistentStore.StoreType) throws {
    let stack = try StoreStack(model: Self.model(), type: type)
    try stack.context.performAndWait {
      _ = Self.populate(stack.context, ["a", "b", "c"])
      try stack.context.save()
    }
    let (_, reader) = try stack.reader()
    try reader.performAndWait {
      let request = NSFetchRequest<NSManagedObject>(entityName: "Playlist")
      request.predicate = NSPredicate(format: "songs.@count == 3 AND ANY songs.title == %@", "b")
      request.relationshipKeyPathsForPrefetching = ["songs"]
      let lists = try reader.fetch(request)
      #expect(lists.count == 1)
      #expect(request.predicate?.evaluate(with: lists[0]) == true)
      #expect(Self.titles(lists.first?.value(forKey: "songs")) == ["a", "b", "c"])
      let none = NSFetchRequest<NSManagedObject>(entityName: "Mix")
      none.predicate = NSPredicate(format: "ANY songs.title == 'nothing'")
      #expect(try reader.count(for: none) == 0)
    }
  }

  @Test("Deleting members leaves the others in order; a batch delete of the playlist cascades")
  func deletes() throws {
    let stack = try StoreStack(model: Self.model())
    let playlistID = try stack.context.performAndWait {
      let (playlist, _) = Self.populate(stack.context, ["a", "b", "c", "d"])
      try stack.context.save()
      stack.context.delete(playlist.mutableOrderedSetValue(forKey: "songs")[1])
      try stack.context.save()
      #expect(Self.titles(playlist.value(forKey: "songs")) == ["a", "c", "d"])
      return playlist.objectID
    }
    let (_, reader) = try stack.reopened()
    try reader.performAndWait {
      #expect(Self.titles(try reader.existingObject(with: playlistID).value(forKey: "songs")) == ["a", "c", "d"])
      let request = NSBatchDeleteRequest(objectIDs: [playlistID])
      request.resultType = .resultTypeCount
      let result = try #require(try reader.execute(request) as? NSBatchDeleteResult)
      #expect(result.result as? Int == 4)  // the playlist and its three songs (Cascade)
    }
    #expect(try rawRows(stack.storeURL, "SELECT COUNT(*) AS c FROM ZSONG")[0]["c"] as Int == 0)
  }

  @Test("Migrating a store whose relationships become ordered keeps every member, in primary-key order, and saves a new order")
  func migrationToOrdered() throws {
    let folder = try TemporaryFolder()
    let url = folder.appending("Store.sqlite")
    let unordered = try Self.model(ordered: false)
    let stack = try StoreStack(model: unordered, folder: folder)
    try stack.context.performAndWait {
      _ = Self.populate(stack.context, ["a", "b", "c"])
      try stack.context.save()
    }
    try stack.coordinator.remove(try #require(stack.coordinator.persistentStores.first))
    #expect(!(try rawRows(url, "PRAGMA table_info(ZSONG)").map { $0["name"] as String }.contains("Z_FOK_PLAYLIST")))

    let ordered = try Self.model(ordered: true)
    let coordinator = NSPersistentStoreCoordinator(managedObjectModel: ordered)
    try coordinator.addPersistentStore(
      type: .sqlite, at: url,
      options: MigrationTests.migrationOptions(sourceModels: [unordered]))
    #expect(try rawRows(url, "PRAGMA table_info(ZSONG)").map { $0["name"] as String }.contains("Z_FOK_PLAYLIST"))
    #expect(try rawRows(url, "PRAGMA table_info(Z_1SONGS)").map { $0["name"] as String }.contains("Z_FOK_3SONGS"))
    let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    context.persistentStoreCoordinator = coordinator
    try context.performAndWait {
      let playlist = try Self.fetchOne("Playlist", context)
      #expect(Self.titles(playlist.value(forKey: "songs")) == ["a", "b", "c"])
      #expect(Self.titles(try Self.fetchOne("Mix", context).value(forKey: "songs")) == ["a", "b", "c"])
      playlist.mutableOrderedSetValue(forKey: "songs").moveObjects(at: IndexSet(integer: 2), to: 0)
      try context.save()
    }
    try coordinator.remove(try #require(coordinator.persistentStores.first))

    // And back: the ordering columns go, the members stay.
    let back = NSPersistentStoreCoordinator(managedObjectModel: try Self.model(ordered: false))
    try back.addPersistentStore(
      type: .sqlite, at: url,
      options: MigrationTests.migrationOptions(sourceModels: [ordered]))
    #expect(!(try rawRows(url, "PRAGMA table_info(ZSONG)").map { $0["name"] as String }.contains("Z_FOK_PLAYLIST")))
    #expect(!(try rawRows(url, "PRAGMA table_info(Z_1SONGS)").map { $0["name"] as String }.contains("Z_FOK_3SONGS")))
    let plain = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
    plain.persistentStoreCoordinator = back
    try plain.performAndWait {
      let songs = try #require(try Self.fetchOne("Playlist", plain).value(forKey: "songs") as? Set<NSManagedObject>)
      #expect(Set(songs.compactMap { $0.value(forKey: "title") as? String }) == ["a", "b", "c"])
    }
  }

  @Test("An Xcode model's ordered relationship loads as ordered and is written back so")
  func xcodeModel() throws {
    let model = try Self.model()
    let loaded = try NSManagedObjectModel.fromXcodeContents(XcodeModelWriter.contents(of: model), origin: "the music model")
    #expect(loaded.entitiesByName["Playlist"]?.relationshipsByName["songs"]?.isOrdered == true)
    #expect(loaded.entitiesByName["Song"]?.relationshipsByName["mixes"]?.isOrdered == false)
    #expect(loaded.entitiesByName["Playlist"]?.versionHash == model.entitiesByName["Playlist"]?.versionHash)
  }
}
