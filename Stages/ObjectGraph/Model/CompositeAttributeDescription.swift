import Foundation

/// An attribute whose value is composed of other attributes (Xcode's "Composite" type, Core Data's
/// `NSCompositeAttributeDescription`, iOS 17): a location made of a latitude and a longitude, say.
///
/// ```swift
/// let latitude = NSAttributeDescription(name: "latitude", type: .double, isOptional: false)
/// let longitude = NSAttributeDescription(name: "longitude", type: .double, isOptional: false)
/// let location = NSCompositeAttributeDescription()
/// location.name = "location"
/// location.elements = [latitude, longitude]
/// place.properties = [name, location]
///
/// object.setValue(["latitude": 48.85, "longitude": 2.35], forKey: "location")
/// object.value(forKey: "location")              // ["latitude": 48.85, "longitude": 2.35]
/// object.value(forKey: "location.latitude")     // 48.85
/// NSPredicate(format: "location.latitude > 10") // in a fetch, in SQL or in memory
/// ```
///
/// As Core Data documents, an object holds a composite's value as a dictionary keyed by element name, and its
/// elements are reached with namespaced key paths (`location.latitude`) in `value(forKey:)`, predicates and
/// sort descriptors. An element may itself be a composite (`location.position.x`). The store keeps each
/// element in a column of its own (`ZLOCATION_LATITUDE`). Elements are validated as attributes are (type,
/// optionality, minimum, maximum, regular expression); an optional composite with no element set is `nil` and
/// asks nothing of its elements.
///
/// Elements may be of any type but Undefined, Object ID and Transformable (Core Data also refuses Undefined,
/// Object ID and Binary Data with external storage; the engine does not store transformable elements), and
/// may not be derived or transient themselves.
///
/// `@unchecked Sendable`, restated from ``NSAttributeDescription``: its elements live in the attribute's
/// `Frozen` state, locked until the model freezes and read-only after.
public final class NSCompositeAttributeDescription: NSAttributeDescription, @unchecked Sendable {
  /// Makes a composite attribute with no name and no elements, optional, as Core Data's `init()` does: set
  /// its ``NSAttributeDescription/name`` and ``elements`` before its model is used.
  public convenience init() {
    self.init(name: "", type: .composite)
  }

  /// Makes a composite attribute (the engine's shorthand for ``init()`` followed by setting the name,
  /// elements and optionality).
  /// - Parameters:
  ///   - name: the attribute's name: the first component of its elements' key paths.
  ///   - elements: the attributes it is composed of.
  ///   - isOptional: whether the whole composite may be `nil` when saved.
  public convenience init(name: String, elements: [NSAttributeDescription], isOptional: Bool = true) {
    self.init(name: name, type: .composite, isOptional: isOptional)
    self.elements = elements
  }

  /// The composed attribute descriptions (Core Data's `elements`): plain attributes, or composites for a
  /// nested shape. Settable until the model is used, as every description is.
  public var elements: [NSAttributeDescription] {
    get { state.read(\.elements) }
    set { state.write(\.elements, newValue, what: "composite attribute \(name)") }
  }
}

extension NSAttributeDescription {
  /// Why a Composite attribute cannot be stored, or `nil` when it can: it must be an
  /// ``NSCompositeAttributeDescription`` whose elements are uniquely named attributes of storable types.
  var compositeUnsupportedReason: String? {
    guard self is NSCompositeAttributeDescription else {
      return
        "has type Composite but is a plain NSAttributeDescription; make it an NSCompositeAttributeDescription and set its elements"
    }
    let elements = state.read(\.elements)
    guard !elements.isEmpty else {
      return "is a composite attribute without elements; give it elements (NSCompositeAttributeDescription.elements)"
    }
    var seen: Set<String> = []
    for element in elements {
      let name = element.name
      guard !name.isEmpty, !name.contains("."), seen.insert(name).inserted else {
        return
          "has an element named '\(name)': element names must be non-empty, without '.', and unique within the composite"
      }
      switch element.attributeType {
      case .undefinedAttributeType, .objectIDAttributeType, .transformableAttributeType:
        return
          "has element '\(name)' of type \(element.attributeType), which a composite cannot hold (use a String, number, date, Binary Data, UUID, URI or composite element)"
      case .binaryDataAttributeType where element.allowsExternalBinaryDataStorage:
        return "has Binary Data element '\(name)' that allows external storage, which Core Data refuses in a composite"
      default: break
      }
      if element.isDerived || element.isTransient {
        return "has element '\(name)' that is derived or transient; a composite's elements are stored values"
      }
      if let reason = element.unsupportedReason { return "has element '\(name)' that \(reason)" }
    }
    return nil
  }

  /// A composite attribute's elements (empty for any other attribute).
  var compositeElements: [NSAttributeDescription] {
    attributeType == .compositeAttributeType ? state.read(\.elements) : []
  }
}
