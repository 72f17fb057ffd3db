import Foundation

/// A value of some `Optional` type, whatever it wraps: lets ``unwrappedOptional(_:)`` see through an
/// `Optional` hidden inside `Any`.
private protocol AnyOptional {
  /// The wrapped value, itself unwrapped when it is an `Optional` too; `nil` for `.none` at any depth.
  var flattened: Any? { get }
}

extension Optional: AnyOptional {
  fileprivate var flattened: Any? {
    switch self {
    case .none: nil
    case .some(let wrapped): unwrappedOptional(wrapped)
    }
  }
}

/// `value` without the `Optional`s around it, however deeply they nest: `nil` for an empty one.
///
/// A `UUID?` that is `nil`, passed where `Any?` is taken (a `@ObjectGraphManaged` property's setter calls
/// `setValue(_:forKey:)`), arrives as a *non-nil* `Any?` holding an empty `Optional<UUID>`. Code that hands
/// a value on to a transformer or checks it must first take it out of such boxes, or it sees "a value"
/// that is no UUID. The common case (no `Optional` inside) costs one dynamic cast.
func unwrappedOptional(_ value: Any?) -> Any? {
  guard let value else { return nil }
  if isPlainValue(value) { return value }
  if let optional = value as? any AnyOptional { return optional.flattened }
  return value
}

/// Whether `value` is of one of the value types attributes hold most (`String`, the integers, `Double`,
/// `Float`, `Bool`, `Date`, `Data`): then it is no `Optional` and no `NSNull`. Told by comparing its type
/// with each, which costs far less than the dynamic casts that would tell it otherwise (a cast of a
/// `String` to `NSNull` looks for a bridging conformance; one to an existential looks up conformances).
func isPlainValue(_ value: Any) -> Bool {
  let type = ObjectIdentifier(Swift.type(of: value))
  return type == ObjectIdentifier(String.self) || type == ObjectIdentifier(Int64.self) || type == ObjectIdentifier(Double.self)
    || type == ObjectIdentifier(Date.self) || type == ObjectIdentifier(Int.self) || type == ObjectIdentifier(Bool.self)
    || type == ObjectIdentifier(Int32.self) || type == ObjectIdentifier(Int16.self) || type == ObjectIdentifier(Float.self)
    || type == ObjectIdentifier(Data.self)
}
