import Foundation

/// Derived attributes, computed when a context saves, as Core Data's SQLite store computes them when the
/// rows change: each inserted or updated object's, and those of the objects a changed object points to
/// through a to-one relationship (a notebook's `notes.@sum.words` changes when one of its notes does).
extension NSManagedObjectContext {
  /// Parsed expressions, by their text: each is parsed once per process. (By text, not by entity: an
  /// entity's identity may be reused by another once it is freed.)
  private static let derivations = Locked<[String: DerivationExpression]>([:])

  func computeDerivedAttributes(_ confined: Confined) throws {
    // Most models have none: then a save pays one look at its entities.
    guard model?.entities.contains(where: { !$0.layout.derivedIndexes.isEmpty }) == true else { return }
    var targets: [ObjectIdentifier: NSManagedObject] = [:]
    func consider(_ object: NSManagedObject) {
      guard !object.layout.derivedIndexes.isEmpty, !object.state.isDeleted else { return }
      targets[ObjectIdentifier(object)] = object
    }
    let changed = confined.inserted.inOrder + Array(confined.updated) + Array(confined.deleted)
    let readers = try toOneReaders()
    for object in changed {
      consider(object)
      // The owners it points to (for a deleted object, those it pointed to when it was read).
      for index in object.layout.relationshipIndexes where !object.layout.slots[index].isToMany {
        let owner = object.values[index].objectID ?? object.snapshot?.values[index].objectID
        if let owner, !owner.entity.layout.derivedIndexes.isEmpty {
          consider(confined.registered(owner) ?? materializeFault(owner, confined))
        }
      }
      // The objects whose derived attributes read it through to-ones (`folder.name`), found by walking the
      // inverse relationships back from it (loading them when this context does not hold them).
      guard object.state.isUpdated, !object.state.isDeleted else { continue }
      for reader in readers where object.entity.isKind(of: reader.entity) {
        var reached = [object]
        for inverse in reader.inverses {
          reached = reached.flatMap { related($0, inverse, confined) }
        }
        reached.forEach(consider)
      }
    }
    for object in targets.values {
      for index in object.layout.derivedIndexes {
        let slot = object.layout.slots[index]
        guard let attribute = slot.attribute else { continue }
        let expression = try derivation(attribute.derivationFormat ?? "")
        let value = try expression.value(for: object)
        let stored = try Self.stored(value, attribute: attribute, entity: object.entity.entityName)
        guard !StoredValueComparison.isEqual(stored, object.values[index]) else { continue }
        object.values[index] = stored
        if !object.state.isInserted {
          object.changedSlots.insert(index)
          object.state.isUpdated = true
          confined.updated.insert(object)
        }
      }
    }
  }

  /// A dependency of derived attributes on objects reached through to-ones: a change to an instance of
  /// `entity` changes the derived attributes of the objects its `inverses` lead to, in order.
  private struct ToOneReader {
    let entity: NSEntityDescription
    let inverses: [String]
  }

  /// For every derived attribute of the model whose key path goes through to-ones (`folder.name`,
  /// `folder.parent.name`), one ``ToOneReader`` per hop: the hop's destination entity and the inverse
  /// relationships back to the attribute's entity. A hop without an inverse cannot be walked back and
  /// is left out, as Core Data asks every relationship to have one.
  private func toOneReaders() throws -> [ToOneReader] {
    var readers: [ToOneReader] = []
    for entity in model?.entities ?? [] {
      for index in entity.layout.derivedIndexes {
        guard let text = entity.layout.slots[index].attribute?.derivationFormat else { continue }
        for path in try derivation(text).keyPaths {
          var current = entity
          var back: [String] = []
          for key in path.dropLast() {
            guard let relationship = current.relationshipsByName[key], !relationship.isToMany,
              let destination = relationship.destinationEntity, let inverse = relationship.inverseRelationship
            else { break }
            back.insert(inverse.name, at: 0)
            readers.append(ToOneReader(entity: destination, inverses: back))
            current = destination
          }
        }
      }
    }
    return readers
  }

  /// The objects `object`'s relationship `name` holds, as objects of this context.
  private func related(_ object: NSManagedObject, _ name: String, _ confined: Confined) -> [NSManagedObject] {
    guard let index = object.layout.index(of: name) else { return [] }
    let slot = object.layout.slots[index]
    if !slot.isToMany { object.fireFault(key: name) }
    let ids: [NSManagedObjectID] =
      slot.isToMany ? Array(object.relatedIDs(slot)) : object.values[index].objectID.map { [$0] } ?? []
    return ids.map { confined.registered($0) ?? materializeFault($0, confined) }
  }

  private func derivation(_ text: String) throws -> DerivationExpression {
    if let known = Self.derivations.withLock({ $0[text] }) { return known }
    let parsed = try DerivationExpression(text)
    Self.derivations.withLock { $0[text] = parsed }
    return parsed
  }

  /// A computed value as the attribute stores it.
  private static func stored(_ value: PredicateValue, attribute: NSAttributeDescription, entity: String) throws -> StoredValue {
    let plain: Any? =
      switch value {
      case .null: nil
      case .string(let text): text
      case .integer(let number): number
      // An aggregate of integers (`@sum`, `@avg`) is a double; an integer attribute takes it when exact.
      case .double(let number): attribute.attributeType.isInteger ? Int64(exactly: number) ?? number : number
      case .bool(let flag): flag
      case .date(let date): date
      case .data(let data): data
      case .uuid(let uuid): uuid
      case .url(let url): url
      case .decimal(let number): number
      case .objectID, .collection, .entity: nil
      }
    guard let plain else { return nil }
    guard let stored = SlotValue.coerce(plain, to: attribute.attributeType) else {
      throw ObjectGraphError(
        .invalidValue,
        "Derived attribute \(entity).\(attribute.name) (\(attribute.derivationFormat ?? "")) computed a \(type(of: plain)), which a \(attribute.attributeType.xcodeName) attribute cannot hold. Change the attribute's type or its expression."
      )
    }
    return stored
  }
}
