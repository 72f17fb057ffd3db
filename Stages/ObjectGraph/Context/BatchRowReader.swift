import Foundation

/// Turns the dictionaries of batch requests into slot values, checking each key and value against the
/// entity: what the entity's attributes are is worked out once, not for every row. A batch insert reads
/// each row over the defaults (``row(_:number:)``); a batch update reads its values over nothing.
struct BatchRowReader {
  /// A stored attribute a dictionary may name.
  private struct Column {
    let index: Int
    let type: NSAttributeType
    let attribute: NSAttributeDescription
  }

  let entity: NSEntityDescription
  private let columns: [String: Column]
  private let required: [(index: Int, name: String)]
  private let defaults: [StoredValue]

  init(entity: NSEntityDescription) {
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

  /// Row `number` of a batch insert: the defaults, with the dictionary's values over them.
  /// - Throws: what ``values(_:over:place:outcome:)`` throws, and
  ///   ``NSValidationMissingMandatoryPropertyError`` for a required attribute left empty.
  func row(_ dictionary: [String: Any], number: Int) throws -> [StoredValue] {
    // The place is worded only for an error: making the text for every row cost a tenth of a batch insert.
    let values = try self.values(
      dictionary, over: defaults, place: "Row \(number) of the batch insert", outcome: "Nothing was inserted.")
    for (index, name) in required where values[index] == nil {
      throw ObjectGraphError(
        .validationMissingMandatoryProperty,
        "Row \(number) of the batch insert leaves \(entity.entityName).\(name) without a value, and it is required. Nothing was inserted.")
    }
    return values
  }

  /// A batch update's values, by slot: only the slots it sets (`nil` in one clears it).
  /// - Throws: what ``values(_:over:place:outcome:)`` throws, and
  ///   ``NSValidationMissingMandatoryPropertyError`` for a required attribute it clears.
  func changes(_ dictionary: [String: Any]) throws -> [Int: StoredValue] {
    let values = try self.values(
      dictionary, over: [StoredValue](repeating: nil, count: defaults.count), place: "The batch update",
      outcome: "Nothing was changed.")
    var changes: [Int: StoredValue] = [:]
    for key in dictionary.keys {
      guard let column = columns[key] else { continue }
      if values[column.index] == nil && required.contains(where: { $0.index == column.index }) {
        throw ObjectGraphError(
          .validationMissingMandatoryProperty,
          "The batch update would clear \(entity.entityName).\(key), which is required. Nothing was changed.")
      }
      changes[column.index] = values[column.index]
    }
    return changes
  }

  /// `dictionary`'s values over `start`, each checked against its attribute; errors name `place` ("Row 3
  /// of the batch insert") and end with `outcome`.
  /// - Throws: ``ObjectGraphUnknownKeyError`` for a key the entity does not have,
  ///   ``ObjectGraphInvalidValueError`` for a relationship, a transient or a value of the wrong type,
  ///   ``ObjectGraphUnsupportedFeatureError`` for an attribute the engine does not store,
  ///   ``NSManagedObjectValidationError`` for a value its transformer refuses.
  private func values(
    _ dictionary: [String: Any], over start: [StoredValue], place: @autoclosure () -> String, outcome: String
  ) throws -> [StoredValue] {
    var values = start
    for (key, value) in dictionary {
      guard let column = columns[key] else { throw refusal(key, place()) }
      switch column.type {
      case .transformableAttributeType, .compositeAttributeType, .objectIDAttributeType, .undefinedAttributeType:
        // Types any value coerces to (kept boxed): a nil value must be seen first.
        if value is NSNull {
          values[column.index] = nil
          continue
        }
      default:
        break
      }
      if column.type == .transformableAttributeType {
        let stored = column.attribute.transformedSlotValue(value)
        if let refused = stored.untransformable {
          throw ObjectGraphError(
            .managedObjectValidation, "\(place()): \(refused.error.message) \(outcome)", underlyingError: refused.error)
        }
        values[column.index] = stored
        continue
      }
      // `NSNull` (a nil value) is looked for only when the value is not one of the attribute's type: asking
      // `is NSNull` of every value costs a bridging lookup each.
      guard let stored = SlotValue.coerce(value, to: column.type) else {
        if case Optional<Any>.none = value {
          values[column.index] = nil
          continue
        }
        if value is NSNull {
          values[column.index] = nil
          continue
        }
        throw ObjectGraphError(
          .invalidValue,
          "\(place()) gives \(entity.entityName).\(key) a \(type(of: value)), but the attribute holds \(column.type.swiftTypeName). \(outcome)"
        )
      }
      values[column.index] = stored
    }
    return values
  }

  /// Why `key` cannot be set by a batch request.
  private func refusal(_ key: String, _ place: String) -> ObjectGraphError {
    guard let index = entity.layout.index(of: key) else {
      let names = entity.layout.slots.filter { $0.attribute != nil }.map(\.name).joined(separator: ", ")
      return ObjectGraphError(
        .unknownKey,
        "\(place) names '\(key)', which entity \(entity.entityName) does not have. Its attributes: \(names).")
    }
    let slot = entity.layout.slots[index]
    if let reason = slot.attribute?.unsupportedReason {
      return ObjectGraphError(.unsupportedFeature, "\(entity.entityName).\(key) \(reason); a batch request cannot set it.")
    }
    return ObjectGraphError(
      .invalidValue,
      "\(entity.entityName).\(key) is \(slot.isTransient ? "transient" : "a relationship"): a batch request sets stored attributes only (as in Core Data). Set relationships on objects instead."
    )
  }
}
