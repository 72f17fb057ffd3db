import Foundation

/// The value of an attribute whose type the engine does not store (Transformable, Composite, …): kept in
/// memory so the object can be inspected, refused at save.
///
/// `@unchecked Sendable`: it lives in its object's value array, which is only touched on the object's
/// context queue; it is never read from another thread.
struct UnsupportedValue: @unchecked Sendable {
  let value: Any
}
