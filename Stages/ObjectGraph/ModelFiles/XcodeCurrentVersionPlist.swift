import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

extension XcodeModelLoader {
  /// Reads the small XML property list Xcode writes as `.xccurrentversion` with ``XcodeFastXML``, the reader
  /// the model's XML is read with, or with `XMLParser` when that declines.
  ///
  /// Why not `PropertyListSerialization`: on Linux its first use in a process cost 0.2 to 1.8 ms in a
  /// release build here, against 0.1 to 0.3 ms for reading and building the whole model, and loading the
  /// model is on every app's launch path (stage 3's initialiser aims at one millisecond). Only the shape
  /// Xcode writes is read here: a top-level dictionary whose values are strings or arrays of strings.
  /// Anything else (a binary property list, other value types, XML that does not parse) returns `nil`, and
  /// the caller falls back to `PropertyListSerialization`, whose errors it reports.
  final class CurrentVersionPlist: NSObject, XMLParserDelegate {
    /// What has been read so far, from ``XcodeFastXML`` or `XMLParser`.
    struct State: XcodeFastXMLHandler {
      private var path: [String] = []
      private var text = ""
      private var key: String?
      private var list: [String]?
      private var values: [String: Any] = [:]
      private var unsupported = false

      static var wantsText: Bool { true }

      /// The dictionary, when the whole document was in the shape this reader handles.
      var result: [String: Any]? { unsupported || !path.isEmpty ? nil : values }

      mutating func start(_ name: String, attributes: [String: String], line: Int) {
        text = ""
        switch (path, name) {
        case ([], "plist"), (["plist"], "dict"), (["plist", "dict"], "key"), (["plist", "dict"], "string"),
          (["plist", "dict", "array"], "string"):
          break
        case (["plist", "dict"], "array"):
          list = []
        default:
          unsupported = true
        }
        path.append(name)
      }

      mutating func characters(_ string: String) { text += string }

      mutating func end(_ name: String) {
        path.removeLast()
        switch (path, name) {
        case (["plist", "dict"], "key"):
          key = text
        case (["plist", "dict"], "string"):
          if let key { values[key] = text } else { unsupported = true }
          key = nil
        case (["plist", "dict", "array"], "string"):
          list?.append(text)
        case (["plist", "dict"], "array"):
          if let key, let list { values[key] = list } else { unsupported = true }
          key = nil
          list = nil
        default:
          break
        }
        text = ""
      }
    }

    private var state = State()

    /// The top-level dictionary of `data`, or `nil` when it is not in the shape this reader handles. Read with
    /// ``XcodeFastXML``, or with `XMLParser` when that declines.
    static func read(_ data: Data) -> [String: Any]? {
      // A binary property list declines here (its bytes are not XML text), and is refused below.
      var fast = State()
      if XcodeFastXML.read(data, into: &fast) { return fast.result }
      return readWithXMLParser(data)
    }

    /// The top-level dictionary as read with `XMLParser`.
    static func readWithXMLParser(_ data: Data) -> [String: Any]? {
      guard !data.starts(with: Array("bplist".utf8)) else { return nil }
      // Foundation's XMLParser on Linux crashes on some inputs (XMLParserGuard).
      guard XMLParserGuard.problem(in: data) == nil else { return nil }
      let reader = CurrentVersionPlist()
      let parser = XMLParser(data: data)
      parser.delegate = reader
      guard parser.parse() else { return nil }
      return reader.state.result
    }

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
      attributes: [String: String] = [:]
    ) {
      state.start(elementName, attributes: attributes, line: parser.lineNumber)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { state.characters(string) }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
      state.end(elementName)
    }
  }
}
