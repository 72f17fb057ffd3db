import Foundation

/// Finding a model's versions: the `.xcdatamodeld` layout, `.xccurrentversion` and the natural order of version
/// names.
extension XcodeModelLoader {
  /// One model version: a `.xcdatamodel` folder.
  struct Version {
    /// The folder's name without `.xcdatamodel`.
    let name: String
    /// The `.xcdatamodel` folder.
    let folderURL: URL
    /// The XML file inside the folder.
    var contentsURL: URL { folderURL.appendingPathComponent("contents", isDirectory: false) }
  }

  /// What a URL given by the caller turned out to be.
  struct Location {
    /// The URL as given.
    let url: URL
    /// The versions found, sorted naturally by name; never empty.
    let versions: [Version]
    /// The `.xcdatamodeld` folder, or `nil` for a single `.xcdatamodel`.
    let bundleURL: URL?
  }

  static let modelExtension = "xcdatamodel"
  static let bundleExtension = "xcdatamodeld"
  static let currentVersionFileName = ".xccurrentversion"
  static let currentVersionKey = "_XCCurrentVersionName"

  /// Works out whether `url` is a `.xcdatamodeld`, a `.xcdatamodel` or a `contents` file, and lists its
  /// versions.
  static func locate(_ url: URL) throws -> Location {
    let fileManager = FileManager.default
    var isDirectory: ObjCBool = false
    guard fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw ObjectGraphError(
        .modelInvalid,
        "No Xcode model at '\(url.path)': nothing exists at that path. Pass the .xcdatamodeld folder (or one "
          + ".xcdatamodel folder) of your model, for example from Bundle.module.url(forResource:withExtension:), "
          + "and check that the package copies it as a resource.",
        url: url)
    }
    let pathExtension = url.pathExtension.lowercased()
    if !isDirectory.boolValue {
      let folder = url.deletingLastPathComponent()
      if url.lastPathComponent == "contents" {
        return Location(url: url, versions: [version(at: folder)], bundleURL: nil)
      }
      throw ObjectGraphError(
        .modelInvalid,
        "'\(url.path)' is \(ModelFile.kind(of: url) ?? "a file"), not an Xcode model folder. Pass a .xcdatamodeld or .xcdatamodel folder, or a "
          + "compiled .momd folder or .mom file.",
        url: url)
    }
    if pathExtension == modelExtension {
      return Location(url: url, versions: [version(at: url)], bundleURL: nil)
    }
    let children = try folderEntries(url)
    if pathExtension != bundleExtension, children.contains("contents") {
      return Location(url: url, versions: [version(at: url)], bundleURL: nil)
    }
    let versions = children.filter { ($0 as NSString).pathExtension.lowercased() == modelExtension }
      .map { version(at: url.appendingPathComponent($0, isDirectory: true)) }
      .sorted { naturallyOrdered($0.name, $1.name) }
    guard !versions.isEmpty else {
      if pathExtension == bundleExtension {
        throw ObjectGraphError(
          .modelInvalid,
          "The Xcode model '\(url.path)' contains no model version (no .xcdatamodel folder inside it). Add a "
            + "version in Xcode (Editor > Add Model Version), or restore the missing .xcdatamodel folder from "
            + "version control.",
          url: url)
      }
      throw ObjectGraphError(
        .modelInvalid,
        "'\(url.path)' is not an Xcode model: it is neither a .xcdatamodeld folder nor a .xcdatamodel folder, and "
          + "holds no 'contents' file or .xcdatamodel folder. Pass your model's .xcdatamodeld folder.",
        url: url)
    }
    return Location(url: url, versions: versions, bundleURL: url)
  }

  /// The names in a folder, hidden ones included.
  private static func folderEntries(_ url: URL) throws -> [String] {
    do {
      return try FileManager.default.contentsOfDirectory(atPath: url.path)
    } catch {
      throw ObjectGraphError(
        .modelInvalid,
        "Cannot list the Xcode model folder '\(url.path)': \(error.localizedDescription). Check that it is "
          + "readable.",
        url: url)
    }
  }

  private static func version(at folder: URL) -> Version {
    let folderName = folder.lastPathComponent
    let name =
      (folderName as NSString).pathExtension.lowercased() == modelExtension
      ? (folderName as NSString).deletingPathExtension : folderName
    return Version(name: name, folderURL: folder)
  }

  /// The version `init(contentsOf:)` loads: the one `.xccurrentversion` names, else the only one, else the
  /// last by natural order. Refused when that version has a twin whose name differs only in case (see
  /// ``refuseCaseTwins(of:in:)``).
  static func currentVersion(of location: Location) throws -> Version {
    guard let last = location.versions.last else {
      throw ObjectGraphError(
        .modelInvalid, "The Xcode model '\(location.url.path)' contains no model version.", url: location.url)
    }
    guard let bundleURL = location.bundleURL else { return last }
    let markerURL = bundleURL.appendingPathComponent(currentVersionFileName, isDirectory: false)
    guard FileManager.default.fileExists(atPath: markerURL.path) else {
      try refuseCaseTwins(of: last, in: location, markerURL: nil)
      return last
    }
    let named = try currentVersionName(in: markerURL)
    let wanted =
      (named as NSString).pathExtension.lowercased() == modelExtension
      ? (named as NSString).deletingPathExtension : named
    guard let match = location.versions.first(where: { $0.name == wanted }) else {
      let known = location.versions.map { "'\($0.name).\(modelExtension)'" }.joined(separator: ", ")
      throw ObjectGraphError(
        .modelInvalid,
        "'\(markerURL.path)' names '\(named)' as the current model version, but '\(bundleURL.lastPathComponent)' "
          + "has no such version (it has \(known)). Pick the current version in Xcode's File inspector (Model "
          + "Version), fix \(currentVersionKey) in the file, or delete the file to use the last version.",
        url: markerURL)
    }
    try refuseCaseTwins(of: match, in: location, markerURL: markerURL)
    return match
  }

  /// Refuses a current version whose folder has a twin in the same `.xcdatamodeld` whose name differs only in
  /// case (`Notes 2.xcdatamodel` and `notes 2.xcdatamodel`). Linux keeps both; a case-insensitive file
  /// system (macOS's default, where Xcode runs) holds only one, so which model is current would depend on
  /// the machine. Both are then claiming to be current, and the loader names them rather than pick one.
  private static func refuseCaseTwins(of current: Version, in location: Location, markerURL: URL?) throws {
    let twins = location.versions.filter { $0.name.lowercased() == current.name.lowercased() }
    guard twins.count > 1 else { return }
    let names = twins.map { "'\($0.folderURL.lastPathComponent)'" }.joined(separator: " and ")
    let chosenBy =
      markerURL.map { "'\($0.path)' names '\(current.name)' as the current version" }
      ?? "Without a \(currentVersionFileName) file the last version, '\(current.name)', is current"
    throw ObjectGraphError(
      .modelInvalid,
      "\(chosenBy), but the Xcode model '\(location.url.path)' has \(twins.count) version folders of that name "
        + "differing only in case: \(names). On a case-insensitive file system (macOS's default) they are one "
        + "folder, so which model is current would depend on the machine. Rename or remove all but one of them.",
      url: markerURL ?? location.url)
  }

  /// Reads `_XCCurrentVersionName` from a `.xccurrentversion` property list.
  private static func currentVersionName(in markerURL: URL) throws -> String {
    let data = try ModelFile.read(
      markerURL, what: "the current model version file",
      remedy: "Pick the current version again in Xcode's File inspector, or delete the file to use the last version.")
    let plist: Any
    do {
      plist = try CurrentVersionPlist.read(data) ?? PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    } catch {
      throw ObjectGraphError(
        .modelInvalid,
        "'\(markerURL.path)' is not a readable property list (\(error.localizedDescription)). Xcode writes it "
          + "when you pick the current model version; pick it again in the File inspector, or delete the file to "
          + "use the last version.",
        url: markerURL)
    }
    if let dictionary = plist as? [String: Any], let names = dictionary[currentVersionKey] as? [Any], names.count > 1 {
      let listed = names.map { "'\($0)'" }.joined(separator: " and ")
      throw ObjectGraphError(
        .modelInvalid,
        "'\(markerURL.path)' names \(names.count) model versions as current (\(currentVersionKey) is a list: "
          + "\(listed)); exactly one version is current. Pick the current version in Xcode's File inspector (Model "
          + "Version), which writes one name, or delete the file to use the last version.",
        url: markerURL)
    }
    guard let dictionary = plist as? [String: Any], let name = dictionary[currentVersionKey] as? String,
      !name.isEmpty
    else {
      throw ObjectGraphError(
        .modelInvalid,
        "'\(markerURL.path)' does not name the current model version (no \(currentVersionKey) string). Pick the "
          + "current version in Xcode's File inspector, or delete the file to use the last version.",
        url: markerURL)
    }
    return name
  }

  /// Natural order of version names: runs of digits compare by value, so `Model 2` comes before `Model 10`;
  /// a name comes before the longer names it starts (`Model` before `Model 2`).
  static func naturallyOrdered(_ lhs: String, _ rhs: String) -> Bool {
    let left = naturalChunks(lhs)
    let right = naturalChunks(rhs)
    for (a, b) in zip(left, right) where a != b {
      if a.isNumber && b.isNumber {
        let x = a.text.drop(while: { $0 == "0" })
        let y = b.text.drop(while: { $0 == "0" })
        if x.count != y.count { return x.count < y.count }
        if x != y { return x < y }
        continue
      }
      return a.text < b.text
    }
    if left.count != right.count { return left.count < right.count }
    return lhs < rhs
  }

  private struct NaturalChunk: Equatable {
    let text: String
    let isNumber: Bool
  }

  private static func naturalChunks(_ text: String) -> [NaturalChunk] {
    var chunks: [NaturalChunk] = []
    var current = ""
    var currentIsNumber = false
    for character in text {
      let isDigit = character.isASCII && character.isNumber
      if !current.isEmpty && isDigit != currentIsNumber {
        chunks.append(NaturalChunk(text: current, isNumber: currentIsNumber))
        current = ""
      }
      current.append(character)
      currentIsNumber = isDigit
    }
    if !current.isEmpty { chunks.append(NaturalChunk(text: current, isNumber: currentIsNumber)) }
    return chunks
  }

}
