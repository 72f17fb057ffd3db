import Foundation

/// A model version, named for a staged migration (Core Data's `NSManagedObjectModelReference`): a model, or
/// where to find it, with the checksum of its version.
///
/// ```swift
/// let v2 = NSManagedObjectModelReference(model: modelV2, versionChecksum: modelV2.versionChecksum)
/// let v3 = NSManagedObjectModelReference(name: "Notes", in: .module, versionChecksum: checksumV3)
/// ```
///
/// The model is looked for when the reference is made. A reference that finds no model, or whose model's
/// ``NSManagedObjectModel/versionChecksum`` is not `versionChecksum`, fails the load of a store whose
/// staged migration uses it with ``NSManagedObjectModelReferenceNotFoundError`` naming what was looked for;
/// its ``resolvedModel`` is then an empty model. (Core Data's initialisers cannot fail either.)
///
/// `@unchecked Sendable`: every stored property is a `let` of a `Sendable` type; the class is an `NSObject`
/// only to be what Core Data's is.
public final class NSManagedObjectModelReference: NSObject, @unchecked Sendable {
  /// The checksum the reference was made with: the version it names (Core Data's `versionChecksum`).
  public let versionChecksum: String
  /// The model found, or why none was.
  let resolution: Result<NSManagedObjectModel, ObjectGraphError>

  /// The model the reference names (Core Data's `resolvedModel`); an empty model when none was found (the
  /// staged migration that uses the reference then fails with the reason).
  public var resolvedModel: NSManagedObjectModel {
    (try? resolution.get()) ?? NSManagedObjectModel()
  }

  /// A reference to a model you have in hand.
  /// - Parameters:
  ///   - model: the model version.
  ///   - versionChecksum: its ``NSManagedObjectModel/versionChecksum``.
  public init(model: NSManagedObjectModel, versionChecksum: String) {
    self.versionChecksum = versionChecksum
    resolution = Self.checked(.success(model), versionChecksum: versionChecksum, what: "the model given")
    super.init()
  }

  /// A reference to the model in a file: a `.momd` or `.xcdatamodeld` (the version with the checksum is
  /// taken from it), a `.mom` or a `.xcdatamodel`.
  /// - Parameters:
  ///   - fileURL: the model's file.
  ///   - versionChecksum: the ``NSManagedObjectModel/versionChecksum`` of the version meant.
  public init(fileURL: URL, versionChecksum: String) {
    self.versionChecksum = versionChecksum
    resolution = Self.checked(
      Self.load(fileURL, versionChecksum: versionChecksum), versionChecksum: versionChecksum, what: "the model at \(fileURL.path)")
    super.init()
  }

  /// A reference to the model named `modelName` in a bundle (`<name>.momd`, `.xcdatamodeld`, `.mom` or
  /// `.xcdatamodel`, as ``NSPersistentContainer/init(name:bundle:)`` looks for it), the version with the
  /// checksum.
  /// - Parameters:
  ///   - modelName: the model file's name without its extension.
  ///   - bundle: where to look; `nil` for the main bundle.
  ///   - versionChecksum: the ``NSManagedObjectModel/versionChecksum`` of the version meant.
  public init(name modelName: String, in bundle: Bundle?, versionChecksum: String) {
    self.versionChecksum = versionChecksum
    let bundle = bundle ?? .main
    let what = "the model named \(modelName) in the bundle at \(bundle.bundleURL.path)"
    let url = ["momd", "xcdatamodeld", "mom", "xcdatamodel"].lazy.compactMap { bundle.url(forResource: modelName, withExtension: $0) }
      .first
    if let url {
      resolution = Self.checked(Self.load(url, versionChecksum: versionChecksum), versionChecksum: versionChecksum, what: what)
    } else {
      resolution = .failure(
        Self.notFound("No file of \(what): looked for \(modelName).momd, .xcdatamodeld, .mom and .xcdatamodel."))
    }
    super.init()
  }

  /// A reference to the model in a bundle whose entities have the given version hashes (as a store's
  /// metadata holds them under ``NSStoreModelVersionHashesKey``).
  /// - Parameters:
  ///   - versionHash: entity names to their ``NSEntityDescription/versionHash``.
  ///   - bundle: where to look (every model file at the top of its resources, every version of each);
  ///     `nil` for the main bundle.
  ///   - versionChecksum: the ``NSManagedObjectModel/versionChecksum`` of the version meant.
  public init(entityVersionHashes versionHash: [AnyHashable: Any], in bundle: Bundle?, versionChecksum: String) {
    self.versionChecksum = versionChecksum
    let bundle = bundle ?? .main
    var hashes: [String: Data] = [:]
    for case (let name as String, let hash as Data) in versionHash { hashes[name] = hash }
    let folder = bundle.resourceURL ?? bundle.bundleURL
    let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
    let models = files.filter { ["momd", "xcdatamodeld", "mom", "xcdatamodel"].contains($0.pathExtension.lowercased()) }
      .sorted { $0.path < $1.path }
      .flatMap { Self.versions(at: $0) }
    if let model = models.first(where: { $0.entityVersionHashesByName == hashes }) {
      resolution = Self.checked(.success(model), versionChecksum: versionChecksum, what: "the model with those hashes")
    } else {
      resolution = .failure(
        Self.notFound(
          "No model in the bundle at \(bundle.bundleURL.path) has the entity version hashes given (\(hashes.count) entities: \(hashes.keys.sorted().joined(separator: ", "))); \(models.count) model version(s) were looked at."
        ))
    }
    super.init()
  }

  /// The versions of the model at `url` (one for a lone model file), none when it cannot be read.
  private static func versions(at url: URL) -> [NSManagedObjectModel] {
    if let versions = try? NSManagedObjectModel.versions(in: url), !versions.isEmpty { return versions.map(\.model) }
    return (try? NSManagedObjectModel(loadingContentsOf: url)).map { [$0] } ?? []
  }

  /// The version of the model at `url` whose checksum is `versionChecksum`, else the model the file loads as.
  private static func load(_ url: URL, versionChecksum: String) -> Result<NSManagedObjectModel, ObjectGraphError> {
    if let version = versions(at: url).first(where: { $0.versionChecksum == versionChecksum }) { return .success(version) }
    do {
      return .success(try NSManagedObjectModel(loadingContentsOf: url))
    } catch {
      return .failure(Self.notFound("The model at \(url.path) cannot be loaded: \(error)"))
    }
  }

  /// `found`, refused when its model's checksum is not the reference's.
  private static func checked(
    _ found: Result<NSManagedObjectModel, ObjectGraphError>, versionChecksum: String, what: String
  ) -> Result<NSManagedObjectModel, ObjectGraphError> {
    found.flatMap { model in
      guard model.versionChecksum != versionChecksum else { return .success(model) }
      return .failure(
        notFound(
          "The version checksum given, \(versionChecksum), is not the one of \(what), \(model.versionChecksum). Take the checksum from the model's versionChecksum property (the engine's checksums are not Xcode's)."
        ))
    }
  }

  private static func notFound(_ message: String) -> ObjectGraphError {
    ObjectGraphError(ObjectGraphError.Code(rawValue: NSManagedObjectModelReferenceNotFoundError), message)
  }

  /// The reference as messages name it.
  var name: String { "the model version with checksum \(versionChecksum)" }
}

extension NSManagedObjectModelReference {
  /// A reference to the model named `modelName` in a bundle: the same as ``init(name:in:versionChecksum:)``,
  /// under the other spelling Core Data's Swift interface lists.
  public convenience init(name modelName: String, inBundle bundle: Bundle?, versionChecksum: String) {
    self.init(name: modelName, in: bundle, versionChecksum: versionChecksum)
  }

  /// A reference to the model in a bundle whose entities have the given version hashes: the same as
  /// ``init(entityVersionHashes:in:versionChecksum:)``, under the other spelling Core Data's Swift interface
  /// lists.
  public convenience init(entityVersionHashes versionHash: [AnyHashable: Any], inBundle bundle: Bundle?, versionChecksum: String) {
    self.init(entityVersionHashes: versionHash, in: bundle, versionChecksum: versionChecksum)
  }
}
