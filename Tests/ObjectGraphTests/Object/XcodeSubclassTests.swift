import EngineTestSupport
import Foundation
import TestSupport
import Testing

@testable import ObjectGraph

// Subclasses laid out as Xcode's "Manual/None" code generation writes them: an empty class in
// `Recipe+CoreDataClass.swift`, its properties in `Recipe+CoreDataProperties.swift`, with `@NSManaged` read
// `@ObjectGraphManaged` (the one line that differs; Xcode's `@objc(Recipe)` cannot be compiled on Linux).

public class XcodeRecipe: NSManagedObject {}

extension XcodeRecipe {
  @nonobjc public class func fetchRequest() -> NSFetchRequest<XcodeRecipe> {
    NSFetchRequest<XcodeRecipe>(entityName: "XcodeRecipe")
  }

  @ObjectGraphManaged public var title: String?
  @ObjectGraphManaged public var servings: Int16
  @ObjectGraphManaged public var rating: NSNumber?
  @ObjectGraphManaged public var isFavourite: Bool
  @ObjectGraphManaged public var price: NSDecimalNumber?
  @ObjectGraphManaged public var identifier: UUID?
  @ObjectGraphManaged public var source: URL?
  @ObjectGraphManaged public var photo: Data?
  @ObjectGraphManaged public var createdAt: Date?
  @ObjectGraphManaged public var tags: NSSet?
  @ObjectGraphManaged public var steps: NSOrderedSet?
  @ObjectGraphManaged public var book: XcodeBook?
}

public class XcodeBook: NSManagedObject {}

extension XcodeBook {
  @ObjectGraphManaged public var name: String?
  @ObjectGraphManaged public var recipes: Set<XcodeRecipe>
}

/// A custom accessor over the primitive value, as Core Data's documentation shows it.
public class XcodeStep: NSManagedObject {
  public var text: String? {
    get {
      willAccessValue(forKey: "text")
      defer { didAccessValue(forKey: "text") }
      return primitiveText
    }
    set {
      willChangeValue(forKey: "text")
      primitiveText = newValue
      didChangeValue(forKey: "text")
    }
  }
}

extension XcodeStep {
  @ObjectGraphManaged private var primitiveText: String?
  @ObjectGraphManaged public var recipe: XcodeRecipe?

  var primitiveTextForTests: String? {
    get { primitiveText }
    set { primitiveText = newValue }
  }
}

public class XcodeTag: NSManagedObject {}

extension XcodeTag {
  @ObjectGraphManaged public var label: String?
  @ObjectGraphManaged public var recipes: NSSet?
}

@Suite("Subclasses as Xcode writes them: properties in an extension, NSNumber, NSSet, primitive accessors", .temporaryFolders)
struct XcodeSubclassTests {
  static func model() throws -> NSManagedObjectModel {
    let steps = NSRelationshipDescription(name: "steps", destination: "XcodeStep", inverse: "recipe", toMany: true)
    steps.isOrdered = true
    return try NSManagedObjectModel(entities: [
      NSEntityDescription(
        name: "XcodeRecipe", managedObjectClass: XcodeRecipe.self,
        properties: [
          .attribute(NSAttributeDescription(name: "title", type: .string)),
          .attribute(NSAttributeDescription(name: "servings", type: .integer16, defaultValue: Int16(2))),
          .attribute(NSAttributeDescription(name: "rating", type: .integer64)),
          .attribute(NSAttributeDescription(name: "isFavourite", type: .boolean, defaultValue: false)),
          .attribute(NSAttributeDescription(name: "price", type: .decimal)),
          .attribute(NSAttributeDescription(name: "identifier", type: .uuid)),
          .attribute(NSAttributeDescription(name: "source", type: .uri)),
          .attribute(NSAttributeDescription(name: "photo", type: .binaryData)),
          .attribute(NSAttributeDescription(name: "createdAt", type: .date)),
          .relationship(NSRelationshipDescription(name: "tags", destination: "XcodeTag", inverse: "recipes", toMany: true)),
          .relationship(steps),
          .relationship(NSRelationshipDescription(name: "book", destination: "XcodeBook", inverse: "recipes")),
        ]),
      NSEntityDescription(
        name: "XcodeBook", managedObjectClass: XcodeBook.self,
        properties: [
          .attribute(NSAttributeDescription(name: "name", type: .string)),
          .relationship(NSRelationshipDescription(name: "recipes", destination: "XcodeRecipe", inverse: "book", toMany: true)),
        ]),
      NSEntityDescription(
        name: "XcodeStep", managedObjectClass: XcodeStep.self,
        properties: [
          .attribute(NSAttributeDescription(name: "text", type: .string)),
          .relationship(NSRelationshipDescription(name: "recipe", destination: "XcodeRecipe", inverse: "steps")),
        ]),
      NSEntityDescription(
        name: "XcodeTag", managedObjectClass: XcodeTag.self,
        properties: [
          .attribute(NSAttributeDescription(name: "label", type: .string)),
          .relationship(NSRelationshipDescription(name: "recipes", destination: "XcodeRecipe", inverse: "tags", toMany: true)),
        ]),
    ])
  }

  /// The generated typed request, as Apple's code asks for it (with the type written, which picks Xcode's
  /// `fetchRequest()` over `NSManagedObject`'s untyped one).
  static func recipes() -> NSFetchRequest<XcodeRecipe> {
    let request: NSFetchRequest<XcodeRecipe> = XcodeRecipe.fetchRequest()
    return request
  }

  @Test("Properties declared in an extension read and write the model's values, and survive a save and a new context")
  func extensionProperties() throws {
    let stack = try StoreStack(model: Self.model())
    let recipe = XcodeRecipe(context: stack.context)
    #expect(recipe.servings == 2)  // the model's default
    #expect(recipe.rating == nil && recipe.tags?.count == 0 && recipe.steps?.count == 0)
    recipe.title = "Soup"
    recipe.servings = 4
    recipe.rating = NSNumber(value: 5)
    recipe.isFavourite = true
    recipe.price = NSDecimalNumber(string: "12.50")
    let id = UUID()
    recipe.identifier = id
    recipe.source = URL(string: "https://example.com/soup")
    recipe.photo = Data([1, 2, 3])
    #expect(recipe.value(forKey: "rating") as? Int == 5)
    #expect(recipe.value(forKey: "servings") as? Int16 == 4)
    try stack.context.save()

    let other = stack.freshContext()
    try other.performAndWait {
      let fetched = try other.fetch(Self.recipes())
      #expect(fetched.count == 1)
      let copy = try #require(fetched.first)
      #expect(copy.title == "Soup")
      #expect(copy.servings == 4)
      #expect(copy.rating == NSNumber(value: 5))
      #expect(copy.rating?.intValue == 5)
      #expect(copy.isFavourite)
      #expect(copy.price == NSDecimalNumber(string: "12.50"))
      #expect(copy.identifier == id)
      #expect(copy.source?.absoluteString == "https://example.com/soup")
      #expect(copy.photo == Data([1, 2, 3]))
      #expect(copy.createdAt == nil)
    }

    // Setting an NSNumber back to nil clears the attribute.
    recipe.rating = nil
    #expect(recipe.value(forKey: "rating") == nil)
  }

  @Test("To-many properties as NSSet and NSOrderedSet hold the related objects, and setting them keeps inverses")
  func relationshipsAsFoundationCollections() throws {
    let stack = try StoreStack(model: Self.model())
    let context = stack.context
    let recipe = XcodeRecipe(context: context)
    let (quick, cheap) = (XcodeTag(context: context), XcodeTag(context: context))
    quick.label = "quick"
    cheap.label = "cheap"
    recipe.tags = NSSet(array: [quick, cheap])
    #expect(recipe.tags?.count == 2)
    #expect(quick.recipes?.contains(recipe) == true)

    let (first, second) = (XcodeStep(context: context), XcodeStep(context: context))
    first.text = "Boil"
    second.text = "Serve"
    recipe.steps = NSOrderedSet(array: [first, second])
    #expect((recipe.steps?.array as? [XcodeStep])?.map(\.text) == ["Boil", "Serve"])
    #expect(second.recipe === recipe)

    let book = XcodeBook(context: context)
    recipe.book = book
    #expect(book.recipes == [recipe])
    try context.save()

    let other = stack.freshContext()
    try other.performAndWait {
      let copy = try #require(try other.fetch(Self.recipes()).first)
      let labels = Set((copy.tags?.allObjects as? [XcodeTag] ?? []).compactMap(\.label))
      #expect(labels == ["quick", "cheap"])
      #expect((copy.steps?.array as? [XcodeStep])?.map(\.text) == ["Boil", "Serve"])
      #expect(copy.book?.recipes.count == 1)
    }
  }

  @Test("primitiveText reads and writes the primitive value of text, without marking the object changed")
  func primitiveAccessor() throws {
    let stack = try StoreStack(model: Self.model())
    let step = XcodeStep(context: stack.context)
    step.text = "Chop"
    #expect(step.value(forKey: "text") as? String == "Chop")
    #expect(step.primitiveTextForTests == "Chop")
    try stack.context.save()
    step.primitiveTextForTests = "Dice"
    #expect(step.text == "Dice")
    #expect(!step.hasChanges)
  }

  @Test("The class needs no initialiser of its own and no registration: Recipe(context:) and fetches make Recipes")
  func noInitialiserNoRegistration() throws {
    let stack = try StoreStack(model: Self.model())
    let made = XcodeRecipe(context: stack.context)
    made.title = "Bread"
    let entity = stack.entity("XcodeRecipe")
    let cake = XcodeRecipe(entity: entity, insertInto: stack.context)
    cake.title = "Cake"
    try stack.context.save()
    let other = stack.freshContext()
    let titles = try other.performAndWait { try other.fetch(Self.recipes()).compactMap(\.title).sorted() }
    #expect(titles == ["Bread", "Cake"])
  }
}

/// The compiler plugin behind `@ObjectGraphManaged`, run as the compiler runs it: a misuse gets an error that
/// says what to do, and the expansions are what the engine's accessors expect.
@Suite("The @ObjectGraphManaged plugin")
struct ManagedMacroPluginTests {
  /// Sends `declaration` to the plugin for `role` and returns the reply's expanded source and diagnostics.
  static func expand(_ declaration: String, role: String) throws -> (source: String?, errors: [String]) {
    let plugin = try BuildProducts.requireExecutable("ObjectGraphMacros-tool")
    let location: [String: Any] = ["fileID": "T/t.swift", "fileName": "/t.swift", "offset": 100, "line": 1, "column": 1]
    let syntax: [String: Any] = ["kind": "declaration", "source": declaration, "location": location]
    let messages: [[String: Any]] = [
      ["getCapability": ["capability": ["protocolVersion": 7]]],
      [
        "expandAttachedMacro": [
          "macro": ["moduleName": "ObjectGraphMacros", "typeName": "ManagedMacro", "name": "ObjectGraphManaged"],
          "macroRole": role, "discriminator": "$s1T", "attributeSyntax": syntax, "declSyntax": syntax,
        ]
      ],
    ]
    var input = Data()
    for message in messages {
      let payload = try JSONSerialization.data(withJSONObject: message)
      withUnsafeBytes(of: UInt64(payload.count).littleEndian) { input.append(contentsOf: $0) }
      input.append(payload)
    }
    let process = Process()
    process.executableURL = plugin
    let (stdin, stdout) = (Pipe(), Pipe())
    process.standardInput = stdin
    process.standardOutput = stdout
    try process.run()
    stdin.fileHandleForWriting.write(input)
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()

    var replies: [[String: Any]] = []
    var index = output.startIndex
    while index + 8 <= output.endIndex {
      let length = output[index..<index + 8].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
      let payload = output[(index + 8)..<(index + 8 + length)]
      replies.append(try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any]))
      index += 8 + length
    }
    #expect(replies.count == 2)
    #expect(replies.first?["getCapabilityResult"] != nil)
    let result = try #require(replies.last?["expandMacroResult"] as? [String: Any])
    let errors = (result["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
    return (result["expandedSource"] as? String, errors)
  }

  @Test("A property gets a getter and a setter through its key, and a key object beside it")
  func propertyExpansion() throws {
    let accessors = try Self.expand("\n  /// The title.\n  @ObjectGraphManaged public var title: String?", role: "accessor")
    #expect(accessors.errors.isEmpty)
    #expect(accessors.source?.contains("_managedValue(forKey: Self._objectGraphKey_title)") == true)
    #expect(accessors.source?.contains("_setManagedValue(newValue, forKey: Self._objectGraphKey_title)") == true)
    let peer = try Self.expand("@ObjectGraphManaged @available(*, deprecated) public var `default`: Int32", role: "peer")
    #expect(peer.source == "private static let _objectGraphKey_default = ObjectGraph.ManagedPropertyKey(\"default\")")
  }

  @Test("Misuses are refused with a message saying what to do")
  func misuses() throws {
    let initial = try Self.expand("@ObjectGraphManaged var title: String? = \"x\"", role: "accessor")
    #expect(initial.source == nil)
    #expect(initial.errors.first?.contains("cannot have an initial value") == true)
    let constant = try Self.expand("@ObjectGraphManaged let title: String?", role: "accessor")
    #expect(constant.errors.first?.contains("needs 'var'") == true)
    let isStatic = try Self.expand("@ObjectGraphManaged static var title: String?", role: "accessor")
    #expect(isStatic.errors.first?.contains("Remove 'static'") == true)
    let untyped = try Self.expand("@ObjectGraphManaged var title", role: "accessor")
    #expect(untyped.errors.first?.contains("type written out") == true)
    let computed = try Self.expand("@ObjectGraphManaged var title: String { \"x\" }", role: "accessor")
    #expect(computed.errors.first?.contains("remove the accessor block") == true)
    // A refused property gets no key, so its error is reported once.
    #expect(try Self.expand("@ObjectGraphManaged var title: String? = nil", role: "peer").source == "")
  }
}
