import Foundation

/// Reads Apple's compiled models: a `.momd` folder (one `.mom` per version and a `VersionInfo.plist`) or a
/// single `.mom` file, a binary property list holding an `NSKeyedArchiver` archive of the model. Used by
/// ``NSManagedObjectModel/init(contentsOf:)`` and ``NSManagedObjectModel/versions(in:)``.
///
/// `.omo` files (Xcode's optimized form of a version, beside its `.mom`) are a private, undocumented format
/// and are not read: the `.mom` beside each holds the same model.
enum CompiledModelLoader {
  static let modelExtension = "mom"
  static let bundleExtension = "momd"
  static let optimizedExtension = "omo"
  static let versionInfoFileName = "VersionInfo.plist"
  static let currentVersionKey = "NSManagedObjectModel_CurrentVersionName"
  static let versionHashesKey = "NSManagedObjectModel_VersionHashes"

  /// One compiled model version: a `.mom` file.
  struct Version {
    /// The file's name without `.mom`.
    let name: String
    /// The `.mom` file.
    let fileURL: URL
  }

  /// What `VersionInfo.plist` says.
  struct VersionInfo {
    /// `NSManagedObjectModel_CurrentVersionName`.
    var currentVersionName: String?
    /// `NSManagedObjectModel_VersionHashes`: version name → entity name → the entity's version hash, as
    /// Xcode's model compiler computed it.
    var versionHashes: [String: [String: Data]] = [:]
  }

  /// A `.momd` folder or `.mom` file, with its versions sorted naturally by name and the current one.
  struct Location {
    let url: URL
    let versions: [Version]
    let current: Version
  }

  /// Whether `url` names a compiled model (by its extension, `.mom`, `.momd` or `.omo`).
  static func isCompiledModel(_ url: URL) -> Bool {
    [modelExtension, bundleExtension, optimizedExtension].contains(url.pathExtension.lowercased())
  }

  /// Finds the versions of a `.momd` folder (those `VersionInfo.plist` lists, else every `.mom` in it) or
  /// the one version a `.mom` file is, and the current version.
  static func locate(_ url: URL) throws -> Location {
    let fileManager = FileManager.default
    var isDirectory: ObjCBool = false
    guard fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw ObjectGraphError(
        .modelInvalid,
        "No compiled model at '\(url.path)': nothing exists at that path. Pass the app's .momd folder (or one "
          + ".mom file), for example from Bundle.module.url(forResource:withExtension:), and check that the "
          + "package copies it as a resource.",
        url: url)
    }
    let pathExtension = url.pathExtension.lowercased()
    if pathExtension == optimizedExtension {
      throw ObjectGraphError(
        .modelInvalid,
        "'\(url.path)' is an optimized compiled model (.omo), a private Apple format ObjectGraph does not read. "
          + "Load the .mom file beside it, or the .momd folder that holds both.",
        url: url)
    }
    if !isDirectory.boolValue {
      let version = Version(name: url.deletingPathExtension().lastPathComponent, fileURL: url)
      return Location(url: url, versions: [version], current: version)
    }
    let names: [String]
    do {
      names = try fileManager.contentsOfDirectory(atPath: url.path)
    } catch {
      throw ObjectGraphError(
        .modelInvalid,
        "Cannot list the compiled model folder '\(url.path)': \(error.localizedDescription). Check that it is "
          + "readable.",
        url: url)
    }
    let files = names.filter { ($0 as NSString).pathExtension.lowercased() == modelExtension }
      .map { Version(name: ($0 as NSString).deletingPathExtension, fileURL: url.appendingPathComponent($0)) }
      .sorted { XcodeModelLoader.naturallyOrdered($0.name, $1.name) }
    let infoURL = url.appendingPathComponent(versionInfoFileName, isDirectory: false)
    guard fileManager.fileExists(atPath: infoURL.path) else {
      // Xcode always writes VersionInfo.plist; without it, a folder with one model is unambiguous and one
      // with several is refused rather than guessed at.
      guard files.count == 1, let only = files.first else {
        let listed = files.isEmpty ? "no .mom file" : files.map { "'\($0.fileURL.lastPathComponent)'" }.joined(separator: ", ")
        throw ObjectGraphError(
          .modelInvalid,
          "The compiled model folder '\(url.path)' has no \(versionInfoFileName), so which version is current is "
            + "not known (it holds \(listed)). Copy the whole .momd folder Xcode built, VersionInfo.plist "
            + "included, or load one .mom file.",
          url: url)
      }
      return Location(url: url, versions: files, current: only)
    }
    let info = try versionInfo(at: infoURL)
    let byName = Dictionary(files.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    var versions: [Version] = []
    for name in info.versionHashes.keys.sorted(by: XcodeModelLoader.naturallyOrdered) {
      guard let version = byName[name] else {
        throw missing(name, listedIn: infoURL, as: "lists model version", folder: url, files: files, names: names)
      }
      versions.append(version)
    }
    if versions.isEmpty { versions = files }
    guard let currentName = info.currentVersionName else {
      throw ObjectGraphError(
        .modelInvalid,
        "'\(infoURL.path)' does not name the current model version (no \(currentVersionKey) string). Copy the "
          + "whole .momd folder Xcode built again.",
        url: infoURL)
    }
    guard let current = versions.first(where: { $0.name == currentName }) ?? byName[currentName] else {
      throw missing(
        currentName, listedIn: infoURL, as: "names as the current model version", folder: url, files: files,
        names: names)
    }
    if !versions.contains(where: { $0.name == current.name }) { versions.append(current) }
    return Location(url: url, versions: versions, current: current)
  }

  /// The error for a version `VersionInfo.plist` names whose `.mom` is not in the folder.
  private static func missing(
    _ name: String, listedIn infoURL: URL, as role: String, folder: URL, files: [Version], names: [String]
  ) -> ObjectGraphError {
    let optimized = names.contains { $0.lowercased() == (name + "." + optimizedExtension).lowercased() }
    let hint =
      optimized
      ? " Only '\(name).omo', Xcode's optimized form, is there: it is a private format ObjectGraph does not read; "
        + "ship the .mom too."
      : ""
    return ObjectGraphError(
      .modelInvalid,
      "'\(infoURL.path)' \(role) '\(name)', but '\(folder.lastPathComponent)' has no '\(name).mom' (it has "
        + "\(listing(files))).\(hint) Copy the whole .momd folder Xcode built again.",
      url: infoURL)
  }

  private static func listing(_ files: [Version]) -> String {
    files.isEmpty ? "no .mom file" : files.map { "'\($0.fileURL.lastPathComponent)'" }.joined(separator: ", ")
  }

  /// Reads a `VersionInfo.plist` (binary, as Xcode writes it, or XML).
  static func versionInfo(at url: URL) throws -> VersionInfo {
    let problem = { (reason: String) in
      ObjectGraphError(
        .modelInvalid,
        "'\(url.path)' is not a readable VersionInfo.plist: \(reason). Copy the whole .momd folder Xcode built "
          + "again.",
        url: url)
    }
    let data = try ModelFile.read(
      url, what: "the compiled model's version list", remedy: "Copy the whole .momd folder Xcode built again.")
    var info = VersionInfo()
    if BinaryPropertyList.isBinaryPropertyList(data) {
      let plist: PropertyListValue
      do {
        plist = try BinaryPropertyList.read(data)
      } catch let malformed as BinaryPropertyList.Malformed {
        throw problem(malformed.reason)
      }
      guard let top = plist.dictionary else { throw problem("it is not a dictionary") }
      info.currentVersionName = top[currentVersionKey]?.string
      for (version, hashes) in top[versionHashesKey]?.dictionary ?? [:] {
        var entities: [String: Data] = [:]
        for (entity, hash) in hashes.dictionary ?? [:] {
          if case .data(let bytes) = hash { entities[entity] = bytes }
        }
        info.versionHashes[version] = entities
      }
      return info
    }
    let plist: Any
    do {
      plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    } catch {
      throw problem(error.localizedDescription)
    }
    guard let top = plist as? [String: Any] else { throw problem("it is not a dictionary") }
    info.currentVersionName = top[currentVersionKey] as? String
    for (version, hashes) in top[versionHashesKey] as? [String: Any] ?? [:] {
      info.versionHashes[version] = (hashes as? [String: Any] ?? [:]).compactMapValues { $0 as? Data }
    }
    return info
  }

  /// Reads one `.mom` file into model descriptions.
  static func readModel(_ version: Version) throws -> XcodeModelLoader.ParsedModel {
    let file = version.fileURL
    let remedy =
      "Copy the compiled model Xcode built (the .momd folder in the app bundle) again, or load the source "
      + ".xcdatamodeld instead."
    let data = try ModelFile.read(file, what: "the compiled model file", remedy: "Check that it is readable.")
    do {
      let plist = try BinaryPropertyList.read(data)
      let archive = try KeyedArchive(plist)
      return try CompiledModelReader(archive: archive).read()
    } catch let malformed as BinaryPropertyList.Malformed {
      throw ObjectGraphError(
        .modelInvalid,
        "The compiled model file '\(file.path)' is not a readable binary property list: \(malformed.reason). "
          + remedy,
        url: file)
    } catch let malformed as KeyedArchive.Malformed {
      throw ObjectGraphError(
        .modelInvalid,
        "The compiled model file '\(file.path)' is not a readable model archive: \(malformed.reason). " + remedy,
        url: file)
    }
  }
}

extension NSManagedObjectModel {
  /// Reads one compiled version (a `.mom` file) and makes the model, naming the file in any error.
  convenience init(compiledVersion version: CompiledModelLoader.Version, sourceURL: URL) throws {
    let parsed = try CompiledModelLoader.readModel(version)
    do {
      try self.init(
        entities: parsed.entities, versionIdentifiers: parsed.versionIdentifiers,
        configurations: parsed.configurations, fetchRequestTemplates: parsed.fetchRequestTemplates,
        sourceURL: sourceURL, versionName: version.name)
    } catch let error as ObjectGraphError {
      throw ObjectGraphError(
        .modelInvalid,
        "The compiled model file '\(version.fileURL.path)' is inconsistent: \(error.message) Rebuild the model "
          + "with Xcode and copy the .momd folder again.",
        url: version.fileURL)
    }
  }
}
