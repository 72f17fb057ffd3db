import Foundation
import NotesModel
import ObjectGraph

/// The tutorial's data model and a small stack on it, built the plain way, for tests and checks that need
/// a store.
///
/// Loading the model through ``NotesModel/bundle`` registers the tutorial's classes by name (`Note`,
/// `Notebook`, `Tag`, `Attachment`): a test target with classes of those names of its own passes its
/// model in instead (``writeVersionOneStore(at:model:titles:createdAt:updatedAt:then:)`` takes one).
public enum TutorialStack {
  /// Loads `DataModel` from ``NotesModel/bundle``; its entities are made as `Note`, `Notebook`, `Tag` and
  /// `Attachment`.
  public static func model() throws -> NSManagedObjectModel {
    try NSManagedObjectModel(loadingContentsOf: try modelURL())
  }

  /// Where `DataModel.xcdatamodeld` is in ``NotesModel/bundle``.
  public static func modelURL() throws -> URL {
    guard let url = NotesModel.bundle.url(forResource: NotesModel.name, withExtension: "xcdatamodeld") else {
      throw CocoaError(
        .coreData,
        userInfo: [NSLocalizedDescriptionKey: "The checks could not find DataModel.xcdatamodeld in \(NotesModel.bundle.bundleURL.path)."])
    }
    return url
  }

  /// Version `name` of the tutorial's model (`"DataModel"` is version 1, `"DataModel 2"` the current one), read
  /// from the `.xcdatamodeld` as an app that shipped that version would read it.
  public static func model(version name: String) throws -> NSManagedObjectModel {
    guard let version = try NSManagedObjectModel.versions(in: try modelURL()).first(where: { $0.name == name }) else {
      throw CocoaError(.coreData, userInfo: [NSLocalizedDescriptionKey: "DataModel.xcdatamodeld has no version named \(name)."])
    }
    return version.model
  }

  /// Writes a store at `storeURL` as version 1 of the app did, with `notes` notes: "Note 0", "Note 1", …, each
  /// made at `date`, the even ones also changed at `date` (`updatedAt`, which version 2 calls `modifiedAt`).
  public static func writeVersionOneStore(at storeURL: URL, notes: Int, date: Date = Date(timeIntervalSinceReferenceDate: 700_000_000))
    throws
  {
    try writeVersionOneStore(
      at: storeURL, titles: (0..<notes).map { "Note \($0)" }, createdAt: date,
      updatedAt: { index in index.isMultiple(of: 2) ? date : nil })
  }

  /// Writes a store at `storeURL` (making its folder) as version 1 of the app did, with one note per title,
  /// in order: each made at `createdAt`, and changed at `updatedAt(index)` (`updatedAt`, the attribute version
  /// 2 renames to `modifiedAt`; `nil` leaves it unset). `extra` may add more to the notes before the one save
  /// (it gets the writing context and the notes). The store is closed when this returns.
  ///
  /// `model` is version 1 of the tutorial's model; by default ``model(version:)`` reads it from
  /// ``NotesModel/bundle``.
  public static func writeVersionOneStore(
    at storeURL: URL, model: NSManagedObjectModel? = nil, titles: [String], createdAt: Date = Date(timeIntervalSinceReferenceDate: 0),
    updatedAt: (Int) -> Date? = { _ in nil }, then extra: (NSManagedObjectContext, [NSManagedObject]) throws -> Void = { _, _ in }
  ) throws {
    let version1 = try model ?? self.model(version: "DataModel")
    guard let entity = version1.entitiesByName["Note"] else {
      throw CocoaError(.coreData, userInfo: [NSLocalizedDescriptionKey: "Version 1 of DataModel has no Note entity."])
    }
    try FileManager.default.createDirectory(at: storeURL.deletingLastPathComponent(), withIntermediateDirectories: true)
    let stack = try StoreStack(model: version1, at: storeURL)
    let writer = stack.context
    try writer.performAndWait {
      let notes = titles.enumerated().map { index, title in
        let note = NSManagedObject(entity: entity, insertInto: writer)
        note.setValue(title, forKey: "title")
        note.setValue(createdAt, forKey: "createdAt")
        note.setValue(updatedAt(index), forKey: "updatedAt")
        return note
      }
      try extra(writer, notes)
      try writer.save()
    }
    try stack.close()
  }

  /// A coordinator on the current model with a SQLite store at `storeURL` (its folder must exist).
  public static func coordinator(storeURL: URL) throws -> NSPersistentStoreCoordinator {
    try StoreStack(model: try model(), at: storeURL).coordinator
  }

  /// A context of `type` on `coordinator`.
  public static func context(_ type: NSManagedObjectContext.ConcurrencyType, on coordinator: NSPersistentStoreCoordinator)
    -> NSManagedObjectContext
  {
    let context = NSManagedObjectContext(type)
    context.persistentStoreCoordinator = coordinator
    return context
  }

  /// The number of notes in the store, read through a new private context (so unsaved changes elsewhere do
  /// not count).
  public static func notesInStore(_ coordinator: NSPersistentStoreCoordinator) throws -> Int {
    let reader = context(.privateQueue, on: coordinator)
    return try reader.performAndWait { try reader.count(for: NSFetchRequest<Note>(entityName: "Note")) }
  }
}
