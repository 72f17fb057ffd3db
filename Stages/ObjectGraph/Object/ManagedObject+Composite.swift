import Foundation

/// Composite attributes (``NSCompositeAttributeDescription``) on an object: the value is a `[String: Any]` keyed
/// by element name, made from and split into the slots of the elements (`location.latitude`, …), which are
/// what the store, predicates and sorts see.
extension NSManagedObject {
  /// A composite slot's value as a dictionary of its elements' values (nested composites as dictionaries);
  /// `nil` when no element has a value. Elements without a value are left out.
  static func compositeValue(
    of slot: EntityLayout.Slot, in values: [StoredValue], layout: EntityLayout, boxingNumbers: Bool
  ) -> [String: Any]? {
    var result: [String: Any] = [:]
    for child in slot.compositeChildren {
      let element = layout.slots[child]
      let value: Any? =
        element.isComposite
        ? compositeValue(of: element, in: values, layout: layout, boxingNumbers: boxingNumbers)
        : (boxingNumbers ? values[child]?.boxedValue : values[child]?.anyValue)
      if let value, let name = element.elementName { result[name] = value }
    }
    return result.isEmpty ? nil : result
  }

  /// Sets a composite attribute from a dictionary keyed by element name (`nil` or `NSNull` clears every
  /// element; an element missing from the dictionary is cleared). What cannot be taken (a value that is not
  /// a dictionary, a key that is no element, a value of the wrong type for its element) is recorded in the
  /// composite's slot and refused when the object is saved; everything else is set.
  /// - Parameter notifies: whether the change is recorded as `setValue(_:forKey:)` records one (undo, change
  ///   tracking), or made silently as `setPrimitiveValue(_:forKey:)` makes it.
  func setComposite(_ value: Any?, slot: EntityLayout.Slot, notifies: Bool) {
    var assignments: [(index: Int, value: StoredValue)] = []
    var refusals: [(index: Int, problems: [String])] = []
    Self.splitComposite(value, slot: slot, layout: layout, entity: layout.name, into: &assignments, refusals: &refusals)
    var refusedAt: [Int: [String]] = [:]
    for refusal in refusals { refusedAt[refusal.index, default: []] += refusal.problems }
    let compositeSlots = [slot.index] + layout.slots.filter { $0.isComposite && isWithin($0, slot) }.map(\.index)
    for index in compositeSlots {
      let stored: StoredValue = refusedAt[index].map { .boxed(.init(CompositeRefusal(problems: $0))) }
      assignments.append((index, stored))
    }
    for (index, stored) in assignments {
      if notifies {
        guard !StoredValueComparison.isEqual(values[index], stored) || values[index].compositeRefusal != nil else { continue }
        willChangeForUndo(index)
        values[index] = stored
        noteChange(index)
      } else {
        values[index] = stored
        if !state.isInserted { changedSlots.insert(index) }
      }
    }
  }

  /// Whether `slot` is `composite` or one of its elements, at any depth.
  private func isWithin(_ slot: EntityLayout.Slot, _ composite: EntityLayout.Slot) -> Bool {
    slot.index > composite.index && slot.name.hasPrefix(composite.name + ".")
  }

  /// The element values a composite's new value sets, and what it refuses, by slot.
  private static func splitComposite(
    _ value: Any?, slot: EntityLayout.Slot, layout: EntityLayout, entity: String,
    into assignments: inout [(index: Int, value: StoredValue)],
    refusals: inout [(index: Int, problems: [String])]
  ) {
    let children = slot.compositeChildren.map { layout.slots[$0] }
    let plain = unwrappedOptional(value)
    guard let plain, !(plain is NSNull) else {
      for child in children {
        if child.isComposite {
          splitComposite(nil, slot: child, layout: layout, entity: entity, into: &assignments, refusals: &refusals)
        } else {
          assignments.append((child.index, nil))
        }
      }
      return
    }
    guard let dictionary = plain as? [String: Any] else {
      refusals.append(
        (
          slot.index,
          [
            "\(entity).\(slot.name) is a composite attribute and takes a [String: Any] keyed by element name; it was given \(type(of: plain)) (\(plain))."
          ]
        ))
      return
    }
    var problems: [String] = []
    let names = Set(children.compactMap(\.elementName))
    for key in dictionary.keys.sorted() where !names.contains(key) {
      problems.append(
        "\(entity).\(slot.name) has no element '\(key)'. Its elements: \(children.compactMap(\.elementName).joined(separator: ", ")).")
    }
    for child in children {
      let given = dictionary[child.elementName ?? ""]
      if child.isComposite {
        splitComposite(given, slot: child, layout: layout, entity: entity, into: &assignments, refusals: &refusals)
        continue
      }
      guard case .attribute(let type) = child.kind, let given = unwrappedOptional(given), !(given is NSNull) else {
        assignments.append((child.index, nil))
        continue
      }
      guard let converted = SlotValue.coerce(given, to: type) else {
        problems.append(
          "\(entity).\(child.name) is a \(type.xcodeName) element and takes a \(type.swiftTypeName); it was given \(Swift.type(of: given)) (\(given))."
        )
        continue
      }
      assignments.append((child.index, converted))
    }
    if !problems.isEmpty { refusals.append((slot.index, problems)) }
  }

  /// The keys of `changedValues()` and `committedValues(forKeys:)`: an element's slot is reported as its
  /// composite, as Core Data reports the composite attribute.
  func reportedSlot(_ slot: EntityLayout.Slot) -> EntityLayout.Slot {
    slot.compositeOwner.map { layout.slots[$0] } ?? slot
  }

  /// The validation errors of a composite attribute (an entity's own composite slot): what `setValue` refused
  /// (1550), a required composite without a value or, when it has one, a required element without one (1570).
  /// The elements' own rules (minimum, maximum, regular expression) are checked as any attribute's.
  func compositeErrors(_ slot: EntityLayout.Slot) -> [ObjectGraphError] {
    var errors: [ObjectGraphError] = []
    let members = [slot] + layout.slots.filter { isWithin($0, slot) }
    for member in members where member.isComposite {
      for problem in values[member.index].compositeRefusal?.problems ?? [] {
        errors.append(
          ObjectGraphError(
            .managedObjectValidation, "\(problem) (object \(objectID)) Give it a valid value before saving.",
            userInfo: validationInfo(member.name, nil)))
      }
    }
    requiredErrors(slot, isRequired: !slot.isOptional, into: &errors)
    return errors
  }

  /// 1570 for a required composite without any element value, and within a composite that has one, for each
  /// required element without a value.
  private func requiredErrors(_ slot: EntityLayout.Slot, isRequired: Bool, into errors: inout [ObjectGraphError]) {
    guard Self.compositeValue(of: slot, in: values, layout: layout, boxingNumbers: false) != nil else {
      if isRequired { errors.append(missing(slot)) }
      return
    }
    for child in slot.compositeChildren.map({ layout.slots[$0] }) {
      if child.isComposite {
        requiredErrors(child, isRequired: child.isRequiredElement, into: &errors)
      } else if child.isRequiredElement && values[child.index] == nil {
        errors.append(missing(child))
      }
    }
  }

  private func missing(_ slot: EntityLayout.Slot) -> ObjectGraphError {
    ObjectGraphError(
      .validationMissingMandatoryProperty,
      "\(entity.entityName).\(slot.name) is required but has no value (object \(objectID)). Give it a value before saving, or make it optional in the model.",
      userInfo: validationInfo(slot.name, nil))
  }
}

extension Optional where Wrapped == SlotValue {
  /// What a composite slot recorded of a refused `setValue` (``CompositeRefusal``), if anything.
  var compositeRefusal: CompositeRefusal? { self?.boxed(as: CompositeRefusal.self) }
}
