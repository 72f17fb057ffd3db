/// The error an untouched starter throws: it says which exercise is not done and where its task is.
///
/// Every starter function begins as
///
/// ```swift
/// throw ExerciseNotDone("01-model-not-found")
/// ```
///
/// Delete that line and write your code. Until you do, the exercise's checks fail with:
/// "Exercise 01-model-not-found is not done yet: read Exercises/01-model-not-found/README.md".
public struct ExerciseNotDone: Error, Sendable, CustomStringConvertible {
  /// The exercise's folder name, for example `01-model-not-found`.
  public let exercise: String

  /// Makes the error for the exercise in folder `Exercises/<exercise>`.
  public init(_ exercise: String) {
    self.exercise = exercise
  }

  public var description: String {
    "Exercise \(exercise) is not done yet: read Exercises/\(exercise)/README.md, "
      + "then delete the line `throw ExerciseNotDone(...)` in Exercises/\(exercise)/Sources and write your code"
      + " (in exercises that start from working code, deleting it is the first step)."
  }
}
