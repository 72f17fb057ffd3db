import Foundation

extension NSManagedObjectModel {
  /// The model at `url` (Core Data's older `init(contentsOfURL:)`): the same as ``init(contentsOf:)``.
  public convenience init?(contentsOfURL url: URL) {
    self.init(contentsOf: url)
  }

  /// Loads a model written by Xcode's model editor: a `.xcdatamodeld` folder or a single `.xcdatamodel` folder;
  /// or a compiled model as apps ship it: a `.momd` folder (the version its `VersionInfo.plist` names current)
  /// or a single `.mom` file (see "Compiled models and mapping files" in `Docs/ObjectGraph.md`).
  ///
  /// For a `.xcdatamodeld`, the version loaded is the one its `.xccurrentversion` file names (key
  /// `_XCCurrentVersionName`, as Xcode's File inspector sets it); without that file, the only version, or else
  /// the last one when the version names are sorted naturally (`Model` < `Model 2` < `Model 10`). A
  /// `.xcdatamodel` folder is read from the XML file `contents` inside it.
  ///
  /// ```swift
  /// let url = Bundle.module.url(forResource: "DataModel", withExtension: "xcdatamodeld")!
  /// let model = NSManagedObjectModel(contentsOf: url)  // nil when it cannot be read
  /// ```
  ///
  /// Everything Xcode describes is read: entities with inheritance and abstract entities, attributes of every
  /// type (with typed default values: an `Integer 16` default is an `Int16`), relationships with inverses,
  /// delete rules, ordering and counts, renaming identifiers (Xcode's `elementID`), version hash modifiers,
  /// user info, uniqueness constraints, fetched properties, fetch request templates, configurations and the
  /// model version identifier, composite attributes with their elements (`<composite>` blocks). What the engine
  /// does not run (Object ID and Undefined attributes, fetched properties) loads as a description and is
  /// refused only when used. Fetch indexes
  /// (`<fetchIndex>`, and the legacy `indexed="YES"` attribute flag) load into ``NSEntityDescription/indexes``.
  /// Diagram layout and the older `<compoundIndexes>` are ignored. The model's ``sourceURL`` is `url`.
  ///
  /// Default values are read as Core Data reads them, also when Xcode kept text that is not in the type's canonical
  /// form (a Boolean default `1`, an Integer 16 default `0.0`, a UUID default that is not a UUID): each such value
  /// is noted in ``loadWarnings`` with what it was read as, and the rules are in `Docs/ObjectGraph.md` ("Reading
  /// Xcode models").
  ///
  /// - Parameter url: a `.xcdatamodeld` folder, a `.xcdatamodel` folder, or the `contents` file inside one; a
  ///   `.momd` folder or a `.mom` file.
  /// - Returns: `nil`, as Core Data's does, when the model cannot be loaded: a compiled model that is
  ///   damaged, truncated or not a model archive, or whose `VersionInfo.plist` names a missing version; nothing
  ///   at `url`, a folder with no model version, a `.xccurrentversion` naming a version that is not there, a
  ///   `contents` file that is missing or not well-formed XML, an attribute type or delete rule Xcode does not
  ///   write, an integer default outside its type's range, or an inconsistent model (for example a
  ///   relationship to an entity the model does not have). Core Data logs why to the console; the engine
  ///   writes one line to standard error that names the file, what is wrong (with the line of the XML) and
  ///   what to do: `ObjectGraph: error: NSManagedObjectModel(contentsOf:) returned nil: …`.
  public convenience init?(contentsOf url: URL) {
    do {
      try self.init(loadingContentsOf: url)
    } catch {
      ErrorLog.write("NSManagedObjectModel(contentsOf:) returned nil", error)
      return nil
    }
  }

  /// Loads a model as ``init(contentsOf:)`` does, throwing what is wrong instead of logging it: for the
  /// workshop's own tools and tests, which show the reason (not public: Core Data has no such initializer).
  /// - Throws: ``ObjectGraphModelInvalidError`` naming the file and what is wrong (see ``init(contentsOf:)``).
  package convenience init(loadingContentsOf url: URL) throws {
    if CompiledModelLoader.isCompiledModel(url) {
      let location = try CompiledModelLoader.locate(url)
      try self.init(compiledVersion: location.current, sourceURL: url)
      return
    }
    let location = try XcodeModelLoader.locate(url)
    let version = try XcodeModelLoader.currentVersion(of: location)
    try self.init(xcodeVersion: version, sourceURL: url)
  }

  /// Every version of a `.xcdatamodeld` folder, by version name (the version folder's name without
  /// `.xcdatamodel`), sorted naturally by name (`Model`, `Model 2`, …, `Model 10`).
  ///
  /// For a single `.xcdatamodel` folder the result has one entry. Each model's ``sourceURL`` is its version's
  /// `.xcdatamodel` folder. For a `.momd` folder: the versions its `VersionInfo.plist` lists, each from its `.mom`
  /// file (one entry for a single `.mom`). Use it to find the model a store was made with, for migration:
  ///
  /// ```swift
  /// for (name, model) in try NSManagedObjectModel.versions(in: url)
  /// where model.isConfiguration(withName: nil, compatibleWithStoreMetadata: metadata) {
  ///   print("the store was made with version \(name)")
  /// }
  /// ```
  ///
  /// - Parameter url: a `.xcdatamodeld` folder, a `.xcdatamodel` folder, or the `contents` file inside one; a
  ///   `.momd` folder or a `.mom` file.
  /// - Returns: `(name, model)` pairs, one per version.
  /// - Throws: ``ObjectGraphModelInvalidError`` as ``init(contentsOf:)`` does, when any version cannot be
  ///   loaded.
  public static func versions(in url: URL) throws -> [(name: String, model: NSManagedObjectModel)] {
    if CompiledModelLoader.isCompiledModel(url) {
      return try CompiledModelLoader.locate(url).versions.map { version in
        (name: version.name, model: try NSManagedObjectModel(compiledVersion: version, sourceURL: version.fileURL))
      }
    }
    let location = try XcodeModelLoader.locate(url)
    return try location.versions.map { version in
      (name: version.name, model: try NSManagedObjectModel(xcodeVersion: version, sourceURL: version.folderURL))
    }
  }

  /// Makes a model from the XML of a `contents` file held in memory, such as
  /// ``XcodeModelWriter/contents(of:)`` writes (a store keeps the model it was made with this way).
  ///
  /// The XML is read as a `contents` file is; the model has no ``sourceURL`` and no ``loadWarnings`` (a warning
  /// names a file; the writer writes every default in canonical form).
  /// - Parameters:
  ///   - data: the XML.
  ///   - origin: where the data came from, as error messages name it, starting in lower case: "the model kept
  ///     in store X".
  /// - Throws: ``ObjectGraphModelInvalidError`` naming `origin`, when the data is not well-formed XML, not
  ///   an Xcode model, or describes an inconsistent model.
  static func fromXcodeContents(_ data: Data, origin: String) throws -> NSManagedObjectModel {
    let source = XcodeModelLoader.ModelSource(
      name: origin, url: nil, remedy: "The model data is damaged; it cannot be read.")
    let root = try XcodeModelLoader.XMLTree.parse(data, source: source)
    var reader = XcodeModelLoader.ModelReader(source: source)
    let parsed = try reader.read(root)
    do {
      return try NSManagedObjectModel(
        entities: parsed.entities, versionIdentifiers: parsed.versionIdentifiers,
        configurations: parsed.configurations, fetchRequestTemplates: parsed.fetchRequestTemplates, sourceURL: nil)
    } catch let error as ObjectGraphError {
      throw ObjectGraphError(.modelInvalid, "\(source.sentenceName) is inconsistent: \(error.message)")
    }
  }

  /// Reads one version's `contents` file and makes the model, naming the file in any error.
  private convenience init(xcodeVersion version: XcodeModelLoader.Version, sourceURL: URL) throws {
    let parsed = try XcodeModelLoader.readModel(version)
    do {
      try self.init(
        entities: parsed.entities, versionIdentifiers: parsed.versionIdentifiers,
        configurations: parsed.configurations, fetchRequestTemplates: parsed.fetchRequestTemplates,
        sourceURL: sourceURL, loadWarnings: parsed.warnings, versionName: version.name)
    } catch let error as ObjectGraphError {
      throw ObjectGraphError(
        .modelInvalid,
        "The Xcode model file '\(version.contentsURL.path)' is inconsistent: \(error.message) Fix the model in "
          + "Xcode's model editor (or in the file).",
        url: version.contentsURL)
    }
  }
}

/// Reads Xcode's model format (`.xcdatamodeld` / `.xcdatamodel` folders holding XML `contents` files) into
/// ObjectGraph's model descriptions. Used by ``NSManagedObjectModel/init(contentsOf:)`` and
/// ``NSManagedObjectModel/versions(in:)``.
///
/// Three steps, one file each: finding the versions (`XcodeModelVersions.swift`), reading a `contents` file's XML
/// (`XcodeModelXML.swift`) and building the descriptions from it (`XcodeModelBuilder.swift`).
enum XcodeModelLoader {
  /// Reads and converts one version's `contents` file.
  static func readModel(_ version: Version) throws -> ParsedModel {
    let file = version.contentsURL
    guard FileManager.default.fileExists(atPath: file.path) else {
      throw ObjectGraphError(
        .modelInvalid,
        "The model version folder '\(version.folderURL.path)' has no 'contents' file (Xcode keeps the model's "
          + "XML there). Restore it from version control, or re-create the version in Xcode.",
        url: file)
    }
    let data = try ModelFile.read(file, what: "the Xcode model file", remedy: "Check that it is readable.")
    let root = try XMLTree.parse(data, file: file)
    var reader = ModelReader(file: file)
    return try reader.read(root)
  }
}
