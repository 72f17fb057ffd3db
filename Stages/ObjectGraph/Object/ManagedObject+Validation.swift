import Foundation

/// The model's validation rules, as the default ``NSManagedObject/validateValue(_:forKey:)``,
/// ``NSManagedObject/validateForInsert()``, ``NSManagedObject/validateForUpdate()`` and
/// ``NSManagedObject/validateForDelete()`` check them.
extension NSManagedObject {
  /// Every property of the object, each through ``validateValue(_:forKey:)`` (attributes and to-ones) or
  /// its count rules (to-manys).
  func validateProperties() throws {
    // A plain NSManagedObject cannot have overridden validateValue(_:forKey:): its values are checked in
    // place, without boxing each one for the hook (a save of 100,000 new objects spends a tenth of a
    // second on that).
    let callsHook = type(of: self) != NSManagedObject.self
    if !callsHook && layout.validatesOnlyMandatoryAttributes
      && !layout.mandatoryAttributeIndexes.contains(where: { values[$0] == nil })
    {
      return
    }
    var errors: [ObjectGraphError] = []
    for slot in layout.slots where !slot.isTransient {
      if slot.isComposite {
        if slot.compositeOwner == nil { errors += compositeErrors(slot) }
        continue
      }
      if slot.attribute != nil {
        if let reason = slot.unsupportedReason {
          if values[slot.index] != nil {
            errors.append(ObjectGraphError(.unsupportedFeature, "\(entity.entityName).\(slot.name) \(reason); its value cannot be saved."))
          }
          continue
        }
        if let refused = values[slot.index].untransformable {
          errors.append(
            ObjectGraphError(
              .managedObjectValidation, "\(entity.entityName).\(slot.name) (object \(objectID)) cannot be saved. \(refused.error.message)",
              underlyingError: refused.error, userInfo: validationInfo(slot.name, nil)))
          continue
        }
        if !callsHook && (values[slot.index] == nil ? slot.isOptional : !slot.hasRules) { continue }
        var value =
          layout.transformableIndexes.contains(slot.index)
          ? transformableValue(values[slot.index], at: slot.index) : values[slot.index]?.anyValue
        validatingSlot = slot.index
        Self.collect(&errors, "\(entity.entityName).\(slot.name)") { try validateModelRulesOrHook(&value, slot, callsHook) }
      } else if slot.isToMany {
        errors += countErrors(slot, count: relatedIDs(slot).count)
        if slot.hasRules, let relationship = slot.relationship {
          errors += predicateErrors(relationship.validationRules, value: toManyValidationValue(slot), key: slot.name)
        }
      } else {
        if !callsHook && !slot.hasRules && (slot.isOptional || values[slot.index].objectID != nil) { continue }
        var value: Any? = values[slot.index].objectID.map { id in managedObjectContext?.object(with: id) as Any }
        validatingSlot = slot.index
        Self.collect(&errors, "\(entity.entityName).\(slot.name)") { try validateModelRulesOrHook(&value, slot, callsHook) }
      }
    }
    validatingSlot = -1
    try Self.throwing(errors)
  }

  /// Runs one check, adding what it throws to `errors`: several at once one by one, and an error that is
  /// not the engine's as 1550 naming `subject` (the property, or the object).
  static func collect(_ errors: inout [ObjectGraphError], _ subject: @autoclosure () -> String, _ check: () throws -> Void) {
    do {
      try check()
    } catch let error as ObjectGraphError {
      errors += error.code == .validationMultipleErrors ? error.detailedErrors : [error]
    } catch {
      errors.append(ObjectGraphError(.managedObjectValidation, "\(subject()) failed validation: \(error)", underlyingError: error))
    }
  }

  /// Throws nothing, the one error, or 1560 listing them.
  static func throwing(_ errors: [ObjectGraphError]) throws {
    if errors.count == 1, let only = errors.first { throw only }
    if errors.count > 1 {
      throw ObjectGraphError(
        .validationMultipleErrors, "\(errors.count) validation errors: \(errors.map(\.message).joined(separator: " "))",
        detailedErrors: errors)
    }
  }

  /// The hook for a subclass, the model's rules straight away for a plain object.
  private func validateModelRulesOrHook(_ value: inout Any?, _ slot: EntityLayout.Slot, _ callsHook: Bool) throws {
    if callsHook {
      try validateValue(&value, forKey: slot.name)
    } else {
      try validateModelRules(value, slot: slot)
    }
  }

  /// The model's rules for one property, for `value`.
  func validateModelRules(_ value: Any?, forKey key: String) throws {
    // Called from the hook for the property being validated, the slot is known: no search by name (two
    // equal names share their storage, so the comparison is one word).
    if validatingSlot >= 0, validatingSlot < layout.slots.count {
      let slot = layout.slots[validatingSlot]
      if slot.name == key {
        try validateModelRules(value, slot: slot)
        return
      }
    }
    guard let index = layout.index(of: key) else {
      throw ObjectGraphError(
        .unknownKey,
        "Entity \(entity.entityName) has no property '\(key)' to validate. Its properties: \(layout.slots.map(\.name).joined(separator: ", "))."
      )
    }
    try validateModelRules(value, slot: layout.slots[index])
  }

  /// The model's rules for one slot, for `value`.
  private func validateModelRules(_ value: Any?, slot: EntityLayout.Slot) throws {
    // An optional (or transient) attribute or to-one without rules accepts any value and none: nothing to
    // look at (the common case for a subclass, whose hook sends every property here).
    if !slot.isToMany && (slot.isOptional || slot.isTransient) && !slot.hasRules { return }
    // Worded only for an error: a save of 100,000 new objects validates every property of each.
    var name: String { validationName(slot.name) }
    if slot.isToMany {
      let count = (value as? any Collection)?.count ?? 0
      var errors = countErrors(slot, count: count)
      if slot.hasRules, let relationship = slot.relationship, let value {
        errors += predicateErrors(relationship.validationRules, value: value, key: slot.name)
      }
      try Self.throwing(errors)
      return
    }
    // An Optional inside `Any` (a typed optional handed to validateValue(_:forKey:)) is its wrapped value.
    let plain = value.map(isPlainValue) ?? false
    guard let value = plain ? value : unwrappedOptional(value), plain || !(value is NSNull) else {
      guard slot.isOptional || slot.isTransient else {
        let what = slot.isRelationship ? "a required relationship but is empty" : "required but has no value"
        let fix = slot.isRelationship ? "Set it before saving" : "Give it a value before saving"
        throw ObjectGraphError(
          .validationMissingMandatoryProperty,
          "\(name) is \(what) (object \(objectID)). \(fix), or make it optional in the model.",
          userInfo: validationInfo(slot.name, nil))
      }
      return
    }
    guard slot.hasRules else { return }
    if let relationship = slot.relationship {
      // A to-one's validation predicates, with the related object as SELF.
      try Self.throwing(predicateErrors(relationship.validationRules, value: value, key: slot.name))
      return
    }
    guard let attribute = slot.attribute else { return }
    try checkRules(of: attribute, value: value, key: slot.name)
  }

  /// A to-many's members, as its validation predicates see them: a set (an array for an ordered to-many,
  /// in order).
  private func toManyValidationValue(_ slot: EntityLayout.Slot) -> Any {
    if slot.isOrdered { return relatedObjectList(slot) }
    return Set(relatedIDs(slot).compactMap { id in managedObjectContext?.object(with: id) })
  }

  /// The validation predicates of a property that `value` fails, each an error with its warning as the message
  /// (1550, `NSManagedObjectValidationError`; a warning that is one of Core Data's validation codes, as a
  /// compiled model holds for Xcode's minimum, maximum and pattern, is that code), with
  /// `NSValidationPredicateErrorKey` holding the predicate.
  func predicateErrors(_ rules: [PropertyValidationRule], value: Any, key: String) -> [ObjectGraphError] {
    var errors: [ObjectGraphError] = []
    let name = validationName(key)
    for rule in rules {
      var ruleInfo = validationInfo(key, value)
      ruleInfo[NSValidationPredicateErrorKey] = rule.predicate
      let subject = Self.evaluationSubject(value)
      do {
        if try rule.fetchPredicate.get().evaluate(with: subject) { continue }
        if let code = Self.validationCode(rule.warning) {
          errors.append(
            ObjectGraphError(
              .init(rawValue: code),
              "\(name) (object \(objectID)) does not satisfy its validation predicate \(FetchPredicate.format(of: rule.predicate)).",
              userInfo: ruleInfo))
        } else {
          // A warning string is a key of the model's localization dictionary ("ErrorString/<warning>").
          let warning = "\(rule.warning)"
          let localized = entity.managedObjectModel?.localizationDictionary?["ErrorString/\(warning)"] ?? warning
          errors.append(ObjectGraphError(.managedObjectValidation, localized, userInfo: ruleInfo))
        }
      } catch {
        errors.append(
          ObjectGraphError(
            .managedObjectValidation,
            "\(name)'s validation predicate cannot be evaluated with \(value) (object \(objectID)): \(ObjectGraphError.wrapping(error).message)",
            userInfo: ruleInfo))
      }
    }
    return errors
  }

  /// A set of objects as a predicate evaluates it (an array of its members: the evaluator reads members of
  /// arrays); any other value as it is.
  private static func evaluationSubject(_ value: Any) -> Any {
    if let objects = value as? Set<NSManagedObject> { return Array(objects) }
    return value
  }

  /// The warning of a validation predicate as one of Core Data's validation error codes (1550 to 1680), when
  /// it is one.
  private static func validationCode(_ warning: Any) -> Int? {
    let code: Int? =
      switch warning {
      case let number as Int: number
      case let number as Int64: Int(exactly: number)
      case let number as NSNumber: number.intValue
      default: nil
      }
    guard let code, (1550...1680).contains(code) else { return nil }
    return code
  }

  /// A to-many's minimum and maximum count broken by `count` members.
  private func countErrors(_ slot: EntityLayout.Slot, count: Int) -> [ObjectGraphError] {
    guard slot.relationship != nil, count < slot.minCount || (slot.maxCount > 0 && count > slot.maxCount) else { return [] }
    let relationship = (minCount: slot.minCount, maxCount: slot.maxCount)
    var errors: [ObjectGraphError] = []
    // The minimum count is the rule, not the optional flag: a to-many is never nil, only empty, and Core
    // Data enforces minCount/maxCount alone for it (a non-optional to-many with minimum 0 may be empty).
    if count < relationship.minCount {
      errors.append(
        ObjectGraphError(
          .validationRelationshipLacksMinimumCount,
          "\(validationName(slot.name)) holds \(count) object(s) but needs at least \(relationship.minCount) (object \(objectID)).",
          userInfo: validationInfo(slot.name, nil)))
    }
    if relationship.maxCount > 0 && count > relationship.maxCount {
      errors.append(
        ObjectGraphError(
          .validationRelationshipExceedsMaximumCount,
          "\(validationName(slot.name)) holds \(count) object(s) but allows at most \(relationship.maxCount) (object \(objectID)).",
          userInfo: validationInfo(slot.name, nil)))
    }
    return errors
  }

  /// An attribute's minimum, maximum and pattern, for a value of its type.
  private func checkRules(of attribute: NSAttributeDescription, value: Any, key: String) throws {
    let name = validationName(key)
    let object = "(object \(objectID))"
    let info = validationInfo(key, value)
    var errors: [ObjectGraphError] = []
    func bounds(_ measured: Double, _ shown: String, tooSmall: ObjectGraphError.Code, tooLarge: ObjectGraphError.Code, _ unit: String) {
      if let minimum = attribute.minValue, measured < minimum {
        errors.append(
          ObjectGraphError(
            tooSmall, "\(name) is \(shown), below the model's minimum of \(Self.format(minimum, unit)) \(object).", userInfo: info))
      }
      if let maximum = attribute.maxValue, measured > maximum {
        errors.append(
          ObjectGraphError(
            tooLarge, "\(name) is \(shown), above the model's maximum of \(Self.format(maximum, unit)) \(object).", userInfo: info))
      }
    }
    switch value {
    case let text as String:
      let length = text.utf16.count
      bounds(
        Double(length), "\(length) character(s) long", tooSmall: .validationStringTooShort, tooLarge: .validationStringTooLong, "length")
      if let pattern = attribute.regularExpression, !Self.matches(text, pattern) {
        errors.append(
          ObjectGraphError(
            .validationStringPatternMatching,
            "\(name) is \"\(text)\", which does not match the model's regular expression \(pattern) \(object).", userInfo: info))
      }
    case let date as Date:
      bounds(
        date.timeIntervalSinceReferenceDate, date.ISO8601Format(), tooSmall: .validationDateTooSoon, tooLarge: .validationDateTooLate,
        "date")
    default:
      if let number = Self.numericValue(value) {
        bounds(number, "\(value)", tooSmall: .validationNumberTooSmall, tooLarge: .validationNumberTooLarge, "number")
      }
    }
    errors += predicateErrors(attribute.validationRules, value: value, key: key)
    try Self.throwing(errors)
  }

  /// Core Data's `userInfo` of a validation error: the object, the key and the value (when there is one).
  /// `Entity.property` as a validation message names it: by the localized names of the model's
  /// ``NSManagedObjectModel/localizationDictionary`` when it has them.
  func validationName(_ key: String) -> String {
    guard let model = entity.managedObjectModel, model.localizationDictionary != nil else { return "\(entity.entityName).\(key)" }
    return "\(model.localizedName(ofEntity: entity.entityName)).\(model.localizedName(ofProperty: key, entity: entity.entityName))"
  }

  func validationInfo(_ key: String, _ value: Any?) -> [String: Any] {
    var info: [String: Any] = [NSValidationObjectErrorKey: self, NSValidationKeyErrorKey: key]
    if let value { info[NSValidationValueErrorKey] = value }
    return info
  }

  private static func format(_ bound: Double, _ unit: String) -> String {
    switch unit {
    case "date": Date(timeIntervalSinceReferenceDate: bound).ISO8601Format()
    case "length": "\(Int(exactly: bound) ?? 0) character(s)"
    default: bound == bound.rounded() && abs(bound) < 1e15 ? String(Int64(bound)) : String(bound)
    }
  }

  private static func numericValue(_ value: Any) -> Double? {
    switch value {
    case let number as Int16: Double(number)
    case let number as Int32: Double(number)
    case let number as Int64: Double(number)
    case let number as Int: Double(number)
    case let number as Double: number
    case let number as Float: Double(number)
    case let number as Decimal: NSDecimalNumber(decimal: number).doubleValue
    default: nil
    }
  }

  /// Whether the whole of `text` matches `pattern` (an ICU regular expression); a pattern that does not
  /// compile matches nothing.
  private static func matches(_ text: String, _ pattern: String) -> Bool {
    guard let regex = try? NSRegularExpression(pattern: "\\A(?:" + pattern + ")\\z") else { return false }
    return regex.firstMatch(in: text, range: NSRange(text.startIndex..<text.endIndex, in: text)) != nil
  }

  /// The Deny rule: no relationship with it may still hold an object that is not being deleted too.
  func validateDeleteRules() throws {
    var errors: [ObjectGraphError] = []
    for slot in layout.slots where slot.relationship?.deleteRule == .denyDeleteRule {
      let related = slot.isToMany ? Array(relatedIDs(slot)) : [values[slot.index].objectID].compactMap { $0 }
      let remaining = related.filter { !(managedObjectContext?.isDeletedHere($0) ?? false) }
      if !remaining.isEmpty {
        errors.append(
          ObjectGraphError(
            .validationRelationshipDeniedDelete,
            "Cannot delete \(entity.entityName) \(objectID): its relationship '\(slot.name)' (delete rule: deny) still holds \(remaining.count) object(s). Delete or reassign them first.",
            userInfo: validationInfo(slot.name, nil)))
      }
    }
    try Self.throwing(errors)
  }
}
