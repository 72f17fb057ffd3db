import Foundation

/// Where a reader of persistent history got to: for each store
/// of the coordinator, the number of the last transaction read. One token covers every store, as Core
/// Data's `currentPersistentHistoryToken(fromStores:)` gives "a single token representing all of the
/// specified stores"; `NSPersistentHistoryChangeRequest.fetchHistory(after: token)` reads each store
/// after its own position.
///
/// Keep the token of the last transaction you processed and fetch the history after it next time. To
/// keep it across launches, archive it as Core Data's is archived (it is `NSSecureCoding`), or encode it
/// (it is `Codable`):
///
/// ```swift
/// let data = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
/// try data.write(to: tokenFile)
/// let saved = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersistentHistoryToken.self, from: Data(contentsOf: tokenFile))
/// ```
public final class NSPersistentHistoryToken: NSObject, NSSecureCoding, NSCopying, Codable, Sendable {
  /// For each store the token covers, by the store's ``NSPersistentStore/identifier``, the number of the
  /// last transaction read there (0 when none was).
  public let transactionNumbers: [String: Int64]

  /// A token at the given position in each store.
  init(transactionNumbers: [String: Int64]) {
    self.transactionNumbers = transactionNumbers
  }

  /// A token at one transaction of one store.
  convenience init(storeIdentifier: String, transactionNumber: Int64) {
    self.init(transactionNumbers: [storeIdentifier: transactionNumber])
  }

  /// The number of the last transaction read in the store with the given identifier, or `nil` when the
  /// token does not cover that store (a fetch after the token then reads all of that store's history).
  public func transactionNumber(forStore identifier: String) -> Int64? {
    transactionNumbers[identifier]
  }

  // MARK: NSSecureCoding

  /// `true`: the token decodes with `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`.
  public static var supportsSecureCoding: Bool { true }

  private static let archiveKey = "transactionNumbers"

  /// Archives the token's positions, as a dictionary of store identifiers to transaction numbers.
  public func encode(with coder: NSCoder) {
    let positions = NSMutableDictionary()
    for (store, number) in transactionNumbers {
      positions[NSString(string: store)] = NSNumber(value: number)
    }
    coder.encode(positions, forKey: Self.archiveKey)
  }

  /// Reads a token back from an archive; `nil` (and the unarchiver's error) when the archive holds no
  /// token's positions.
  public init?(coder: NSCoder) {
    guard
      let archived = coder.decodeObject(of: [NSDictionary.self, NSString.self, NSNumber.self], forKey: Self.archiveKey)
        as? NSDictionary
    else { return nil }
    var positions: [String: Int64] = [:]
    for (key, value) in archived {
      guard let store = key as? String, let number = value as? NSNumber else { return nil }
      positions[store] = number.int64Value
    }
    transactionNumbers = positions
  }

  /// The token itself: it never changes.
  public func copy(with zone: NSZone? = nil) -> Any { self }

  // MARK: Codable

  private enum CodingKeys: String, CodingKey {
    case transactionNumbers
    // A token encoded before tokens covered several stores.
    case storeIdentifier, transactionNumber
  }

  /// Decodes a token, including one encoded when a token named a single store.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    if let positions = try container.decodeIfPresent([String: Int64].self, forKey: .transactionNumbers) {
      transactionNumbers = positions
    } else {
      transactionNumbers = [
        try container.decode(String.self, forKey: .storeIdentifier): try container.decode(Int64.self, forKey: .transactionNumber)
      ]
    }
  }

  /// Encodes the token's positions.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(transactionNumbers, forKey: .transactionNumbers)
  }

  // MARK: Equality

  /// Tokens are equal when they hold the same position in the same stores.
  public override func isEqual(_ object: Any?) -> Bool {
    (object as? NSPersistentHistoryToken)?.transactionNumbers == transactionNumbers
  }

  /// Hashes the positions, consistently with ``isEqual(_:)``.
  public override var hash: Int { transactionNumbers.hashValue }

  /// The positions, store by store: `<NSPersistentHistoryToken {"STORE-UUID": 12}>`.
  public override var description: String {
    let positions = transactionNumbers.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }
    return "<NSPersistentHistoryToken {\(positions.joined(separator: ", "))}>"
  }
}
