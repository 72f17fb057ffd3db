import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Reading a `contents` file's XML into a tree of ``XcodeModelLoader/ModelNode`` with Foundation's `XMLParser`.
extension XcodeModelLoader {
  /// An XML element with its attributes, children and the line it starts on.
  struct ModelNode {
    let name: String
    let attributes: [String: String]
    var children: [ModelNode] = []
    let line: Int

    subscript(_ attribute: String) -> String? { attributes[attribute] }

    /// Whether an Xcode flag attribute (`optional="YES"`) is set.
    func flag(_ attribute: String) -> Bool {
      guard let value = attributes[attribute]?.lowercased() else { return false }
      return value == "yes" || value == "true" || value == "1"
    }

    func children(named name: String) -> [ModelNode] { children.filter { $0.name == name } }
  }

  /// Where a model's XML comes from, as messages name it: a version's `contents` file, or data kept elsewhere
  /// (a store's copy of its model).
  struct ModelSource {
    /// How messages name it, starting in lower case: `the Xcode model file '…/contents'`.
    let name: String
    /// The file, when there is one.
    let url: URL?
    /// What to do when the XML is damaged.
    let remedy: String

    /// A version's `contents` file.
    static func file(_ url: URL) -> ModelSource {
      ModelSource(
        name: "the Xcode model file '\(url.path)'", url: url,
        remedy: "Fix the file (a merge conflict left in it is a common cause) or restore it from version control.")
    }

    /// The name with its first letter upper-cased, to start a sentence.
    var sentenceName: String { name.prefix(1).uppercased() + name.dropFirst() }
  }

  /// Builds a ``ModelNode`` tree from the elements ``XcodeFastXML`` or `XMLParser` reads (text is not kept).
  struct TreeBuilder: XcodeFastXMLHandler {
    private var stack: [ModelNode] = []
    private(set) var root: ModelNode?

    static var wantsText: Bool { false }

    mutating func start(_ name: String, attributes: [String: String], line: Int) {
      stack.append(ModelNode(name: name, attributes: attributes, line: line))
    }

    mutating func end(_ name: String) {
      guard let element = stack.popLast() else { return }
      if stack.isEmpty {
        root = element
      } else {
        stack[stack.count - 1].children.append(element)
      }
    }

    mutating func characters(_ text: String) {}
  }

  /// Builds an ``ModelNode`` tree with ``XcodeFastXML``, or with Foundation's `XMLParser` when that declines.
  final class XMLTree: NSObject, XMLParserDelegate {
    private var builder = TreeBuilder()
    private var failure: (line: Int, column: Int, code: Int)?

    static func parse(_ data: Data, file: URL) throws -> ModelNode {
      try parse(data, source: .file(file))
    }

    static func parse(_ data: Data, source: ModelSource) throws -> ModelNode {
      var fast = TreeBuilder()
      if XcodeFastXML.read(data, into: &fast), let root = fast.root { return root }
      return try parseWithXMLParser(data, source: source)
    }

    /// The tree as Foundation's `XMLParser` reads it, with the errors it reports.
    static func parseWithXMLParser(_ data: Data, source: ModelSource) throws -> ModelNode {
      // Foundation's XMLParser on Linux crashes on some inputs (XMLParserGuard): refused before it runs.
      switch XMLParserGuard.problem(in: data) {
      case .notUTF8(let offset, let line):
        throw ObjectGraphError(
          .modelInvalid,
          "\(source.sentenceName) is not UTF-8 text: byte \(offset) (line \(line)) is not part of a UTF-8 character, "
            + "and Xcode writes models as UTF-8. \(source.remedy)",
          url: source.url)
      case .emptyProcessingInstruction(let line):
        throw ObjectGraphError(
          .modelInvalid,
          "\(source.sentenceName) is not well-formed XML: line \(line) holds a processing instruction with nothing after "
            + "its name (such as <?xml?>; Xcode writes <?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>). \(source.remedy)",
          url: source.url)
      case nil:
        break
      }
      let parser = XMLParser(data: data)
      parser.shouldProcessNamespaces = false
      parser.shouldResolveExternalEntities = false
      let tree = XMLTree()
      parser.delegate = tree
      let succeeded = parser.parse()
      // On Linux `parse()` can report success for a truncated document: the delegate's error callback is
      // what says so.
      if let failure = tree.failure ?? (succeeded ? nil : (parser.lineNumber, parser.columnNumber, -1)) {
        let code = failure.code >= 0 ? failure.code : (parser.parserError as NSError?)?.code ?? -1
        throw ObjectGraphError(
          .modelInvalid,
          "\(source.sentenceName) is not well-formed XML: line \(failure.line), column \(failure.column): "
            + "\(describeXMLError(code)). \(source.remedy)",
          url: source.url)
      }
      guard let root = tree.builder.root else {
        let remedy =
          source.url == nil
          ? source.remedy : "Restore it from version control or re-create the model version in Xcode."
        throw ObjectGraphError(
          .modelInvalid, "\(source.sentenceName) is empty or holds no XML element. \(remedy)", url: source.url)
      }
      return root
    }

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
      attributes attributeDict: [String: String]
    ) {
      builder.start(elementName, attributes: attributeDict, line: parser.lineNumber)
    }

    func parser(
      _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
      builder.end(elementName)
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
      if failure == nil {
        failure = (parser.lineNumber, parser.columnNumber, (parseError as NSError).code)
      }
    }

    func parser(_ parser: XMLParser, validationErrorOccurred validationError: any Error) {
      if failure == nil {
        failure = (parser.lineNumber, parser.columnNumber, (validationError as NSError).code)
      }
    }

    /// Words for the XMLParser (libxml2) error codes a damaged model file typically produces.
    private static func describeXMLError(_ code: Int) -> String {
      let known: [Int: String] = [
        4: "no XML element where the document should start",
        5: "the document ends too early or has extra content after the root element",
        23: "a '>' is missing",
        38: "an attribute value is not quoted",
        39: "an attribute has no value",
        40: "an attribute value contains a '<'",
        41: "an attribute is written without '=' and a value",
        42: "an attribute appears twice in one element",
        65: "a space is required between attributes",
        68: "a name was expected",
        73: "a '>' was expected",
        76: "an end tag does not match its start tag",
        77: "an end tag is missing",
      ]
      let text = known[code] ?? "the XML parser stopped here"
      return code >= 0 ? "\(text) (XMLParser error \(code))" : text
    }
  }

}
