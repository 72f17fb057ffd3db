import Foundation

/// How Core Data's SQLite store keeps the value of an attribute that allows external storage
/// (``NSAttributeDescription/allowsExternalBinaryDataStorage``, Binary Data or Transformable): the column holds
/// one tag byte, then
///
/// - `01`: the value's bytes, in the row;
/// - `02`: the name of a file (a UUID, in ASCII, possibly followed by a NUL byte) in the store's hidden folder
///   `.<store file's name without extension>_SUPPORT/_EXTERNAL_DATA/`, beside the store, holding the bytes.
///
/// Apple documents neither; the form is what Core Data's files show (apps and tools reading them describe the
/// same tags and folder). The engine reads both and writes the first: Core Data decides value by value where a
/// value goes, so a value in its row is a value Core Data reads. Stores the engine wrote before it followed
/// this (format 2) hold such values untagged; ``Form`` says which a store holds, and a read-write open tags them
/// (``NSPersistentStore/tagExternalRecords(in:schema:metadata:url:)``).
enum ExternalBinaryRecord {
  /// Whether a store's columns hold tagged values (Core Data's form) or bare bytes (the engine's format 1 and 2).
  enum Form: Sendable, Equatable {
    case tagged
    case bare

    /// The form of the store `metadata` describes: Core Data's stores (no engine format key) and the engine's
    /// from format 3 on are tagged.
    init(metadata: [String: any Sendable]) {
      guard let format = metadata[ObjectGraphStoreFormatVersionKey] as? Int else {
        self = .tagged
        return
      }
      self = format >= 3 ? .tagged : .bare
    }
  }

  /// The tag of a value kept in its row.
  static let inRow: UInt8 = 1
  /// The tag of a value kept in a file of the store's external data folder.
  static let inFile: UInt8 = 2

  /// The column's bytes for `data`: the in-row tag, then the bytes.
  static func tagged(_ data: Data) -> Data {
    var bytes = Data(capacity: data.count + 1)
    bytes.append(inRow)
    bytes.append(data)
    return bytes
  }

  /// The value a tagged column holds: the bytes after an in-row tag, or the contents of the file an in-file tag
  /// names (`nil`, with a warning, when the file cannot be read: the column is left as it is, so a later
  /// save that does not set the attribute keeps the reference). A value without a known tag is returned as it
  /// is: Core Data's stores tag every value of such an attribute, so it can only have been written while the
  /// attribute did not allow external storage.
  static func value(of column: Data, storeURL: URL?) -> Data? {
    guard let tag = column.first else { return column }
    switch tag {
    case inRow:
      return Data(column.dropFirst())
    case inFile:
      guard let name = fileName(column) else { return column }
      guard let storeURL else {
        ErrorLog.warn(
          "A value kept in the external data file '\(name)' cannot be read: the store has no file, so no external data folder. The attribute reads as nil."
        )
        return nil
      }
      let file = folder(for: storeURL).appendingPathComponent(name)
      do {
        return try Data(contentsOf: file)
      } catch {
        ErrorLog.warn(
          "The external data file \(file.path), which a row of the store at \(storeURL.path) names, cannot be read (\(error.localizedDescription)). The attribute reads as nil; the row keeps the reference until the attribute is set."
        )
        return nil
      }
    default:
      return column
    }
  }

  /// The file name an in-file column holds: ASCII letters, digits and `-` after the tag, up to an optional
  /// NUL; `nil` when the bytes are no such name (then the column is not a reference).
  static func fileName(_ column: Data) -> String? {
    guard column.first == inFile else { return nil }
    var name = column.dropFirst()
    while name.last == 0 { name = name.dropLast() }
    guard !name.isEmpty, name.count <= 64,
      name.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D })
    else { return nil }
    return String(decoding: name, as: UTF8.self)
  }

  /// The store's external data folder: `.<name>_SUPPORT/_EXTERNAL_DATA` beside the store file `<name>.<ext>`.
  static func folder(for storeURL: URL) -> URL {
    supportFolder(for: storeURL).appendingPathComponent("_EXTERNAL_DATA", isDirectory: true)
  }

  /// The hidden folder Core Data keeps beside a store for its external data: `.<name>_SUPPORT`.
  static func supportFolder(for storeURL: URL) -> URL {
    let name = storeURL.deletingPathExtension().lastPathComponent
    return storeURL.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT", isDirectory: true)
  }
}
