import Foundation

/// Turns a batch insert's dictionaries into rows of slot values, checking each key and value against the
/// entity: what the entity's attributes are is worked out once, not for every row.
struct BatchRowReader {
  /// A stored attribute a dictionary may name.
  private struct Column {
    let index: Int
    let type: AttributeType
    let attribute: AttributeDescription
  }

  let entity: EntityDescription
  private let columns: [String: Column]
  private let required: [(index: Int, name: String)]
  private let defaults: [StoredValue]

  init(entity: EntityDescription) {
    self.entity = entity
    var columns: [String: Column] = [:]
    var required: [(Int, String)] = []
    for slot in entity.layout.slots where !slot.isTransient {
      guard let attribute = slot.attribute, attribute.unsupportedReason == nil else { continue }
      columns[slot.name] = Column(index: slot.index, type: attribute.attributeType, attribute: attribute)
      if !slot.isOptional { required.append((slot.index, slot.name)) }
    }
    self.columns = columns
    self.required = required
    defaults = entity.layout.initialValues
  }

  /// Row `number`'s values: the defaults, with the dictionary's values over them.
  /// - Throws: ``ObjectGraphError/Code/unknownKey`` for a key the entity does not have,
  ///   ``ObjectGraphError/Code/invalidValue`` for a relationship, a transient or a value of the wrong type,
  ///   ``ObjectGraphError/Code/unsupportedFeature`` for an attribute the engine does not store,
  ///   ``ObjectGraphError/Code/validationMissingMandatoryProperty`` for a required attribute left empty.
  func row(_ dictionary: [String: Any], number: Int) throws -> [StoredValue] {
    var values = defaults
    for (key, value) in dictionary {
      guard let column = columns[key] else { throw refusal(key, number) }
      if value is NSNull {
        values[column.index] = nil
        continue
      }
      if column.type == .transformable {
        let stored = column.attribute.transformedSlotValue(value)
        if case .boxed(let box)? = stored, let refused = box.value as? UntransformableValue {
          throw ObjectGraphError(
            .validationValue, "Row \(number) of the batch insert: \(refused.error.message) Nothing was inserted.",
            underlyingError: refused.error)
        }
        values[column.index] = stored
        continue
      }
      guard let stored = ManagedObject.coerce(value, to: column.type) else {
        if case Optional<Any>.none = value {
          values[column.index] = nil
          continue
        }
        throw ObjectGraphError(
          .invalidValue,
          "Row \(number) of the batch insert gives \(entity.name).\(key) a \(type(of: value)), but the attribute holds \(column.type.swiftTypeName). Nothing was inserted."
        )
      }
      values[column.index] = stored
    }
    for (index, name) in required where values[index] == nil {
      throw ObjectGraphError(
        .validationMissingMandatoryProperty,
        "Row \(number) of the batch insert leaves \(entity.name).\(name) without a value, and it is required. Nothing was inserted.")
    }
    return values
  }

  /// Why `key` cannot be set by a batch insert.
  private func refusal(_ key: String, _ number: Int) -> ObjectGraphError {
    guard let index = entity.layout.index(of: key) else {
      let names = entity.layout.slots.filter { $0.attribute != nil }.map(\.name).joined(separator: ", ")
      return ObjectGraphError(
        .unknownKey,
        "Row \(number) of the batch insert names '\(key)', which entity \(entity.name) does not have. Its attributes: \(names).")
    }
    let slot = entity.layout.slots[index]
    if let reason = slot.attribute?.unsupportedReason {
      return ObjectGraphError(.unsupportedFeature, "\(entity.name).\(key) \(reason); a batch request cannot set it.")
    }
    return ObjectGraphError(
      .invalidValue,
      "\(entity.name).\(key) is \(slot.isTransient ? "transient" : "a relationship"): a batch request sets stored attributes only (as in Core Data). Set relationships on objects instead."
    )
  }
}
