import Foundation

/// The search of ``NSMappingModel/init(from:forSourceModel:destinationModel:)``: the mapping model files at the
/// top of some folders (bundles' resources) whose entity version hashes are those of two models.
enum MappingFileSearch {
  /// The entity mappings of the first file that matches: compiled `.cdm` files first, in every folder, then
  /// `.xcmappingmodel` folders (each folder's files in name order); `nil` when none matches.
  static func find(in folders: [URL], source: NSManagedObjectModel, destination: NSManagedObjectModel) throws
    -> [NSEntityMapping]?
  {
    for url in files(MappingFileReader.compiledExtension, in: folders) {
      let mappings = try MappingFileReader.read(url, models: nil, checkingExpressions: false)
      if MappingFileReader.matches(mappings, source: source, destination: destination) {
        try MappingFileReader.checkExpressions(mappings, source: source, file: url)
        return mappings
      }
    }
    var unreadable: [ObjectGraphError] = []
    for url in files(MappingFileReader.xcodeExtension, in: folders) {
      let mappings: [NSEntityMapping]
      do {
        mappings = try MappingFileReader.read(url, models: nil, checkingExpressions: false)
      } catch let error as ObjectGraphError {
        unreadable.append(error)
        continue
      }
      if MappingFileReader.matches(mappings, source: source, destination: destination) {
        try MappingFileReader.checkExpressions(mappings, source: source, file: url)
        return mappings
      }
    }
    if let first = unreadable.first {
      throw ObjectGraphError(
        .modelInvalid,
        "No mapping model in the bundles matches the two models, and one that might could not be read: "
          + "\(first.message)",
        url: first.url, underlyingError: first)
    }
    return nil
  }

  /// The items with extension `pathExtension` at the top of each folder, in name order (Foundation's
  /// `urls(forResourcesWithExtension:)` returns NSURLs on Linux, so the folders are listed directly).
  private static func files(_ pathExtension: String, in folders: [URL]) -> [URL] {
    folders.flatMap { folder -> [URL] in
      let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
      return names.filter { !$0.hasPrefix(".") && ($0 as NSString).pathExtension.lowercased() == pathExtension }
        .sorted().map { folder.appendingPathComponent($0, isDirectory: pathExtension == MappingFileReader.xcodeExtension) }
    }
  }
}
