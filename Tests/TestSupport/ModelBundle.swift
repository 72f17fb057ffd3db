import Foundation
import Testing

/// Makes a bundle in `folder` holding `<name>.xcdatamodeld` with the given versions (name and `contents`
/// XML), the last one current.
public func makeModelBundle(in folder: URL, name: String, versions: [(name: String, contents: String)]) throws -> Bundle {
  let model = folder.appendingPathComponent("\(name).xcdatamodeld", isDirectory: true)
  for version in versions {
    let versionFolder = model.appendingPathComponent("\(version.name).xcdatamodel", isDirectory: true)
    try FileManager.default.createDirectory(at: versionFolder, withIntermediateDirectories: true)
    try Data(version.contents.utf8).write(to: versionFolder.appendingPathComponent("contents"))
  }
  let current = try #require(versions.last).name
  let plist = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>\(current).xcdatamodel</string></dict></plist>
    """
  try Data(plist.utf8).write(to: model.appendingPathComponent(".xccurrentversion"))
  return try #require(Bundle(url: folder))
}
