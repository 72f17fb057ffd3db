/// Stops the program for a programmer error: a misuse that Core Data answers with an Objective-C exception
/// (an unknown key, an entity the model lacks, an index out of range, changing a model in use), which Swift
/// code cannot catch either. `message` names what was misused and what to do.
///
/// `fatalError` rather than `preconditionFailure`: an optimised build drops a precondition's message and
/// stops with "Illegal instruction" alone, and the message is the point (release builds of the demos and of
/// an app hit the same misuse).
@usableFromInline
func programmerError(_ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) -> Never {
  fatalError(message(), file: file, line: line)
}

/// Stops the program with `message` (``programmerError(_:file:line:)``) unless `condition` holds.
@inline(__always)
func requireCorrectUse(
  _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line
) {
  if !condition() { programmerError(message(), file: file, line: line) }
}
