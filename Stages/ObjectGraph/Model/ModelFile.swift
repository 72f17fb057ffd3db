import Foundation

/// Reading the bytes of a model or mapping file, the one way every loader does it: an error names the file,
/// what it is and what to do.
enum ModelFile {
  /// The file's bytes.
  /// - Parameters:
  ///   - file: the file.
  ///   - what: what it is, as the message names it ("the Xcode model file").
  ///   - remedy: what to do when it cannot be read, as a sentence.
  /// - Throws: ``ObjectGraphError/Code/modelInvalid`` naming the file and the reason.
  static func read(_ file: URL, what: String, remedy: String) throws -> Data {
    do {
      return try Data(contentsOf: file)
    } catch {
      throw ObjectGraphError(
        .modelInvalid, "Cannot read \(what) '\(file.path)': \(error.localizedDescription). \(remedy)", url: file)
    }
  }
}
