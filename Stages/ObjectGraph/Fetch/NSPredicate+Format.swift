import Foundation

#if !canImport(Darwin)
  /// Lets an initialiser declared in an extension hand back an instance of a subclass (`self = …`), which
  /// a class's own convenience initialiser cannot: how `NSPredicate(format:)` and
  /// `NSSortDescriptor(key:ascending:)` make the engine's kinds of Foundation's classes on Linux.
  ///
  /// Not for apps: Foundation's `NSPredicate` and `NSSortDescriptor` adopt it, and only the engine's
  /// extensions use it.
  public protocol _ObjectGraphFactoryInitializable {}

  extension NSPredicate: _ObjectGraphFactoryInitializable {}

  extension _ObjectGraphFactoryInitializable where Self == NSPredicate {
    /// Parses a predicate in `NSPredicate`'s format-string language, substituting `args` for its `%@`,
    /// `%K`, `%d`… in order: Foundation's `NSPredicate(format:_:)`, which Linux's Foundation leaves out.
    ///
    /// ```swift
    /// let recent = NSPredicate(format: "createdAt > %@ AND notebook == %@", cutoff as NSDate, notebook)
    /// let tagged = NSPredicate(format: "ANY tags.name ==[c] %@", "swift")
    /// let busy = NSPredicate(format: "SUBQUERY(notes, $note, $note.wordCount > 100).@count >= 3")
    /// ```
    ///
    /// The language: `== != < <= > >=`, `BETWEEN`, `IN`, `CONTAINS BEGINSWITH ENDSWITH LIKE MATCHES` with
    /// `[c]`, `[d]`, `[cd]`, `AND OR NOT && || !`, parentheses, `nil`, `TRUEPREDICATE`, `FALSEPREDICATE`,
    /// `%@ %K %d %i %ld %f %s`, key paths through to-one relationships, `ANY`/`ALL`/`NONE` over to-many
    /// ones, the collection operators `@count`, `@sum`, `@avg`, `@min`, `@max`, `SUBQUERY(…).@count`,
    /// arithmetic, `$VARIABLE`s (``Foundation/NSPredicate/withSubstitutionVariables(_:)``), `SELF`, and
    /// comparison to managed objects and IDs. Every one runs in SQLite and in memory with the same answer.
    ///
    /// An argument may be a `String`, a number, a `Bool`, `Date`, `Data`, `UUID`, `URL`, `Decimal`, an
    /// ``NSManagedObject`` or ``NSManagedObjectID``, `nil`, or an array or set of those (for `IN`); values
    /// are read during the call. A managed object is kept as its ID; while that ID is temporary the
    /// predicate also keeps where the object's ID lives, so after a save it names the saved object, as
    /// Core Data's predicate (which holds the object) does.
    ///
    /// **A malformed format does not stop the program** (Core Data raises an exception that does): the
    /// predicate keeps the parser's message, a fetch with it throws that message as an `NSError`
    /// (``ObjectGraphPredicateSyntaxError``), `evaluate(with:)` answers `false`, and
    /// ``Foundation/NSPredicate/formatError`` reads the message at once.
    public init(format predicateFormat: String, _ args: Any?...) {
      self = FormatPredicate(format: predicateFormat, arguments: args)
    }

    /// The same, with the arguments given as an array: Foundation's `NSPredicate(format:argumentArray:)`.
    public init(format predicateFormat: String, argumentArray arguments: [Any]?) {
      self = FormatPredicate(format: predicateFormat, arguments: (arguments ?? []).map { $0 })
    }
  }

  extension NSPredicate {
    /// A copy with its `$VARIABLE`s replaced by values: Foundation's `withSubstitutionVariables(_:)`,
    /// which Linux's Foundation leaves out.
    ///
    /// ```swift
    /// let template = NSPredicate(format: "wordCount > $minimum AND notebook == $notebook")
    /// let predicate = template.withSubstitutionVariables(["minimum": 100, "notebook": notebook])
    /// ```
    ///
    /// The template is not changed, so it can be filled in again and again. A variable left without a
    /// value, or a value of a kind predicates cannot hold, does not stop the program (Core Data raises an
    /// exception): the copy keeps the message, a fetch with it throws it and ``formatError`` reads it.
    public func withSubstitutionVariables(_ variables: [String: Any]) -> Self {
      let substituted: FetchPredicate.Parsed
      do {
        substituted = .success(try FetchPredicate(self).withSubstitutionVariables(variables))
      } catch {
        substituted = .failure(ObjectGraphError.wrapping(error))
      }
      return FormatPredicate(parsed: substituted, format: FetchPredicate.format(of: self)) as? Self ?? self
    }

    /// Why this predicate cannot be used: the message of a format that did not parse or of a
    /// substitution that failed, or of a kind of predicate the engine cannot run (a block predicate in a
    /// fetch); `nil` when it can be used. ObjectGraph's own: Core Data raises an exception instead.
    public var formatError: String? {
      do {
        _ = try FetchPredicate(self)
        return nil
      } catch {
        return ObjectGraphError.wrapping(error).message
      }
    }
  }
#endif

/// The predicate `NSPredicate(format:)` makes: a kind of Foundation's `NSPredicate` (so every file sees it
/// as one, and Foundation's `NSCompoundPredicate` and `filtered(using:)` evaluate it) holding the parsed
/// tree, or the parser's error.
///
/// Immutable: every stored property is a `let` of a `Sendable` type, set in the initialiser.
final class FormatPredicate: NSPredicate {
  let parsed: FetchPredicate.Parsed
  /// The format as written, shown by `predicateFormat` when it did not parse.
  private let format: String

  init(parsed: FetchPredicate.Parsed, format: String) {
    self.parsed = parsed
    self.format = format
    super.init(value: false)
  }

  convenience init(format: String, arguments: [Any?]) {
    let parsed: FetchPredicate.Parsed
    do {
      parsed = .success(try FetchPredicate(format: format, argumentArray: arguments))
    } catch {
      parsed = .failure(ObjectGraphError.wrapping(error))
    }
    self.init(parsed: parsed, format: format)
  }

  convenience init(_ predicate: FetchPredicate) {
    self.init(parsed: .success(predicate), format: predicate.predicateFormat)
  }

  required init?(coder: NSCoder) { nil }

  override var predicateFormat: String {
    switch parsed {
    case .success(let predicate): predicate.predicateFormat
    case .failure: format
    }
  }

  override var description: String { predicateFormat }

  override func evaluate(with object: Any?) -> Bool {
    evaluate(with: object, substitutionVariables: nil)
  }

  override func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
    guard case .success(let predicate) = parsed else { return false }
    return predicate.answer(for: object, bindings: bindings)
  }

  override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? FormatPredicate else { return false }
    switch (parsed, other.parsed) {
    case (.success(let lhs), .success(let rhs)): return lhs.resolvedNode == rhs.resolvedNode
    case (.failure, .failure): return format == other.format
    default: return false
    }
  }

  override var hash: Int { predicateFormat.hashValue }

  override func copy(with zone: NSZone? = nil) -> Any { self }
}
