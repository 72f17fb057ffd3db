import Foundation

/// SQL debugging: Core Data's `-com.apple.CoreData.SQLDebug 1`, for ObjectGraph.
///
/// Turn it on with `OBJECTGRAPH_SQL_DEBUG=1` (or the launch argument `-com.apple.CoreData.SQLDebug 1`, or
/// ``isEnabled`` in code): every SQL statement a store runs is logged with its time, to standard error by
/// default or to ``logHandler``.
///
/// ```
/// ObjectGraph SQL: SELECT t0.Z_PK, t0.Z_ENT, t0.Z_OPT, t0.ZTITLE FROM ZNOTE t0 WHERE t0.ZTITLE = ? (0.112 ms)
/// ```
public enum SQLDebug {
  private struct Configuration {
    var isEnabled: Bool
    var handler: (@Sendable (String) -> Void)?
  }

  private static let configuration = Locked(
    Configuration(
      isEnabled: ConcurrencyDebug.readSwitch(environment: "OBJECTGRAPH_SQL_DEBUG", argument: "-com.apple.CoreData.SQLDebug"),
      handler: nil))

  /// Whether statements are logged. Read from the environment at start; may be set in code. Stores opened
  /// while it is off do not log.
  public static var isEnabled: Bool {
    get { configuration.withLock { $0.isEnabled } }
    set { configuration.withLock { $0.isEnabled = newValue } }
  }

  /// Where log lines go; standard error when `nil`.
  public static var logHandler: (@Sendable (String) -> Void)? {
    get { configuration.withLock { $0.handler } }
    set { configuration.withLock { $0.handler = newValue } }
  }

  static func log(sql: String, duration: TimeInterval) {
    // SQLite's profile clock often counts whole milliseconds: say "<1 ms" rather than a false 0.000.
    let time = duration < 0.001 ? "<1 ms" : String(format: "%.0f ms", duration * 1000)
    DebugBanner.announceSQLLog()
    write(line: "ObjectGraph SQL: \(sql) (\(time))")
  }

  /// Sends one line to the ``logHandler``, or to standard error.
  static func write(line: String) {
    if let handler = logHandler {
      handler(line)
    } else {
      FileHandle.standardError.write(Data((line + "\n").utf8))
    }
  }
}
