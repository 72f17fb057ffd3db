/// The expansions of `@ObjectGraphManaged`, which stands where Core Data's `@NSManaged` does.
///
/// - On a property (`@ObjectGraphManaged public var title: String?`, in the class or in an extension, as Xcode
///   writes `+CoreDataProperties` files): a getter and a setter that read and write the object's value for the
///   key named like the property (the **accessor** role), and a private static key object the accessors share,
///   which caches where the value sits (the **peer** role, `_objectGraphKey_title`).
/// - The **body** role below (Xcode's generated relationship methods) is not declared on the macro yet: the
///   compiler refuses a macro with both accessor and body roles on a property, so it waits for a marker of its own.
///
/// Anything else gets an error saying what the macro is for.
enum ManagedMacro {
  /// The prefix of the static key a property's accessors share (the macro's declared peer names).
  static let keyPrefix = "_objectGraphKey_"

  struct Expansion {
    var source: String?
    var diagnostics: [[String: Any]] = []
  }

  static func expand(_ request: [String: Any]) -> Expansion {
    let role = request["macroRole"] as? String ?? ""
    let syntax = request["declSyntax"] as? [String: Any] ?? [:]
    let source = syntax["source"] as? String ?? ""
    let location = syntax["location"] as? [String: Any] ?? [:]
    let declaration = ManagedDeclaration(source: source)
    let place = Place(fileName: location["fileName"] as? String ?? "", offset: location["offset"] as? Int ?? 0)

    switch (role, declaration.kind) {
    case ("accessor", .variable):
      if let problem = propertyProblem(declaration) { return place.error(problem.message, at: problem.offset) }
      let key = "Self.\(keyPrefix)\(declaration.name)"
      return Expansion(
        source: """
          {
            get {
              _managedValue(forKey: \(key))
            }
            set {
              _setManagedValue(newValue, forKey: \(key))
            }
          }
          """)
    case ("peer", .variable):
      // A property the accessor role refuses gets no key either (its error is said once, there).
      if propertyProblem(declaration) != nil { return Expansion(source: "") }
      let literal = declaration.name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      return Expansion(
        source: "private static let \(keyPrefix)\(declaration.name) = ObjectGraph.ManagedPropertyKey(\"\(literal)\")")
    case ("peer", .function):
      return Expansion(source: "")
    case ("body", .function):
      if declaration.body != nil {
        return place.error(
          "@ObjectGraphManaged writes the body of \(declaration.name)(…); remove the body, as Xcode's generated accessors have none.",
          at: declaration.keywordOffset)
      }
      guard let call = relationshipCall(declaration) else {
        return place.error(
          "@ObjectGraphManaged on a method works for the relationship accessors Xcode generates: addToX(_:), removeFromX(_:), insertIntoX(_:at:), removeFromX(at:) and replaceX(at:with:), where X is the relationship's name with a capital letter. \(declaration.name)(…) is none of them.",
          at: declaration.keywordOffset)
      }
      return Expansion(source: "{\n  \(call)\n}")
    case ("peer", _), ("accessor", _), ("body", _):
      if declaration.kind == .constant {
        return place.error(
          "@ObjectGraphManaged needs 'var': a managed property can be set. Write 'var \(declaration.name)', as Xcode does.",
          at: declaration.keywordOffset)
      }
      return place.error(
        "@ObjectGraphManaged marks a property of an NSManagedObject subclass (where Core Data writes @NSManaged), or one of the relationship methods Xcode generates.",
        at: declaration.keywordOffset)
    default:
      return Expansion(source: "")
    }
  }

  /// What makes a property unfit for the macro, and where.
  private static func propertyProblem(_ declaration: ManagedDeclaration) -> (message: String, offset: Int)? {
    if let modifier = declaration.forbiddenModifier {
      return (
        "@ObjectGraphManaged marks an instance property: a '\(modifier.text)' property has no value in an object. Remove '\(modifier.text)'.",
        modifier.offset
      )
    }
    if declaration.typeText.isEmpty {
      return (
        "@ObjectGraphManaged needs the property's type written out ('var \(declaration.name): String?'): the engine reads the value as that type.",
        declaration.keywordOffset
      )
    }
    if let initializer = declaration.initializer {
      return (
        "@ObjectGraphManaged property '\(declaration.name)' cannot have an initial value: its value is the object's, and a new object starts with the model's default. Set the attribute's default value in the model, or set it in awakeFromInsert().",
        initializer.offset
      )
    }
    if let body = declaration.body {
      return (
        "@ObjectGraphManaged writes the getter and setter of '\(declaration.name)'; remove the accessor block, or remove @ObjectGraphManaged to write them yourself.",
        body.offset
      )
    }
    return nil
  }

  /// The engine call a generated relationship method makes, or `nil` when the method is none of Xcode's.
  static func relationshipCall(_ declaration: ManagedDeclaration) -> String? {
    let name = declaration.name
    let parameters = declaration.parameters
    func relationship(after prefix: String) -> String? {
      guard name.hasPrefix(prefix), name.count > prefix.count else { return nil }
      let rest = String(name.dropFirst(prefix.count))
      return rest.first?.isUppercase == true ? "\"\(rest)\"" : nil
    }
    let labels = parameters.map(\.label)
    let names = parameters.map(\.name)
    if let key = relationship(after: "addTo"), labels == ["_"] {
      return "_managedAdd(\(names[0]), toRelationship: \(key))"
    }
    if let key = relationship(after: "removeFrom"), labels == ["_"] {
      return "_managedRemove(\(names[0]), fromRelationship: \(key))"
    }
    if let key = relationship(after: "removeFrom"), labels == ["at"] {
      return "_managedRemove(at: \(names[0]), fromRelationship: \(key))"
    }
    if let key = relationship(after: "insertInto"), labels == ["_", "at"] {
      return "_managedInsert(\(names[0]), at: \(names[1]), intoRelationship: \(key))"
    }
    if let key = relationship(after: "replace"), labels == ["at", "with"] {
      return "_managedReplace(at: \(names[0]), with: \(names[1]), inRelationship: \(key))"
    }
    return nil
  }

  /// Where the declaration sits, for diagnostics.
  struct Place {
    let fileName: String
    let offset: Int

    func error(_ message: String, at offsetInDeclaration: Int) -> Expansion {
      let position: [String: Any] = ["fileName": fileName, "offset": offset + offsetInDeclaration]
      return Expansion(
        source: nil,
        diagnostics: [
          [
            "message": message, "severity": "error", "position": position, "highlights": [] as [Any], "notes": [] as [Any],
            "fixIts": [] as [Any],
          ]
        ])
    }
  }
}
