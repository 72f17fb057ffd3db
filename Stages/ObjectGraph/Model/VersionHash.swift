import Foundation
internal import SHA256

/// Core Data's version hashes: the 32-byte digests that a store's metadata keeps for every entity
/// (`NSStoreModelVersionHashes`) and that decide whether a model can open a store without a migration.
///
/// The recipe is Core Data's own, byte for byte, so that a store written by Apple's Core Data opens here with
/// its model and a store written here opens there. Apple documents the inputs (see ``EntityDescription/versionHash``
/// and ``AttributeDescription/versionHash``), not the bytes; the bytes below reproduce every hash that Apple's
/// tools wrote into the test fixtures (`VersionInfo.plist` of a compiled model, and the metadata of stores Core
/// Data wrote, frameworks 637 to 1044). SHA-256 throughout; integers are 4 bytes, little-endian:
///
/// - a property's base: SHA-256 of its name (UTF-8), one byte `isOptional`, one byte `isTransient`;
/// - an attribute: SHA-256 of the base, the attribute type (Core Data's `NSAttributeType` number: ``AttributeType/coreDataNumber``),
///   and one more byte `01` when it preserves its value in history on deletion;
/// - a relationship: SHA-256 of the base, the destination entity's name, the inverse's name (nothing when there
///   is none), the maximum count (1 for a to-one, 0 for an unbounded to-many) and the minimum count (and one
///   byte `01` for an ordered to-many: not proven, see below);
/// - an entity: SHA-256 of its name, one byte `isAbstract`, the superentity's hash (when it has one), the hashes
///   of its stored properties (inherited ones included, transient ones left out) in the order of their names,
///   then each of its own uniqueness constraints as its property names joined by `.`.
///
/// Not proven by the fixtures, and chosen from Apple's documentation (`Docs/ObjectGraph.md`, "Files Core Data
/// wrote", lists them): a version hash modifier's UTF-8 bytes are added at the end of what its property or
/// entity hashes (the documentation says the modifier "is included"); an ordered to-many adds one byte `01`
/// after its counts (it must differ from an unordered one: its store has an order column); derived attributes
/// hash as stored ones.
enum VersionHash {
  /// Core Data's hash of one attribute.
  static func attribute(_ attribute: AttributeDescription) -> Data {
    var bytes = base(name: attribute.name, isOptional: attribute.isOptional, isTransient: attribute.isTransient)
    append(Int32(attribute.attributeType.coreDataNumber), to: &bytes)
    if attribute.preservesValueInHistoryOnDeletion { bytes.append(1) }
    if let modifier = attribute.versionHashModifier { bytes.append(contentsOf: Data(modifier.utf8)) }
    return SHA256.hash(bytes)
  }

  /// Core Data's hash of one relationship.
  static func relationship(_ relationship: RelationshipDescription) -> Data {
    var bytes = base(name: relationship.name, isOptional: relationship.isOptional, isTransient: relationship.isTransient)
    bytes.append(contentsOf: Data(relationship.destinationEntityName.utf8))
    bytes.append(contentsOf: Data((relationship.inverseRelationshipName ?? "").utf8))
    // Core Data's to-one is a relationship whose maximum is 1; a count is kept as 32 bits, so Int.max
    // (what some code gives for "no limit") is cut to its low 32 bits.
    let maximum = relationship.isToMany ? relationship.maxCount : 1
    append(Int32(truncatingIfNeeded: maximum), to: &bytes)
    append(Int32(truncatingIfNeeded: relationship.minCount), to: &bytes)
    // Making a relationship ordered changes the store (its order column), so it must change the hash;
    // the fixtures have no ordered relationship to show Core Data's byte: one byte 01, as for the
    // attribute flag above, is the engine's choice.
    if relationship.isToMany && relationship.isOrdered { bytes.append(1) }
    if let modifier = relationship.versionHashModifier { bytes.append(contentsOf: Data(modifier.utf8)) }
    return SHA256.hash(bytes)
  }

  /// Core Data's hash of an entity, from its superentity's hash (computed first) and its properties'.
  static func entity(_ entity: EntityDescription) -> Data {
    var bytes = Data(entity.name.utf8)
    bytes.append(entity.isAbstract ? 1 : 0)
    if let parent = entity.superentity { bytes.append(contentsOf: parent.versionHash) }
    for property in entity.properties.sorted(by: { $0.name < $1.name }) {
      switch property {
      case .attribute(let attribute) where !attribute.isTransient:
        bytes.append(contentsOf: attribute.versionHash)
      case .relationship(let relationship) where !relationship.isTransient:
        bytes.append(contentsOf: relationship.versionHash)
      default:
        continue
      }
    }
    for constraint in entity.uniquenessConstraints {
      bytes.append(contentsOf: Data(constraint.joined(separator: ".").utf8))
    }
    if let modifier = entity.versionHashModifier { bytes.append(contentsOf: Data(modifier.utf8)) }
    return SHA256.hash(bytes)
  }

  /// The digest the engine wrote into its stores before it computed Core Data's (stores marked with format
  /// version 1 or with no format key): the SHA-256 of a text listing the same inputs. Kept only to recognise
  /// those stores, which then open without a migration and get Core Data's hashes in their metadata.
  static func legacyEntity(_ entity: EntityDescription) -> Data {
    var parts = ["entity:\(entity.name)", "abstract:\(entity.isAbstract)", "super:\(entity.superentity?.name ?? "")"]
    if let modifier = entity.versionHashModifier { parts.append("modifier:\(modifier)") }
    if !entity.uniquenessConstraints.isEmpty {
      parts.append("uniqueness:" + entity.uniquenessConstraints.map { $0.joined(separator: ",") }.joined(separator: ";"))
    }
    for property in entity.properties.sorted(by: { $0.name < $1.name }) {
      switch property {
      case .attribute(let attribute):
        parts.append(
          "attribute:\(attribute.name):\(attribute.attributeType.xcodeName):\(attribute.isOptional):\(attribute.isTransient):\(attribute.versionHashModifier ?? "")"
        )
      case .relationship(let relationship):
        // The old recipe read the counts the loader kept: none on a to-one.
        let minimum = relationship.isToMany ? relationship.minCount : 0
        let maximum = relationship.isToMany ? relationship.maxCount : 0
        parts.append(
          "relationship:\(relationship.name):\(relationship.destinationEntityName):\(relationship.inverseRelationshipName ?? ""):\(relationship.isToMany):\(relationship.isOrdered):\(relationship.isOptional):\(relationship.isTransient):\(minimum):\(maximum):\(relationship.versionHashModifier ?? "")"
        )
      }
    }
    return SHA256.hash(Data(parts.joined(separator: "\n").utf8))
  }

  private static func base(name: String, isOptional: Bool, isTransient: Bool) -> Data {
    var bytes = Data(name.utf8)
    bytes.append(isOptional ? 1 : 0)
    bytes.append(isTransient ? 1 : 0)
    return SHA256.hash(bytes)
  }

  private static func append(_ value: Int32, to bytes: inout Data) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }
}
