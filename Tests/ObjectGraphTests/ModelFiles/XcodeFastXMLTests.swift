import Foundation
import Testing

@testable import ObjectGraph

/// `XcodeFastXML` reads what Xcode writes as Foundation's `XMLParser` reads it, and declines (for `XMLParser` to
/// read, with its errors) whatever it does not handle.
@Suite("Reading Xcode's XML without XMLParser")
struct XcodeFastXMLTests {
  typealias Node = XcodeModelLoader.ModelNode

  /// The tree the fast reader makes, or `nil` when it declines.
  static func fastTree(_ data: Data) -> Node? {
    var builder = XcodeModelLoader.TreeBuilder()
    return XcodeFastXML.read(data, into: &builder) ? builder.root : nil
  }

  static func slowTree(_ data: Data) throws -> Node {
    try XcodeModelLoader.XMLTree.parseWithXMLParser(data, source: .file(URL(fileURLWithPath: "/x/contents")))
  }

  /// The first difference between two trees, as a path of element names, or `nil` when they are equal.
  static func difference(_ fast: Node, _ slow: Node, path: String = "") -> String? {
    let here = "\(path)/\(slow.name)"
    if fast.name != slow.name { return "\(here): name \(fast.name) ≠ \(slow.name)" }
    if fast.line != slow.line { return "\(here): line \(fast.line) ≠ \(slow.line)" }
    if fast.attributes != slow.attributes { return "\(here): attributes \(fast.attributes) ≠ \(slow.attributes)" }
    if fast.children.count != slow.children.count {
      return "\(here): \(fast.children.count) children ≠ \(slow.children.count)"
    }
    for (fastChild, slowChild) in zip(fast.children, slow.children) {
      if let difference = difference(fastChild, slowChild, path: here) { return difference }
    }
    return nil
  }

  /// Expects the fast reader to accept `data` with the tree XMLParser makes.
  static func expectSame(_ data: Data, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let fast = try #require(fastTree(data), "the fast reader declined \(what)", sourceLocation: sourceLocation)
    let slow = try slowTree(data)
    let difference = difference(fast, slow)
    #expect(difference == nil, "\(what): \(difference ?? "")", sourceLocation: sourceLocation)
  }

  /// Every `contents` and `.xccurrentversion` file below `folder`.
  static func xcodeFiles(in folder: URL) -> [URL] {
    let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL }
    return (files ?? []).filter { ["contents", ".xccurrentversion"].contains($0.lastPathComponent) }
      .sorted { $0.path < $1.path }
  }

  static func expectSamePlist(_ data: Data, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    var state = XcodeModelLoader.CurrentVersionPlist.State()
    try #require(XcodeFastXML.read(data, into: &state), "the fast reader declined \(what)", sourceLocation: sourceLocation)
    let fast = state.result.map { NSDictionary(dictionary: $0) }
    let slow = XcodeModelLoader.CurrentVersionPlist.readWithXMLParser(data).map { NSDictionary(dictionary: $0) }
    #expect(fast == slow, "\(what)", sourceLocation: sourceLocation)
  }

  /// Compares the readers on `contents` and `.xccurrentversion` files.
  static func expectSameFiles(_ files: [URL], sourceLocation: SourceLocation = #_sourceLocation) throws {
    for file in files {
      let data = try Data(contentsOf: file)
      if file.lastPathComponent == "contents" {
        try expectSame(data, file.path, sourceLocation: sourceLocation)
      } else {
        try expectSamePlist(data, file.path, sourceLocation: sourceLocation)
      }
    }
  }

  @Test("every model in the shared fixtures reads as XMLParser reads it", .needsFixtures)
  func sharedFixtures() throws {
    let files = Self.xcodeFiles(in: try Fixtures.folder().deletingLastPathComponent())
    #expect(files.filter { $0.lastPathComponent == "contents" }.count >= 57)
    try Self.expectSameFiles(files)
  }

  @Test("every model in the repository reads as XMLParser reads it")
  func repositoryModels() throws {
    let files = ["Stages", "Tests", "Docs", "Tutorials"].flatMap {
      Self.xcodeFiles(in: TestFolders.repository.appendingPathComponent($0))
    }
    #expect(files.count >= 7)
    try Self.expectSameFiles(files)
  }

  static let accepted: [(String, String)] = [
    ("the declaration Xcode writes", #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><model type="x"/>"#),
    ("no declaration", #"<model a="1"><entity name="E"/></model>"#),
    ("a declaration in single quotes", "<?xml version='1.0' encoding='utf-8'?>\n<model/>"),
    ("a byte order mark", "\u{FEFF}<?xml version=\"1.0\"?>\n<model/>"),
    ("a doctype", "<?xml version=\"1.0\"?>\n<!DOCTYPE model PUBLIC \"-//Apple//DTD X 1.0//EN\" \"http://x/y.dtd\">\n<model/>"),
    ("a doctype with a system identifier", "<!DOCTYPE model SYSTEM 'm.dtd'>\n<model/>"),
    ("a bare doctype", "<!DOCTYPE model>\n<model/>"),
    (
      "the five named entities in attributes",
      #"<model a="&lt;&gt;&amp;&apos;&quot;" b='x &amp; y' c="&amp;amp;"/>"#
    ),
    ("character references", #"<model a="&#65;&#x42;&#xe9;&#233;&#x1F600;&#10;&#9;x"/>"#),
    ("character references in text", "<model>&#65;&#x42; &lt;&amp; x</model>"),
    ("attribute quoting", #"<model a='say "hi"' b="it's" c = "spaced"/>"#),
    ("non-ASCII attribute values and text", "<model name=\"Café ☕️ 𝄞\" b=\"名\">Grüße</model>"),
    ("a literal newline and tab in an attribute", "<model a=\"one\ntwo\tthree\"\n   b=\"x\"/>\n"),
    ("a start tag over several lines", "<model>\n<entity\n  name=\"A\"\n  x=\"y\"\n>\n<attribute\n name=\"a\"\n/>\n</entity>\n</model>"),
    ("comments everywhere", "<!-- a -->\n<model><!-- b\n c --><e/><!----></model>\n<!-- d -->\n"),
    ("CDATA", "<model><e><![CDATA[<not> & an \"element\" ]] ]>]]></e>\n<f/></model>"),
    ("text, '>' and white space", "<model>\n\t<e> a > b </e>\n</model>\n\n"),
    ("an end tag with space", "<model><e></e ></model >"),
    ("deep nesting", String(repeating: "<e>", count: 200) + String(repeating: "</e>", count: 200)),
  ]

  @Test("each construct the fast reader handles reads as XMLParser reads it")
  func craftedAccepted() throws {
    for (what, text) in Self.accepted {
      try Self.expectSame(Data(text.utf8), what)
    }
  }

  static let declined: [(String, String)] = [
    ("a processing instruction", "<?xml version=\"1.0\"?><?pi data?><model/>"),
    ("a processing instruction in content", "<model><?pi data?></model>"),
    ("a namespace declaration", #"<model xmlns="urn:x"/>"#),
    ("a prefixed name", #"<x:model xmlns:x="urn:x"/>"#),
    ("an attribute with a prefix", #"<model xml:lang="en"/>"#),
    ("an entity it does not know", "<model>&nbsp;</model>"),
    ("a non-ASCII name", "<model 名=\"x\"/>"),
    ("a carriage return", "<model>\r\n<e/>\r\n</model>"),
    ("a doctype with an internal subset", "<!DOCTYPE model [<!ENTITY e \"x\">]><model>&e;</model>"),
    ("a declaration in another encoding", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><model/>"),
    ("XML 1.1", "<?xml version=\"1.1\"?><model/>"),
    ("CDATA holding a processing instruction", "<model><![CDATA[<?x?>]]></model>"),
  ]

  static let malformed: [(String, String)] = [
    ("nothing", ""),
    ("white space only", "  \n"),
    ("an unclosed element", "<model><entity name=\"A\">"),
    ("a mismatched end tag", "<model><entity></attribute></model>"),
    ("a duplicated attribute", #"<model a="1" a="2"/>"#),
    ("an unquoted attribute", "<model a=1/>"),
    ("an attribute without a value", "<model a/>"),
    ("a '<' in an attribute", #"<model a="<"/>"#),
    ("attributes without space between", #"<model a="1"b="2"/>"#),
    ("text after the root", "<model/>x"),
    ("a second root", "<model/><model/>"),
    ("']]>' in text", "<model>]]></model>"),
    ("'--' in a comment", "<!-- a -- b --><model/>"),
    ("an unterminated comment", "<model/><!-- a"),
    ("a bare '&'", "<model>a & b</model>"),
    ("a reference to character 0", "<model a=\"&#0;\"/>"),
    ("a reference to a surrogate", "<model a=\"&#xD800;\"/>"),
    ("a reference without digits", "<model a=\"&#;\"/>"),
    ("a control character", "<model>\u{1}</model>"),
    ("an empty processing instruction", "<?xml?><model/>"),
    ("a merge conflict", "<model>\n<<<<<<< HEAD\n<e/>\n=======\n<f/>\n>>>>>>> branch\n</model>"),
    ("a truncated file", "<?xml version=\"1.0\"?>\n<model>\n<entity name=\"A\" attr"),
  ]

  @Test("what the fast reader does not handle is declined, and XMLParser reads it as before")
  func craftedDeclined() throws {
    for (what, text) in Self.declined {
      let data = Data(text.utf8)
      #expect(Self.fastTree(data) == nil, "\(what)")
      let viaParse = Result { try XcodeModelLoader.XMLTree.parse(data, source: .file(URL(fileURLWithPath: "/x/contents"))) }
      let viaXMLParser = Result { try Self.slowTree(data) }
      switch (viaParse, viaXMLParser) {
      case (.success(let tree), .success(let reference)):
        #expect(Self.difference(tree, reference) == nil, "\(what)")
      case (.failure(let error), .failure(let reference)):
        #expect("\(error)" == "\(reference)", "\(what)")
      default:
        Issue.record("\(what): parse and XMLParser disagree")
      }
    }
  }

  @Test("malformed XML is declined and still gets XMLParser's error, word for word")
  func craftedMalformed() throws {
    let file = URL(fileURLWithPath: "/x/contents")
    for (what, text) in Self.malformed {
      let data = Data(text.utf8)
      #expect(Self.fastTree(data) == nil, "\(what)")
      let error = try #require(expectCode(.modelInvalid) { _ = try XcodeModelLoader.XMLTree.parse(data, file: file) })
      let reference = try #require(expectCode(.modelInvalid) { _ = try Self.slowTree(data) })
      #expect(error.message == reference.message, "\(what)")
    }
    // Bytes that are not UTF-8: declined, and the old message.
    let bytes = Data([UInt8]("<model a=\"".utf8) + [0xC3, 0x28] + [UInt8]("\"/>".utf8))
    #expect(Self.fastTree(bytes) == nil)
    let error = try #require(expectCode(.modelInvalid) { _ = try XcodeModelLoader.XMLTree.parse(bytes, file: file) })
    #expect(error.message.contains("is not UTF-8 text: byte 10 (line 1)"))
  }

  @Test("a .xccurrentversion reads as XMLParser reads it; CDATA there is left to XMLParser")
  func currentVersion() throws {
    let plist = """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0">
      <dict>
      \t<key>_XCCurrentVersionName</key>
      \t<string>Notes &amp; Tags &#50;<!-- c -->.xcdatamodel</string>
      \t<key>list</key>
      \t<array><string> a </string><string>   </string><string></string></array>
      \t<key>other</key><integer>1</integer>
      </dict>
      </plist>
      """
    try Self.expectSamePlist(Data(plist.utf8), "a plist with entities, comments, a list and another type")
    let xcodeShape = Data(plist.replacingOccurrences(of: "<key>other</key><integer>1</integer>", with: "").utf8)
    try Self.expectSamePlist(xcodeShape, "Xcode's shape")
    let read = XcodeModelLoader.CurrentVersionPlist.read(xcodeShape)
    #expect(read?["_XCCurrentVersionName"] as? String == "Notes & Tags 2.xcdatamodel")
    var state = XcodeModelLoader.CurrentVersionPlist.State()
    #expect(!XcodeFastXML.read(Data("<plist><dict><key><![CDATA[a]]></key></dict></plist>".utf8), into: &state))
  }

  @Test("the model reader's trimming without NSString gives what trimmingCharacters gives")
  func trimming() {
    let texts = [
      "", " ", "1", " 1", "1 ", "\t5\n", "a b", "abc", "\u{A0}1", "1\u{2003}", "\u{85}x", "x\u{85}", "é", "5\u{301}", "~!", "\r\n7\r\n",
    ]
    for text in texts {
      for set in [CharacterSet.whitespaces, .whitespacesAndNewlines] {
        #expect(XcodeModelLoader.ModelReader.trimmed(text, set) == text.trimmingCharacters(in: set), "\(text.debugDescription)")
      }
    }
  }
}
