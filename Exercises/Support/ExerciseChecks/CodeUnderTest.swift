import ExerciseKit
import Foundation

/// Which code the checks run against: the starters you edit, or the reference solutions.
///
/// Every exercise has one set of checks. They call your code in `Exercises/NN-name/Sources`, or, when
/// the environment variable `WORKSHOP_SOLUTIONS` is `1`, the reference solution in
/// `Exercises/Support/Proofs/Solutions/NN-name`. CI runs both ways to prove the checks are real.
public enum CodeUnderTest {
  /// Whether the reference solutions are under test (`WORKSHOP_SOLUTIONS=1`).
  public static let usesSolutions = ProcessInfo.processInfo.environment["WORKSHOP_SOLUTIONS"] == "1"

  /// Picks the starter's function or the solution's, by ``usesSolutions``.
  public static func pick<Function>(starter: Function, solution: Function) -> Function {
    usesSolutions ? solution : starter
  }
}

/// Runs `body` and returns the error it throws, or `nil` when it returns normally.
///
/// An ``ExerciseNotDone`` is not returned but thrown on, so a check that expects an error reports
/// "not done yet" rather than complaining about the error's wording.
public func errorThrown(by body: () throws -> Void) throws -> (any Error)? {
  do {
    try body()
    return nil
  } catch let notDone as ExerciseNotDone {
    throw notDone
  } catch {
    return error
  }
}

/// What a check says when the code under test stopped the whole process instead of throwing: the lines
/// the process wrote to standard error (where `fatalError` and `preconditionFailure` print), without the
/// stack trace that follows them, and without lines that are not text (libdispatch, stopping a process on
/// the spot for a `DispatchQueue.main.sync` called on the main queue, leaves such bytes there).
public func stopReport(standardError: [UInt8]) -> String {
  let text = String(decoding: standardError, as: UTF8.self)
  let beforeTrace = text.components(separatedBy: "Current stack trace:").first ?? text
  let printed = beforeTrace.split(separator: "\n", omittingEmptySubsequences: true)
  let lines = printed.filter { line in
    !line.unicodeScalars.contains { $0 == "\u{FFFD}" || ($0.value < 0x20 && $0 != "\t") }
  }
  guard !printed.isEmpty else { return "The process stopped without printing anything (abort()?)." }
  guard !lines.isEmpty else {
    return """
      The process stopped without printing a readable message. Stopped on the spot like that, it is often \
      libdispatch refusing a DispatchQueue.main.sync called on the main queue (it would wait for itself \
      forever).
      """
  }
  return "Before it stopped, the process printed:\n" + lines.suffix(8).joined(separator: "\n")
}

/// Throws `error` on when it is an ``ExerciseNotDone``, so the check reports "not done yet" as it is.
public func rethrowIfNotDone(_ error: any Error) throws {
  if let notDone = error as? ExerciseNotDone { throw notDone }
}

/// `error` as a sentence to go on with: its description, ending with one full stop (ObjectGraph's messages
/// end with one already; a check that adds its own would print "store.. Move").
public func sentence(_ error: any Error) -> String {
  let text = "\(error)".trimmingCharacters(in: .whitespacesAndNewlines)
  return text.hasSuffix(".") || text.hasSuffix("?") || text.hasSuffix("!") ? text : text + "."
}
