internal import GRDB

extension StatementArguments {
  /// Arguments holding `values` in order.
  ///
  /// GRDB's `StatementArguments(_:)` for a sequence of values of one type maps them with a key path that,
  /// in its unspecialised generic code, is made anew at every call: a tenth of a small fetch's time. This
  /// goes through its initializer for optional values instead, which maps them with a closure.
  init<Value: DatabaseValueConvertible>(values: some Collection<Value>) {
    self.init(values.lazy.map { $0 as (any DatabaseValueConvertible)? })
  }
}
