import Foundation

/// A token that names a generation of the persistent store, which a context reads from while it is pinned
/// to it (Core Data's `NSQueryGenerationToken`; "Query generations" in Docs/ObjectGraph.md).
///
/// ```swift
/// try viewContext.setQueryGenerationFrom(.current)        // pinned at its next read
/// let token = viewContext.queryGenerationToken            // the generation it reads, once it has read
/// try otherContext.setQueryGenerationFrom(token)          // the same generation
/// try viewContext.setQueryGenerationFrom(nil)             // unpinned: every read sees the latest saves
/// ```
///
/// A token is opaque: get one from ``current`` or from a pinned context's
/// ``NSManagedObjectContext/queryGenerationToken``. Tokens are equal when they name the same generation (every
/// ``current`` token is equal to every other). A token does not keep its generation alive: the contexts pinned
/// to it do, and once none is, setting a context from the token throws. It is `Sendable` (it never changes), so
/// it may be handed to a context on another queue.
public final class NSQueryGenerationToken: NSObject, NSSecureCoding, NSCopying, Sendable {
  /// The generation's number in this process (``QueryGeneration/number``); 0 for ``current``.
  let generationNumber: UInt64
  /// The identifiers of the stores the generation covers (empty for ``current``).
  let storeIdentifiers: [String]

  /// Whether this is the token of ``current``: "the generation of the most recent transaction", taken by a
  /// context at its next read.
  var isCurrent: Bool { generationNumber == 0 }

  private init(generationNumber: UInt64, storeIdentifiers: [String]) {
    self.generationNumber = generationNumber
    self.storeIdentifiers = storeIdentifiers
  }

  /// The token of a generation.
  convenience init(_ generation: QueryGeneration) {
    self.init(generationNumber: generation.number, storeIdentifiers: generation.storeIdentifiers)
  }

  private static let currentToken = NSQueryGenerationToken(generationNumber: 0, storeIdentifiers: [])

  /// The token that pins a context to the generation of the most recent store transaction, taken lazily at
  /// the context's next read (a fetch, a count or a fault), as Core Data's `current` does.
  ///
  /// Set it again on a pinned context to move it to the newest generation.
  public class var current: NSQueryGenerationToken { currentToken }

  /// The live generation the token names, or `nil` for ``current`` or a generation that has ended.
  var generation: QueryGeneration? {
    isCurrent ? nil : QueryGeneration.alive(generationNumber)
  }

  // MARK: NSSecureCoding

  /// `true`: the token decodes with `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`.
  public static var supportsSecureCoding: Bool { true }

  private static let numberKey = "generation"
  private static let storesKey = "stores"

  /// Archives the generation's number and its stores' identifiers. A generation lives in the process that
  /// made it: a token read back in another process (or after its generation ended) names no generation.
  public func encode(with coder: NSCoder) {
    coder.encode(Int64(bitPattern: generationNumber), forKey: Self.numberKey)
    coder.encode(NSArray(array: storeIdentifiers.map { NSString(string: $0) }), forKey: Self.storesKey)
  }

  /// Reads a token back from an archive; `nil` when the archive holds no token.
  public init?(coder: NSCoder) {
    guard coder.containsValue(forKey: Self.numberKey),
      let stores = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: Self.storesKey) as? NSArray
    else { return nil }
    generationNumber = UInt64(bitPattern: coder.decodeInt64(forKey: Self.numberKey))
    storeIdentifiers = stores.compactMap { $0 as? String }
  }

  /// The token itself: it never changes.
  public func copy(with zone: NSZone? = nil) -> Any { self }

  // MARK: Equality

  /// Tokens are equal when they name the same generation; every ``current`` token equals every other.
  public override func isEqual(_ object: Any?) -> Bool {
    (object as? NSQueryGenerationToken)?.generationNumber == generationNumber
  }

  /// Hashes the generation's number, consistently with ``isEqual(_:)``.
  public override var hash: Int { generationNumber.hashValue }

  /// `<NSQueryGenerationToken current>`, or the generation's number and stores:
  /// `<NSQueryGenerationToken 3 ["STORE-UUID"]>`.
  public override var description: String {
    if isCurrent { return "<NSQueryGenerationToken current>" }
    return "<NSQueryGenerationToken \(generationNumber) \(storeIdentifiers)>"
  }
}
