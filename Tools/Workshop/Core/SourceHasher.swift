import Foundation
import SHA256

/// Fingerprints an exercise's sources, so status can tell "not started" and "changed since last check".
///
/// The hash is SHA-256 over, for each regular file under the manifest's `sources` (folders are walked;
/// names starting with "." are skipped, as is `.build`), in byte order of their root-relative paths:
/// the path, a zero byte, the file's length in decimal, a zero byte, and its bytes. A source path that
/// does not exist contributes "missing:" + the path + a zero byte. File dates and permissions play no part.
enum SourceHasher {
  /// The root-relative paths of the files that make up `sources`, sorted.
  static func files(of sources: [String], root: URL) -> [String] {
    let manager = FileManager.default
    var files: Set<String> = []
    for source in sources {
      let trimmed = source.hasSuffix("/") ? String(source.dropLast()) : source
      let url = root.appendingPathComponent(trimmed)
      var isDirectory: ObjCBool = false
      guard manager.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
      guard isDirectory.boolValue else {
        files.insert(trimmed)
        continue
      }
      for subpath in (try? manager.subpathsOfDirectory(atPath: url.path)) ?? [] {
        if subpath.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
        var isFolder: ObjCBool = false
        let full = url.appendingPathComponent(subpath).path
        if manager.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue {
          files.insert(trimmed + "/" + subpath)
        }
      }
    }
    return files.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
  }

  /// The same hash over files given as (root-relative path, contents), for sources read from elsewhere
  /// (a commit). `missing` lists the sources that are not there.
  static func hash(files: [(path: String, contents: Data)], missing: [String]) -> String {
    var hasher = SHA256()
    for source in missing { hasher.update("missing:\(source)\u{0}") }
    for (path, data) in files.sorted(by: { Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8)) }) {
      hasher.update("\(path)\u{0}\(data.count)\u{0}")
      hasher.update(data)
    }
    return hasher.finalize()
  }

  static func hash(of sources: [String], root: URL) -> String {
    let missing = sources.filter { !FileManager.default.fileExists(atPath: root.appendingPathComponent($0).path) }
    let files = files(of: sources, root: root).map { file in
      (path: file, contents: (try? Data(contentsOf: root.appendingPathComponent(file))) ?? Data())
    }
    return hash(files: files, missing: missing)
  }

}
