import Foundation

/// The compiler plugin that expands ``ObjectGraphManaged`` (declared in the engine, `Object/ManagedProperty.swift`).
///
/// A macro plugin is a program the compiler starts and talks to over standard input and output: each message is
/// an 8-byte little-endian length followed by that many bytes of JSON (the protocol of swift-syntax's
/// `SwiftCompilerPluginMessageHandling`, version 7). This plugin speaks it directly instead of linking
/// swift-syntax, which would add minutes to every first build (and many more to a release build) for a macro
/// whose input is one declaration line: ``ManagedDeclaration`` reads what it needs from the line's text.
@main
enum ObjectGraphMacros {
  static func main() {
    let connection = PluginConnection()
    while let message = connection.receive() {
      connection.send(reply(to: message))
    }
  }

  /// The answer to one message from the compiler.
  static func reply(to message: [String: Any]) -> [String: Any] {
    if message["getCapability"] != nil {
      return ["getCapabilityResult": ["capability": ["protocolVersion": 7]]]
    }
    if let request = message["expandAttachedMacro"] as? [String: Any] {
      let expansion = ManagedMacro.expand(request)
      return [
        "expandMacroResult": [
          "expandedSource": expansion.source.map { $0 as Any } ?? NSNull(),
          "diagnostics": expansion.diagnostics,
        ]
      ]
    }
    if message["loadPluginLibrary"] != nil {
      return ["loadPluginLibraryResult": ["loaded": false, "diagnostics": [] as [Any]]]
    }
    // A freestanding expansion or a message of a later protocol: this plugin has no such macro.
    return ["expandMacroResult": ["expandedSource": NSNull(), "diagnostics": [] as [Any]]]
  }
}
