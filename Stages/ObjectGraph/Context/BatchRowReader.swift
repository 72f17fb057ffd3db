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
      // A composite is set through its elements' slots (``flattened(_:place:outcome:)``).
      guard let attribute = slot.attribute, attribute.unsupportedReason == nil, !slot.isComposite else { continue }
      columns[slot.name] = Column(index: slot.index, type: attribute.attributeType, attribute: attribute)
      if !slot.isOptional { required.append((slot.index, slot.name)) }
    }
    self.columns = columns
    self.required = required
    defaults = entity.layout.initialValues
  }

  /// The slot a batch update's computed value (an `NSExpression`) goes to, by key.
  /// - Throws: ``ObjectGraphUnknownKeyError`` for a key the entity does not have,
  ///   ``ObjectGraphInvalidValueError`` for a relationship or a transient,
  ///   ``ObjectGraphUnsupportedFeatureError`` for a transformable or composite attribute, whose stored form an
  ///   expression cannot compute.
  func computedSlot(_ key: String) throws -> (index: Int, type: NSAttributeType) {
    guard let column = columns[key] else { throw refusal(key, "The batch update") }
    guard column.type != .transformableAttributeType else {
      throw ObjectGraphError(
        .unsupportedFeature,
        "The batch update sets \(entity.entityName).\(key), a transformable attribute, with an expression: its stored bytes cannot be computed in SQL. Set a value instead. Nothing was changed."
      )
    }
    return (column.index, column.type)
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
    if !entity.layout.compositeIndexes.isEmpty {
      for slot in entity.layout.slots where slot.isComposite && slot.compositeOwner == nil && !slot.isTransient {
        if let missing = missingElement(slot, required: !slot.isOptional, in: values) {
          throw ObjectGraphError(
            .validationMissingMandatoryProperty,
            "Row \(number) of the batch insert leaves \(entity.entityName).\(missing) without a value, and it is required. Nothing was inserted."
          )
        }
      }
    }
    return values
  }

  /// The first required part of a composite without a value: the composite itself when it is required and no
  /// element has a value, else a required element of it (at any depth) without one; `nil` when none.
  private func missingElement(_ slot: EntityLayout.Slot, required: Bool, in values: [StoredValue]) -> String? {
    let slots = entity.layout.slots
    func hasValue(_ slot: EntityLayout.Slot) -> Bool {
      slot.compositeChildren.contains { child in slots[child].isComposite ? hasValue(slots[child]) : values[child] != nil }
    }
    guard hasValue(slot) else { return required ? slot.name : nil }
    for child in slot.compositeChildren.map({ slots[$0] }) {
      if child.isComposite {
        if let missing = missingElement(child, required: child.isRequiredElement, in: values) { return missing }
      } else if child.isRequiredElement && values[child.index] == nil {
        return child.name
      }
    }
    return nil
  }

  /// `dictionary` with each composite's value (a `[String: Any]` keyed by element name, as Core Data takes it)
  /// replaced by its elements' key paths (`location.latitude`); an element the value leaves out is cleared.
  private func flattened(_ dictionary: [String: Any], place: () -> String, outcome: String) throws -> [String: Any] {
    guard !entity.layout.compositeIndexes.isEmpty else { return dictionary }
    var result: [String: Any] = [:]
    func expand(_ slot: EntityLayout.Slot, _ value: Any?) throws {
      let plain = unwrappedOptional(value)
      let elements: [String: Any]
      if plain == nil || plain is NSNull {
        elements = [:]
      } else if let given = plain as? [String: Any] {
        elements = given
      } else {
        throw ObjectGraphError(
          .invalidValue,
          "\(place()) gives \(entity.entityName).\(slot.name) a \(type(of: plain ?? "")), but a composite attribute takes a [String: Any] keyed by element name. \(outcome)"
        )
      }
      let children = slot.compositeChildren.map { entity.layout.slots[$0] }
      if let unknown = elements.keys.sorted().first(where: { key in !children.contains { $0.elementName == key } }) {
        throw ObjectGraphError(
          .unknownKey,
          "\(place()) names element '\(unknown)' of \(entity.entityName).\(slot.name), which has elements \(children.compactMap(\.elementName).joined(separator: ", ")). \(outcome)"
        )
      }
      for child in children {
        let given = elements[child.elementName ?? ""]
        if child.isComposite { try expand(child, given) } else { result[child.name] = given ?? NSNull() }
      }
    }
    for (key, value) in dictionary {
      if let index = entity.layout.index(of: key), entity.layout.slots[index].isComposite {
        try expand(entity.layout.slots[index], value)
      } else {
        result[key] = value
      }
    }
    return result
  }

  /// A batch update's values, by slot: only the slots it sets (`nil` in one clears it).
  /// - Throws: what ``values(_:over:place:outcome:)`` throws, and
  ///   ``NSValidationMissingMandatoryPropertyError`` for a required attribute it clears.
  func changes(_ given: [String: Any]) throws -> [Int: StoredValue] {
    let dictionary = try flattened(given, place: { "The batch update" }, outcome: "Nothing was changed.")
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
    for (key, value) in try flattened(dictionary, place: place, outcome: outcome) {
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
