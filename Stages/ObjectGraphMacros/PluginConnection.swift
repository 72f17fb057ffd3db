import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The compiler's end of the pipe: messages framed by an 8-byte little-endian length, JSON inside.
struct PluginConnection {
  /// The next message, or `nil` when the compiler closed the pipe (or sent something that is not a message).
  func receive() -> [String: Any]? {
    guard let header = read(count: 8) else { return nil }
    let length = header.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    guard length < 1 << 31, let payload = read(count: Int(length)) else { return nil }
    return (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any]
  }

  /// Writes one message (a JSON object).
  func send(_ message: [String: Any]) {
    guard let payload = try? JSONSerialization.data(withJSONObject: message) else { return }
    var bytes = (0..<8).map { UInt8(truncatingIfNeeded: UInt64(payload.count) >> (8 * UInt64($0))) }
    bytes.append(contentsOf: payload)
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes { buffer in
        write(1, buffer.baseAddress.map { $0 + written }, bytes.count - written)
      }
      if count <= 0 { return }
      written += count
    }
  }

  private func read(count: Int) -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
      let got = buffer.withUnsafeMutableBytes { raw in
        #if canImport(Glibc)
          Glibc.read(0, raw.baseAddress.map { $0 + done }, count - done)
        #else
          Darwin.read(0, raw.baseAddress.map { $0 + done }, count - done)
        #endif
      }
      if got <= 0 { return nil }
      done += got
    }
    return buffer
  }
}
