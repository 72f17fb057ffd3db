import Foundation

/// A format specifier such as `%@`, `%K`, `%ld` or `%2$@`.
struct PredicateFormatSpecifier: Equatable {
  /// What the specifier substitutes.
  enum Conversion: Equatable {
    /// `%@`: any object.
    case object
    /// `%K`: a key path.
    case keyPath
    /// `%d %i %u %x %o` with any length modifier.
    case integer
    /// `%f %e %g` with any length modifier.
    case double
    /// `%s`: a C string (a `String` argument here).
    case cString
  }

  var conversion: Conversion
  /// The explicit 1-based argument position of `%N$…`, if given.
  var position: Int?
}
