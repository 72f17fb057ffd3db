import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#else
  import Darwin
#endif

/// A small HTTP server for the rendered site, on the loopback address only: `GET` and `HEAD` of the
/// files under the site folder (a folder's `index.html` for a page's path, as DocC lays a static site
/// out), and of the repository's files under `/repository/`, which the chapters link to. Hidden files
/// and folders (`.git`, `.build`, `.workshop`) are not served, nor anything outside the two folders.
final class StaticServer: Sendable {
  let site: URL
  let repository: URL
  private let listener: Int32
  private let stopped = Atomic<Bool>(false)
  /// The port the server listens on (the one asked for, or the system's choice for 0).
  let port: UInt16

  /// Opens the listening socket on 127.0.0.1:`port`; 0 lets the system choose a free port.
  init(site: URL, repository: URL, port: UInt16) throws(SiteError) {
    self.site = site.standardizedFileURL
    self.repository = repository.standardizedFileURL
    #if canImport(Glibc)
      let stream = Int32(SOCK_STREAM.rawValue)
    #else
      let stream = SOCK_STREAM
    #endif
    let listener = socket(AF_INET, stream, 0)
    guard listener >= 0 else { throw SiteError("127.0.0.1:\(port)", "cannot open a socket: \(Self.lastError())") }
    var yes: Int32 = 1
    _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let bound = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(listener, 64) == 0 else {
      let reason = Self.lastError()
      close(listener)
      throw SiteError(
        "127.0.0.1:\(port)", "cannot listen on this port (\(reason)); choose another with --port, or 0 for any free port")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    self.listener = listener
    self.port = UInt16(bigEndian: address.sin_port)
  }

  deinit { close(listener) }

  /// Answers requests, each on a thread of its own from Dispatch, until ``stop()`` is called.
  func serve() {
    while !stopped.load(ordering: .acquiring) {
      let client = accept(listener, nil, nil)
      guard client >= 0 else {
        if errno == EINTR || errno == ECONNABORTED { continue }
        return  // the listener was shut down, or cannot accept any more
      }
      DispatchQueue.global().async { self.answer(client) }
    }
  }

  /// Stops ``serve()``: no new connection is accepted (those being answered finish).
  func stop() {
    stopped.store(true, ordering: .releasing)
    _ = shutdown(listener, Int32(SHUT_RDWR))
  }

  // MARK: - One request

  private func answer(_ client: Int32) {
    defer { close(client) }
    guard let request = readRequest(client) else { return }
    let words = request.split(separator: " ", maxSplits: 2)
    guard words.count >= 2 else {
      return respond(client, status: "400 Bad Request", type: "text/plain", body: Data("Bad request\n".utf8), head: false)
    }
    let method = String(words[0])
    guard method == "GET" || method == "HEAD" else {
      return respond(client, status: "405 Method Not Allowed", type: "text/plain", body: Data("GET or HEAD only\n".utf8), head: false)
    }
    let head = method == "HEAD"
    let target = String(words[1].prefix { $0 != "?" && $0 != "#" })
    guard let path = target.removingPercentEncoding, let file = resolve(path) else {
      return respond(
        client, status: "404 Not Found", type: "text/plain; charset=utf-8", body: Data("Not found: \(target)\n".utf8), head: head)
    }
    if file.isDirectory {
      return respond(
        client, status: "200 OK", type: "text/html; charset=utf-8", body: Data(listing(of: file.url, path: path).utf8), head: head)
    }
    guard let body = FileManager.default.contents(atPath: file.url.path) else {
      return respond(
        client, status: "404 Not Found", type: "text/plain; charset=utf-8", body: Data("Not found: \(target)\n".utf8), head: head)
    }
    respond(client, status: "200 OK", type: Self.contentType(of: file.url), body: body, head: head)
  }

  /// The file (or, under `/repository/`, the folder) a path names; `nil` when there is none to serve.
  func resolve(_ path: String) -> (url: URL, isDirectory: Bool)? {
    let components = path.split(separator: "/").map(String.init)
    // A hidden name, and "..", begin with a dot.
    guard !components.contains(where: { $0.hasPrefix(".") }) else { return nil }
    let inRepository = components.first == "repository"
    let base = inRepository ? repository : site
    var url = base
    for component in inRepository ? Array(components.dropFirst()) : components { url.appendPathComponent(component) }
    url = url.standardizedFileURL
    guard url.path == base.path || url.path.hasPrefix(base.path + "/") else { return nil }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return nil }
    guard isDirectory.boolValue else { return (url, false) }
    let index = url.appendingPathComponent("index.html")
    if FileManager.default.fileExists(atPath: index.path) { return (index, false) }
    return inRepository ? (url, true) : nil
  }

  private func listing(of folder: URL, path: String) -> String {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    let base = path.hasSuffix("/") ? path : path + "/"
    let items = names.map { name in
      var isDirectory: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isDirectory)
      let shown = Self.escapeHTML(name) + (isDirectory.boolValue ? "/" : "")
      let link = (base + name).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? base + name
      return "<li><a href=\"\(link)\">\(shown)</a></li>"
    }
    let title = Self.escapeHTML(path)
    return "<!doctype html><html><head><meta charset=\"utf-8\"><title>\(title)</title></head><body><h1>\(title)</h1><ul>\n"
      + items.joined(separator: "\n") + "\n</ul></body></html>\n"
  }

  private func readRequest(_ client: Int32) -> String? {
    var received = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while received.count < 16_384 {
      let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { break }
      received.append(contentsOf: buffer[..<count])
      if received.range(of: Data("\r\n\r\n".utf8)) != nil { break }
    }
    guard let text = String(data: received, encoding: .utf8), let line = text.components(separatedBy: "\r\n").first, !line.isEmpty
    else { return nil }
    return line
  }

  private func respond(_ client: Int32, status: String, type: String, body: Data, head: Bool) {
    let header =
      "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n"
    var bytes = Data(header.utf8)
    if !head { bytes.append(body) }
    #if canImport(Darwin)
      let flags: Int32 = 0
    #else
      let flags = Int32(MSG_NOSIGNAL)
    #endif
    bytes.withUnsafeBytes { raw in
      guard let start = raw.baseAddress else { return }
      var offset = 0
      while offset < raw.count {
        let sent = send(client, start + offset, raw.count - offset, flags)
        if sent <= 0 { return }
        offset += sent
      }
    }
  }

  static func contentType(of url: URL) -> String {
    switch url.pathExtension.lowercased() {
    case "html": "text/html; charset=utf-8"
    case "js", "mjs": "text/javascript; charset=utf-8"
    case "css": "text/css; charset=utf-8"
    case "json": "application/json"
    case "svg": "image/svg+xml"
    case "png": "image/png"
    case "jpg", "jpeg": "image/jpeg"
    case "gif": "image/gif"
    case "ico": "image/x-icon"
    case "woff2": "font/woff2"
    case "woff": "font/woff"
    case "mp4": "video/mp4"
    default: "text/plain; charset=utf-8"
    }
  }

  private static func escapeHTML(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(
      of: ">", with: "&gt;"
    )
    .replacingOccurrences(of: "\"", with: "&quot;")
  }

  private static func lastError() -> String { String(cString: strerror(errno)) }
}
