import Foundation

/// Properties archive themselves, as Core Data's do (`NSPropertyDescription` is `NSSecureCoding`): an
/// attribute or a relationship archived alone, or inside its entity's or model's archive, comes back with all
/// its settings. A relationship keeps its destination and inverse by name; they are resolved again when a
/// model is made of the entities (an unarchived model does that itself).
///
/// ```swift
/// let data = try NSKeyedArchiver.archivedData(withRootObject: title, requiringSecureCoding: true)
/// let copy = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSAttributeDescription.self, from: data)
/// ```
extension NSPropertyDescription: NSSecureCoding {
  /// `true`: properties decode with `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`.
  public static var supportsSecureCoding: Bool { true }

  /// Archives the property: its name, kind and every setting (see ``NSAttributeDescription`` and
  /// ``NSRelationshipDescription`` for what each keeps).
  public func encode(with coder: NSCoder) {
    switch kind {
    case .attribute(let attribute): attribute.encodeAttribute(with: coder)
    case .relationship(let relationship): relationship.encodeRelationship(with: coder)
    }
  }
}

/// The keys of a property's archive.
enum PropertyArchiveKey {
  static let name = "NSPropertyName"
  static let isOptional = "NSIsOptional"
  static let isTransient = "NSIsTransient"
  static let renamingIdentifier = "NSRenamingIdentifier"
  static let versionHashModifier = "NSVersionHashModifier"
  static let userInfo = "NSUserInfo"
  static let validationFormats = "ObjectGraphValidationFormats"
  static let validationWarnings = "ObjectGraphValidationWarnings"
}

/// What the states of attributes and relationships have in common: the settings every property archives.
protocol ArchivedPropertyState {
  var name: String { get }
  var isOptional: Bool { get }
  var isTransient: Bool { get set }
  var renamingIdentifier: String? { get set }
  var versionHashModifier: String? { get set }
  var userInfo: [String: String] { get set }
  var validationRules: [PropertyValidationRule] { get set }
}

extension NSAttributeDescription.State: ArchivedPropertyState {}
extension NSRelationshipDescription.State: ArchivedPropertyState {}

extension NSPropertyDescription {
  /// Encodes what every property has, from its `state`.
  func encodeCommon(with coder: NSCoder, state: some ArchivedPropertyState) {
    coder.encodeText(state.name, forKey: PropertyArchiveKey.name)
    coder.encode(state.isOptional, forKey: PropertyArchiveKey.isOptional)
    coder.encode(state.isTransient, forKey: PropertyArchiveKey.isTransient)
    coder.encodeText(state.renamingIdentifier, forKey: PropertyArchiveKey.renamingIdentifier)
    coder.encodeText(state.versionHashModifier, forKey: PropertyArchiveKey.versionHashModifier)
    coder.encodeTextDictionary(state.userInfo, forKey: PropertyArchiveKey.userInfo)
    // A validation predicate is kept as its format, which `Fetch/` parses again when it is first used (as for a
    // compiled model's); its warning as given, a string or a number.
    var formats: [String] = []
    let warnings = NSMutableArray()
    for rule in state.validationRules {
      guard let format = (rule.parsed as? ArchivedValidationPredicate)?.format ?? rule.given?.formatText else { continue }
      formats.append(format)
      if let number = rule.warning as? Int {
        warnings.add(NSNumber(value: number))
      } else {
        warnings.add(NSString(string: "\(rule.warning)"))
      }
    }
    coder.encodeTexts(formats, forKey: PropertyArchiveKey.validationFormats)
    coder.encode(warnings, forKey: PropertyArchiveKey.validationWarnings)
  }

  /// What every property has, read back; `nil` (after failing the decode) when a value is missing or of the
  /// wrong kind.
  static func decodeCommon(from coder: NSCoder, what: String) -> DecodedCommon? {
    guard let name = coder.decodeText(forKey: PropertyArchiveKey.name) else {
      coder.failDecoding(what, "it has no name (\(PropertyArchiveKey.name))")
      return nil
    }
    guard let userInfo = coder.decodeTextDictionary(forKey: PropertyArchiveKey.userInfo),
      let formats = coder.decodeTexts(forKey: PropertyArchiveKey.validationFormats)
    else {
      coder.failDecoding("\(what) \(name)", "its user info or validation predicates are not strings")
      return nil
    }
    let warnings = (coder.decodeValue(forKey: PropertyArchiveKey.validationWarnings) as? [Any]) ?? []
    guard warnings.count == formats.count else {
      coder.failDecoding("\(what) \(name)", "it has \(formats.count) validation predicates but \(warnings.count) warnings")
      return nil
    }
    let rules = zip(formats, warnings).map { format, warning in
      PropertyValidationRule(
        parsed: ArchivedValidationPredicate(format: format), given: nil,
        warning: (warning as? NSNumber).map { $0.intValue as Any } ?? (warning as? String ?? ""))
    }
    return DecodedCommon(
      name: name, isOptional: coder.decodeBool(forKey: PropertyArchiveKey.isOptional),
      isTransient: coder.decodeBool(forKey: PropertyArchiveKey.isTransient),
      renamingIdentifier: coder.decodeText(forKey: PropertyArchiveKey.renamingIdentifier),
      versionHashModifier: coder.decodeText(forKey: PropertyArchiveKey.versionHashModifier), userInfo: userInfo,
      rules: rules)
  }

  /// What every property has, as read from an archive.
  struct DecodedCommon {
    let name: String
    let isOptional: Bool
    let isTransient: Bool
    let renamingIdentifier: String?
    let versionHashModifier: String?
    let userInfo: [String: String]
    let rules: [PropertyValidationRule]

    /// Gives `state` (made with the name and optionality) the rest of what every property has.
    func apply(to state: inout some ArchivedPropertyState) {
      state.isTransient = isTransient
      state.renamingIdentifier = renamingIdentifier
      state.versionHashModifier = versionHashModifier
      state.userInfo = userInfo
      state.validationRules = rules
    }
  }
}
