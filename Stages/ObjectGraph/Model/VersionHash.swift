import Foundation
internal import SHA256

/// Core Data's version hashes: the 32-byte digests that a store's metadata keeps for every entity
/// (`NSStoreModelVersionHashes`) and that decide whether a model can open a store without a migration.
///
/// The recipe is Core Data's own, byte for byte, so that a store written by Apple's Core Data opens here with
/// its model and a store written here opens there. Apple documents the inputs (see ``NSEntityDescription/versionHash``
/// and ``NSAttributeDescription/versionHash``), not the bytes; the bytes below reproduce every hash that Apple's
/// tools wrote into the test fixtures (`VersionInfo.plist` of a compiled model, and the metadata of stores Core
/// Data wrote, frameworks 479 to 1338). SHA-256 throughout; integers are 4 bytes, little-endian:
///
/// - a property's base: SHA-256 of its name (UTF-8), one byte `isOptional`, one byte `isTransient`, then its
///   version hash modifier (UTF-8) when it has one;
/// - an attribute: SHA-256 of the base, the attribute type (Core Data's `NSAttributeType` number: its raw value),
///   and one more byte `01` when it preserves its value in history on deletion;
/// - a relationship: SHA-256 of the base, the destination entity's name, the inverse's name (nothing when there
///   is none), the maximum count (1 for a to-one, 0 for an unbounded to-many), the minimum count, and two bytes
///   `01 00` for an ordered to-many;
/// - an entity: SHA-256 of its name, one byte `isAbstract`, the superentity's hash (when it has one), the hashes
///   of its stored properties (inherited ones included, transient ones left out) in the order of their names,
///   its version hash modifier, then its uniqueness constraints, each as its property names joined by `.`, in
///   the order of those texts.
///
/// `Docs/ObjectGraph.md` ("Files Core Data wrote", "Version hashes") names the file that proves each input, and
/// the inputs no file shows yet (an entity's modifier and where it goes, the order of several constraints,
/// derived attributes).
enum VersionHash {
  /// Which recipe a hash follows.
  enum Recipe: Sendable {
    /// Core Data's (the only one the engine writes).
    case coreData
    /// The engine's earlier guesses at the inputs no fixture showed then, which its stores of format 2 were
    /// written with: a property's modifier after everything else it hashes, one byte `01` for an ordered
    /// to-many, the entity's modifier after its constraints, the constraints in the order they were declared.
    /// Kept only to recognise those stores (they open, and get Core Data's hashes when opened read-write).
    case earlierGuesses
  }

  /// Core Data's hash of one attribute.
  static func attribute(_ attribute: NSAttributeDescription, recipe: Recipe = .coreData) -> Data {
    var bytes = base(attribute.name, attribute.isOptional, attribute.isTransient, attribute.versionHashModifier, recipe)
    append(Int32(attribute.attributeType.rawValue), to: &bytes)
    if attribute.preservesValueInHistoryOnDeletion { bytes.append(1) }
    if recipe == .earlierGuesses, let modifier = attribute.versionHashModifier { bytes.append(contentsOf: Data(modifier.utf8)) }
    // A composite's elements, by name (the engine's choice: Core Data's recipe for them is not known), so that
    // adding, removing or changing an element changes the entity's hash, as it changes the store's columns.
    for element in attribute.state.read(\.elements).sorted(by: { $0.name < $1.name }) {
      bytes.append(contentsOf: Self.attribute(element, recipe: recipe))
    }
    return SHA256.hash(bytes)
  }

  /// Core Data's hash of one relationship.
  static func relationship(_ relationship: NSRelationshipDescription, recipe: Recipe = .coreData) -> Data {
    var bytes = base(
      relationship.name, relationship.isOptional, relationship.isTransient, relationship.versionHashModifier, recipe)
    bytes.append(contentsOf: Data(relationship.destinationEntityName.utf8))
    bytes.append(contentsOf: Data((relationship.inverseRelationshipName ?? "").utf8))
    // Core Data's to-one is a relationship whose maximum is 1; a count is kept as 32 bits, so Int.max
    // (what some code gives for "no limit") is cut to its low 32 bits.
    let maximum = relationship.isToMany ? relationship.storedMaxCount : 1
    append(Int32(truncatingIfNeeded: maximum), to: &bytes)
    append(Int32(truncatingIfNeeded: relationship.minCount), to: &bytes)
    if relationship.isToMany && relationship.isOrdered {
      // Core Data's two bytes (the Bookmarks store's hashes prove them); the engine once guessed one.
      bytes.append(contentsOf: recipe == .coreData ? [1, 0] : [1])
    }
    if recipe == .earlierGuesses, let modifier = relationship.versionHashModifier {
      bytes.append(contentsOf: Data(modifier.utf8))
    }
    return SHA256.hash(bytes)
  }

  /// Core Data's hash of an entity, from its superentity's hash (computed first) and its properties'.
  static func entity(_ entity: NSEntityDescription, recipe: Recipe = .coreData) -> Data {
    var bytes = Data(entity.entityName.utf8)
    bytes.append(entity.isAbstract ? 1 : 0)
    if let parent = entity.superentity {
      bytes.append(contentsOf: recipe == .coreData ? parent.versionHash : Self.entity(parent, recipe: recipe))
    }
    for property in entity.properties.sorted(by: { $0.name < $1.name }) {
      switch property.kind {
      case .attribute(let attribute) where !attribute.isTransient:
        bytes.append(contentsOf: recipe == .coreData ? attribute.versionHash : Self.attribute(attribute, recipe: recipe))
      case .relationship(let relationship) where !relationship.isTransient:
        bytes.append(
          contentsOf: recipe == .coreData ? relationship.versionHash : Self.relationship(relationship, recipe: recipe))
      default:
        continue
      }
    }
    let modifier = entity.versionHashModifier.map { Data($0.utf8) } ?? Data()
    var constraints = entity.uniquenessConstraints.map { $0.joined(separator: ".") }
    if recipe == .coreData {
      bytes.append(contentsOf: modifier)
      constraints.sort()
    }
    for constraint in constraints { bytes.append(contentsOf: Data(constraint.utf8)) }
    if recipe == .earlierGuesses { bytes.append(contentsOf: modifier) }
    return SHA256.hash(bytes)
  }

  /// Whether the engine's earlier guesses (``Recipe/earlierGuesses``) give `entity` another hash than Core
  /// Data's: only when it or an entity above it has a version hash modifier (its own or a property's), an
  /// ordered to-many, or several uniqueness constraints.
  static func earlierGuessesDiffer(for entity: NSEntityDescription) -> Bool {
    var current: NSEntityDescription? = entity
    while let entity = current {
      if entity.versionHashModifier != nil || entity.uniquenessConstraints.count > 1 { return true }
      for property in entity.ownProperties {
        switch property.kind {
        case .attribute(let attribute) where attribute.versionHashModifier != nil: return true
        case .relationship(let relationship)
        where relationship.versionHashModifier != nil || (relationship.isToMany && relationship.isOrdered):
          return true
        default: continue
        }
      }
      current = entity.superentity
    }
    return false
  }

  /// The digest the engine wrote into its stores before it computed Core Data's (stores marked with format
  /// version 1 or with no format key): the SHA-256 of a text listing the same inputs. Kept only to recognise
  /// those stores, which then open without a migration and get Core Data's hashes in their metadata.
  static func legacyEntity(_ entity: NSEntityDescription) -> Data {
    var parts = ["entity:\(entity.entityName)", "abstract:\(entity.isAbstract)", "super:\(entity.superentity?.name ?? "")"]
    if let modifier = entity.versionHashModifier { parts.append("modifier:\(modifier)") }
    if !entity.uniquenessConstraints.isEmpty {
      parts.append("uniqueness:" + entity.uniquenessConstraints.map { $0.joined(separator: ",") }.joined(separator: ";"))
    }
    for property in entity.properties.sorted(by: { $0.name < $1.name }) {
      switch property.kind {
      case .attribute(let attribute):
        parts.append(
          "attribute:\(attribute.name):\(attribute.attributeType.xcodeName):\(attribute.isOptional):\(attribute.isTransient):\(attribute.versionHashModifier ?? "")"
        )
      case .relationship(let relationship):
        // The old recipe read the counts the loader kept: none on a to-one.
        let minimum = relationship.isToMany ? relationship.minCount : 0
        let maximum = relationship.isToMany ? relationship.storedMaxCount : 0
        parts.append(
          "relationship:\(relationship.name):\(relationship.destinationEntityName):\(relationship.inverseRelationshipName ?? ""):\(relationship.isToMany):\(relationship.isOrdered):\(relationship.isOptional):\(relationship.isTransient):\(minimum):\(maximum):\(relationship.versionHashModifier ?? "")"
        )
      }
    }
    return SHA256.hash(Data(parts.joined(separator: "\n").utf8))
  }

  /// A property's base: its name, optionality and transience, and (in Core Data's recipe) its modifier.
  private static func base(
    _ name: String, _ isOptional: Bool, _ isTransient: Bool, _ modifier: String?, _ recipe: Recipe
  ) -> Data {
    var bytes = Data(name.utf8)
    bytes.append(isOptional ? 1 : 0)
    bytes.append(isTransient ? 1 : 0)
    if recipe == .coreData, let modifier { bytes.append(contentsOf: Data(modifier.utf8)) }
    return SHA256.hash(bytes)
  }

  private static func append(_ value: Int32, to bytes: inout Data) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }
}
