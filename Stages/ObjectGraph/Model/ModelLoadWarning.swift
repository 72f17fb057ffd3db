import Foundation

/// Something odd in an Xcode model file that the loader read the way Core Data reads it instead of refusing the
/// model: for example a Boolean default written as `1`, or an Integer 16 default written as `0.0`.
///
/// ``NSManagedObjectModel/init(contentsOf:)`` and ``NSManagedObjectModel/versions(in:)`` collect them in
/// ``NSManagedObjectModel/loadWarnings``; a model made in code has none. Each names the file and line, the entity and
/// attribute, the value as written and what it was read as, so a tool can print it:
///
/// ```swift
/// guard let model = NSManagedObjectModel(contentsOf: url) else { return }
/// for warning in model.loadWarnings {
///   print(warning)   // …/Model.xcdatamodel/contents:12: warning: Note.isPinned (Boolean) default '1' read as true: …
/// }
/// ```
///
/// The rules the loader follows, and where each comes from, are in `Docs/ObjectGraph.md` ("Reading Xcode models").
public struct ModelLoadWarning: Sendable, Hashable, CustomStringConvertible {
  /// The model file (a version's `contents` file).
  public let file: URL
  /// The line of the file where the attribute's XML element starts.
  public let line: Int
  /// The entity's name.
  public let entity: String
  /// The attribute's name.
  public let property: String
  /// The attribute's type as Xcode names it (`Integer 16`, `Boolean`, …).
  public let attributeType: String
  /// The default value exactly as the file writes it.
  public let writtenValue: String
  /// What the loader read it as: the Swift value with its type (`Int16 1`, `Bool true`), or `no default (nil)`.
  public let readValue: String
  /// The rule that was applied, in words.
  public let message: String

  /// `file:line: warning: Entity.attribute (Type) default 'written' read as value: rule`, the shape compilers use.
  public var description: String {
    "\(file.path):\(line): warning: \(entity).\(property) (\(attributeType)) default '\(writtenValue)' read as "
      + "\(readValue): \(message)"
  }
}
