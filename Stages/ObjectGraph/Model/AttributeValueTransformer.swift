import Foundation

/// Turns the value of a transformable attribute into the bytes the store keeps, and back (Core Data's
/// `ValueTransformer`, which Linux's Foundation does not have).
///
/// A transformable attribute names its transformer (`valueTransformerName`, Xcode's "Transformer"); with
/// no name it uses the secure unarchiving transformer, as Core Data does by default. Register your own
/// by name before the model is used:
///
/// ```swift
/// final class ColorTransformer: AttributeValueTransformer {
///   override func transformedValue(_ value: Any) throws -> Data { try JSONEncoder().encode(value as? RGB) }
///   override func reverseTransformedValue(_ data: Data) throws -> Any { try JSONDecoder().decode(RGB.self, from: data) }
/// }
/// AttributeValueTransformer.setValueTransformer(ColorTransformer(), forName: "ColorTransformer")
/// ```
///
/// `@unchecked Sendable`: a transformer is shared by every context that reads or writes the attribute,
/// from their queues. The base classes hold no state; a subclass must be as stateless (or lock what it
/// keeps), as Core Data's value transformers must be.
open class AttributeValueTransformer: @unchecked Sendable {
  /// Makes a transformer.
  public init() {}

  /// The bytes to store for `value`.
  /// - Throws: an error saying why `value` cannot be stored; the save that meets it fails with 1550.
  open func transformedValue(_ value: Any) throws -> Data {
    throw ObjectGraphError(.managedObjectValidation, "\(type(of: self)) does not implement transformedValue(_:).")
  }

  /// The value the stored bytes stand for.
  open func reverseTransformedValue(_ data: Data) throws -> Any {
    throw ObjectGraphError(.managedObjectValidation, "\(type(of: self)) does not implement reverseTransformedValue(_:).")
  }

  /// The class of the values this transformer stores (Core Data's `ValueTransformer.transformedValueClass()`):
  /// `NSData` unless a subclass says otherwise. ``SecureUnarchiveFromDataTransformer`` also accepts values of
  /// the class a subclass names here.
  open class func transformedValueClass() -> AnyClass { NSData.self }

  /// Whether the transformer turns bytes back into values (Core Data's
  /// `ValueTransformer.allowsReverseTransformation()`); a transformable attribute needs both ways.
  open class func allowsReverseTransformation() -> Bool { true }

  /// The name of the secure unarchiving transformer (Core Data's
  /// `NSValueTransformerName.secureUnarchiveFromDataTransformerName`), the default.
  public static let secureUnarchiveFromDataTransformerName = "NSSecureUnarchiveFromData"

  private static let registry = Locked<[String: AttributeValueTransformer]>([:])

  /// Registers `transformer` under `name` (`nil` removes the name), for the attributes whose
  /// `valueTransformerName` is `name`.
  public static func setValueTransformer(_ transformer: AttributeValueTransformer?, forName name: String) {
    registry.withLock { $0[name] = transformer }
  }

  /// The transformer registered under `name`; the secure unarchiving one for its names and for `nil` or
  /// an empty name.
  public static func valueTransformer(forName name: String?) -> AttributeValueTransformer? {
    guard let name, !name.isEmpty else { return SecureUnarchiveFromDataTransformer.shared }
    if let registered = registry.withLock({ $0[name] }) { return registered }
    // Core Data's names for the archiving transformers: all are the secure one here (there is no
    // insecure unarchiving on Linux's Foundation, nor a reason to want it).
    let secureNames: Set<String> = [
      secureUnarchiveFromDataTransformerName, "NSSecureUnarchiveFromDataTransformer", "NSSecureUnarchiveFromDataTransformerName",
      "NSKeyedUnarchiveFromData", "NSUnarchiveFromData",
    ]
    return secureNames.contains(name) ? SecureUnarchiveFromDataTransformer.shared : nil
  }

  /// The names registered so far.
  public static func valueTransformerNames() -> [String] {
    registry.withLock { $0.keys.sorted() }
  }
}

/// A value set on a transformable attribute that its transformer refused: kept (so reading the attribute
/// still gives it) until the save reports the error.
struct UntransformableValue: @unchecked Sendable {
  // `@unchecked Sendable`: like `UnsupportedValue`, it lives in an object's slot, touched only on the
  // object's context's queue.
  let value: Any
  let error: ObjectGraphError
}

extension SlotValue? {
  /// The value a transformer refused, when this slot holds one.
  var untransformable: UntransformableValue? {
    if case .boxed(let box)? = self { box.value as? UntransformableValue } else { nil }
  }
}

extension NSAttributeDescription {
  /// `value` as this transformable attribute stores it: its transformer's bytes, or the value with the
  /// error when the transformer refuses it (the save reports the error).
  func transformedSlotValue(_ value: Any) -> StoredValue {
    let owner = "\(name)"
    guard let transformer = AttributeValueTransformer.valueTransformer(forName: valueTransformerName) else {
      return .boxed(
        .init(
          UntransformableValue(
            value: value,
            error: ObjectGraphError(
              .managedObjectValidation,
              "Transformable attribute '\(owner)' names the value transformer '\(valueTransformerName ?? "")', and none is registered under that name. Register it with AttributeValueTransformer.setValueTransformer(_:forName:) before using the model."
            ))))
    }
    do {
      return .data(try transformer.transformedValue(value))
    } catch {
      let wrapped = error as? ObjectGraphError ?? ObjectGraphError(.managedObjectValidation, "\(error)", underlyingError: error)
      return .boxed(
        .init(
          UntransformableValue(
            value: value,
            error: ObjectGraphError(
              .managedObjectValidation, "Transformable attribute '\(owner)': \(wrapped.message)", underlyingError: error))))
    }
  }

  /// The bytes this transformable attribute's transformer makes of `value`, to compare with stored bytes.
  /// - Throws: 1550 when no transformer is registered under its name, or the transformer refuses the value.
  func transformedBytes(_ value: Any) throws -> Data {
    switch transformedSlotValue(value) {
    case .data(let bytes)?: return bytes
    case let other:
      throw other.untransformable?.error ?? ObjectGraphError(.managedObjectValidation, "\(name) cannot transform \(Swift.type(of: value)).")
    }
  }

  /// The value stored bytes of this transformable attribute stand for; the bytes themselves when its
  /// transformer is missing or refuses them (nothing is lost, and the value is still saved as it was).
  func reverseTransformed(_ data: Data) -> Any {
    guard let transformer = AttributeValueTransformer.valueTransformer(forName: valueTransformerName),
      let value = try? transformer.reverseTransformedValue(data)
    else { return data }
    return value
  }
}
