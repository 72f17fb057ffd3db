import Foundation
import Testing

@testable import ObjectGraph

/// `.xccurrentversion` is read without `PropertyListSerialization` when it has the shape Xcode writes, and
/// with it otherwise: the two must agree.
@Suite("Reading .xccurrentversion")
struct CurrentVersionPlistTests {
  static let xcode = Data(
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
    \t<key>_XCCurrentVersionName</key>
    \t<string>Notes &amp; Tags 2.xcdatamodel</string>
    </dict>
    </plist>
    """.utf8)

  @Test("the file Xcode writes is read as PropertyListSerialization reads it")
  func xcodeShape() throws {
    let fast = try #require(XcodeModelLoader.CurrentVersionPlist.read(Self.xcode))
    let reference = try #require(try PropertyListSerialization.propertyList(from: Self.xcode, format: nil) as? [String: Any])
    #expect(fast["_XCCurrentVersionName"] as? String == "Notes & Tags 2.xcdatamodel")
    #expect(fast["_XCCurrentVersionName"] as? String == reference["_XCCurrentVersionName"] as? String)
  }

  @Test("a list of names is read as a list (the loader then refuses it, naming both)")
  func list() throws {
    let data = Data(
      "<plist version=\"1.0\"><dict><key>_XCCurrentVersionName</key><array><string>A.xcdatamodel</string><string>B.xcdatamodel</string></array></dict></plist>"
        .utf8)
    #expect(XcodeModelLoader.CurrentVersionPlist.read(data)?["_XCCurrentVersionName"] as? [String] == ["A.xcdatamodel", "B.xcdatamodel"])
  }

  @Test("a binary property list, another value type or broken XML is left to PropertyListSerialization")
  func fallsBack() throws {
    let binary = try PropertyListSerialization.data(
      fromPropertyList: ["_XCCurrentVersionName": "A.xcdatamodel"], format: .binary, options: 0)
    #expect(XcodeModelLoader.CurrentVersionPlist.read(binary) == nil)
    let integer = Data("<plist><dict><key>_XCCurrentVersionName</key><integer>2</integer></dict></plist>".utf8)
    #expect(XcodeModelLoader.CurrentVersionPlist.read(integer) == nil)
    #expect(XcodeModelLoader.CurrentVersionPlist.read(Data("<plist><dict><key>".utf8)) == nil)
  }

  @Test("a file with a byte that is not UTF-8 is left to PropertyListSerialization, not to XMLParser, which crashes on it")
  func notUTF8() throws {
    let bytes = [UInt8]("<plist><dict><".utf8) + [0xFF] + [UInt8]("key>_XCCurrentVersionName</key><string>A</string></dict></plist>".utf8)
    #expect(XcodeModelLoader.CurrentVersionPlist.read(Data(bytes)) == nil)
    #expect(XcodeModelLoader.CurrentVersionPlist.read(Data("<?xml?><plist><dict></dict></plist>".utf8)) == nil)
  }
}
