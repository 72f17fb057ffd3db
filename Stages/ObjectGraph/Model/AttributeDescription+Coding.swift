import Foundation

/// An attribute's archive: its name, type and every setting (optionality, transience, default value,
/// validation predicates and warnings, minimum, maximum and pattern, user info, version hash modifier,
/// renaming identifier, external storage, history and cloud flags, value transformer and class names,
/// derivation) and, for a composite attribute, its elements (each an attribute's archive).
///
/// A default value is kept with its Swift type when it is one of the attribute types' values (`String`, `Int`,
/// `Int16`, `Int32`, `Int64`, `Double`, `Float`, `Bool`, `Decimal`, `Date`, `Data`, `UUID`, `URL`); another (a
/// transformable attribute's object) is not archived, and the unarchived attribute has no default.
extension NSAttributeDescription {
  private enum Key {
    static let attributeType = "NSAttributeType"
    static let defaultValue = "NSDefaultValue"
    static let defaultValueType = "ObjectGraphDefaultValueType"
    static let externalStorage = "NSAllowsExternalBinaryDataStorage"
    static let preservesInHistory = "NSPreservesValueInHistoryOnDeletion"
    static let derivation = "NSDerivationExpression"
    static let transformerName = "NSValueTransformerName"
    static let valueClassName = "NSAttributeValueClassName"
    static let cloudEncryption = "NSAllowsCloudEncryption"
    static let minValue = "ObjectGraphMinimumValue"
    static let maxValue = "ObjectGraphMaximumValue"
    static let regularExpression = "ObjectGraphRegularExpression"
    static let elements = "NSElements"
  }

  /// Archives the attribute (``NSPropertyDescription/encode(with:)`` calls this).
  func encodeAttribute(with coder: NSCoder) {
    let state = state.value
    encodeCommon(with: coder, state: state)
    coder.encode(Int64(state.attributeType.rawValue), forKey: Key.attributeType)
    if let value = state.defaultValue, let (type, archived) = Self.archivedDefault(value) {
      coder.encodeText(type, forKey: Key.defaultValueType)
      coder.encode(archived, forKey: Key.defaultValue)
    }
    coder.encode(state.allowsExternalBinaryDataStorage, forKey: Key.externalStorage)
    coder.encode(state.preservesValueInHistoryOnDeletion, forKey: Key.preservesInHistory)
    coder.encode(state.allowsCloudEncryption, forKey: Key.cloudEncryption)
    coder.encodeText(state.derivationFormat, forKey: Key.derivation)
    coder.encodeText(state.valueTransformerName, forKey: Key.transformerName)
    coder.encodeText(state.attributeValueClassName, forKey: Key.valueClassName)
    coder.encodeText(state.regularExpression, forKey: Key.regularExpression)
    if let minimum = state.minValue { coder.encode(minimum, forKey: Key.minValue) }
    if let maximum = state.maxValue { coder.encode(maximum, forKey: Key.maxValue) }
    if !state.elements.isEmpty { coder.encode(NSArray(array: state.elements), forKey: Key.elements) }
  }

  /// The attribute's state read back from `coder`; `nil` (after failing the decode) when the archive is not an
  /// attribute's.
  static func decodedState(from coder: NSCoder) -> State? {
    guard let common = decodeCommon(from: coder, what: "an attribute") else { return nil }
    let what = "attribute \(common.name)"
    guard coder.containsValue(forKey: Key.attributeType),
      let type = UInt(exactly: coder.decodeInt64(forKey: Key.attributeType)).flatMap(NSAttributeType.init(rawValue:))
    else {
      coder.failDecoding(what, "its type (\(Key.attributeType)) is missing or not an attribute type")
      return nil
    }
    var defaultValue: (any Sendable)?
    if let typeName = coder.decodeText(forKey: Key.defaultValueType) {
      guard let value = decodedDefault(coder.decodeValue(forKey: Key.defaultValue), type: typeName) else {
        coder.failDecoding(what, "its default value is not the \(typeName) its archive says")
        return nil
      }
      defaultValue = value
    }
    guard let elements = coder.decodeArchivedObjects(of: NSAttributeDescription.self, forKey: Key.elements) else {
      coder.failDecoding(what, "its elements are not attributes")
      return nil
    }
    var state = State(name: common.name, attributeType: type, isOptional: common.isOptional, defaultValue: defaultValue)
    common.apply(to: &state)
    state.allowsExternalBinaryDataStorage = coder.decodeBool(forKey: Key.externalStorage)
    state.preservesValueInHistoryOnDeletion = coder.decodeBool(forKey: Key.preservesInHistory)
    state.allowsCloudEncryption = coder.decodeBool(forKey: Key.cloudEncryption)
    state.derivationFormat = coder.decodeText(forKey: Key.derivation)
    state.valueTransformerName = coder.decodeText(forKey: Key.transformerName)
    state.attributeValueClassName = coder.decodeText(forKey: Key.valueClassName)
    state.regularExpression = coder.decodeText(forKey: Key.regularExpression)
    state.minValue = coder.containsValue(forKey: Key.minValue) ? coder.decodeDouble(forKey: Key.minValue) : nil
    state.maxValue = coder.containsValue(forKey: Key.maxValue) ? coder.decodeDouble(forKey: Key.maxValue) : nil
    state.elements = elements
    return state
  }

  /// A default value as an archive holds it, with the name of its Swift type; `nil` for a value of another type.
  private static func archivedDefault(_ value: any Sendable) -> (String, NSObject)? {
    switch value {
    case let text as String: ("String", NSString(string: text))
    case let number as Int: ("Int", NSNumber(value: number))
    case let number as Int16: ("Int16", NSNumber(value: number))
    case let number as Int32: ("Int32", NSNumber(value: number))
    case let number as Int64: ("Int64", NSNumber(value: number))
    case let number as Double: ("Double", NSNumber(value: number))
    case let number as Float: ("Float", NSNumber(value: number))
    case let flag as Bool: ("Bool", NSNumber(value: flag))
    // Linux's Foundation does not archive NSDecimalNumber: a decimal is kept as its text, which reads back exactly.
    case let decimal as Decimal: ("Decimal", NSString(string: decimal.description))
    case let date as Date: ("Date", NSNumber(value: date.timeIntervalSinceReferenceDate))
    case let data as Data: ("Data", NSData(data: data))
    case let uuid as UUID: ("UUID", NSString(string: uuid.uuidString))
    case let url as URL: ("URL", NSString(string: url.absoluteString))
    default: nil
    }
  }

  /// A default value read back as the Swift type its archive names; `nil` when it is not one.
  private static func decodedDefault(_ archived: Any?, type: String) -> (any Sendable)? {
    let number = archived as? NSNumber
    let text = archived as? String
    switch type {
    case "String": return text
    case "Int": return number?.intValue
    case "Int16": return number?.int16Value
    case "Int32": return number?.int32Value
    case "Int64": return number?.int64Value
    case "Double": return number?.doubleValue
    case "Float": return number?.floatValue
    case "Bool": return number?.boolValue
    case "Decimal": return text.flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }
    case "Date": return number.map { Date(timeIntervalSinceReferenceDate: $0.doubleValue) }
    case "Data": return archived as? Data
    case "UUID": return text.flatMap(UUID.init(uuidString:))
    case "URL": return text.flatMap { URL(string: $0) }
    default: return nil
    }
  }
}
