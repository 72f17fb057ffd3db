/// A demo step that did not go as it should: what the demo prints before it exits with status 1.
///
/// ```swift
/// guard notes == expected else { throw DemoFailure("the list shows \(notes) notes, not \(expected)") }
/// ```
public struct DemoFailure: Error, CustomStringConvertible {
  /// What went wrong.
  public let description: String

  /// A failure saying `description`.
  public init(_ description: String) { self.description = description }
}
