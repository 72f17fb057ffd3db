import Foundation

extension NSManagedObjectModel {
  /// Makes a model from the bytes of a compiled model that is not a file: a binary property list holding an
  /// `NSKeyedArchiver` archive of `NSManagedObjectModel`, what a `.mom` file holds (Core Data keeps one,
  /// compressed, in a store's `Z_MODELCACHE`). Read by the same reader as `.mom` files
  /// (``CompiledModelReader``); the model has no `sourceURL` and no version name.
  /// - Parameters:
  ///   - data: the archive's bytes.
  ///   - origin: what the bytes are, for messages ("the model Core Data kept in the store at …").
  /// - Throws: `modelInvalid` naming `origin` and what is wrong.
  static func fromCompiledArchive(_ data: Data, origin: String) throws -> NSManagedObjectModel {
    let parsed: XcodeModelLoader.ParsedModel
    do {
      parsed = try CompiledModelReader(archive: try KeyedArchive(try BinaryPropertyList.read(data))).read()
    } catch let malformed as BinaryPropertyList.Malformed {
      throw ObjectGraphError(.modelInvalid, "\(origin) is not a readable binary property list: \(malformed.reason).")
    } catch let malformed as KeyedArchive.Malformed {
      throw ObjectGraphError(.modelInvalid, "\(origin) is not a readable model archive: \(malformed.reason).")
    }
    // Core Data's model cache repeats each inherited property in every subentity (its `NSEntity` the
    // subentity; SampleModel_V1.sqlite's SportCar lists Car's seven), where a `.mom` lists only an entity's
    // own: an entity keeps the properties its superentity does not have, which leaves a `.mom` as it is.
    let listed = Dictionary(
      parsed.entities.map { (ObjectIdentifier($0), Set($0.ownProperties.map(\.name))) }, uniquingKeysWith: { first, _ in first })
    for entity in parsed.entities {
      guard let parent = entity.superentity, let inherited = listed[ObjectIdentifier(parent)] else { continue }
      entity.ownProperties.removeAll { inherited.contains($0.name) }
    }
    do {
      return try NSManagedObjectModel(
        entities: parsed.entities, versionIdentifiers: parsed.versionIdentifiers,
        configurations: parsed.configurations, fetchRequestTemplates: parsed.fetchRequestTemplates, sourceURL: nil)
    } catch let error as ObjectGraphError {
      throw ObjectGraphError(.modelInvalid, "\(origin) is inconsistent: \(error.message)")
    }
  }
}
