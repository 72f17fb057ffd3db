import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Reads Core Data's XML store format, which Xcode uses for a mapping model's source (`xcmapping.xml`
/// inside a `.xcmappingmodel` folder): a `<database>` of `<object type="…" id="…">` elements, each with
/// `<attribute name="…" type="…">value</attribute>` and `<relationship name="…" idrefs="id id …"/>`
/// children. Binary attributes hold base64 text. The `<databaseInfo>` header (metadata) is skipped.
struct CoreDataXMLDocument {
  /// One `<object>`.
  struct Record {
    let type: String
    let id: String
    /// Attribute values by name (base64 for `binary`, decoded by ``data(_:)``).
    var attributes: [String: String] = [:]
    /// Relationship targets by name: the ids in `idrefs`, in order.
    var relationships: [String: [String]] = [:]

    /// A binary attribute's bytes, or `nil` when it is missing or not base64.
    func data(_ name: String) -> Data? {
      attributes[name].flatMap { Data(base64Encoded: $0, options: .ignoreUnknownCharacters) }
    }
  }

  /// What is wrong with a document, in words for an error message.
  struct Malformed: Error, Sendable {
    let reason: String
  }

  /// The objects, in document order.
  let records: [Record]

  /// The records by id.
  var recordsByID: [String: Record] {
    Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// Parses a document.
  /// - Throws: ``Malformed`` when the XML is not well-formed or not a Core Data XML store, or is one of the
  ///   inputs Foundation's `XMLParser` would crash on (``XMLParserGuard``), which it never reaches.
  init(_ data: Data) throws {
    if let problem = XMLParserGuard.problem(in: data) {
      throw Malformed(reason: problem.reason)
    }
    let parser = XMLParser(data: data)
    parser.shouldResolveExternalEntities = false
    let delegate = Delegate()
    parser.delegate = delegate
    let succeeded = parser.parse()
    if let failure = delegate.failure {
      throw Malformed(reason: failure)
    }
    guard succeeded else {
      throw Malformed(
        reason: "it is not well-formed XML (line \(parser.lineNumber), column \(parser.columnNumber))")
    }
    guard delegate.sawDatabase else {
      throw Malformed(reason: "its root element is not <database>, so it is not Core Data's XML format")
    }
    guard delegate.closedDatabase else {
      throw Malformed(reason: "it is not well-formed XML: it ends before </database> (a truncated file)")
    }
    records = delegate.records
  }

  /// Collects the records while the parser walks the document.
  private final class Delegate: NSObject, XMLParserDelegate {
    var records: [Record] = []
    var sawDatabase = false
    var closedDatabase = false
    var failure: String?
    private var current: Record?
    private var attributeName: String?
    private var text = ""
    private var depth = 0

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      depth += 1
      if depth == 1 {
        sawDatabase = elementName == "database"
        if !sawDatabase { parser.abortParsing() }
        return
      }
      switch elementName {
      case "object" where depth == 2:
        guard let type = attributes["type"], let id = attributes["id"] else {
          failure = "an <object> (line \(parser.lineNumber)) has no type or id"
          parser.abortParsing()
          return
        }
        current = Record(type: type, id: id)
      case "attribute" where current != nil && depth == 3:
        attributeName = attributes["name"]
        text = ""
      case "relationship" where current != nil && depth == 3:
        if let name = attributes["name"] {
          current?.relationships[name] = (attributes["idrefs"] ?? "").split(separator: " ").map(String.init)
        }
      default:
        break
      }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
      if attributeName != nil { text += string }
    }

    func parser(
      _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
      defer { depth -= 1 }
      switch elementName {
      case "attribute" where depth == 3:
        if let name = attributeName { current?.attributes[name] = text }
        attributeName = nil
      case "object" where depth == 2:
        if let record = current { records.append(record) }
        current = nil
      case "database" where depth == 1:
        closedDatabase = true
      default:
        break
      }
    }
  }
}
