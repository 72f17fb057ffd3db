/// Independent pieces of one test run at once: trials that each have their own child process and files,
/// demos that each have their own store.
public enum Lanes {
  /// Calls `body` for each of `items`, at most `lanes` calls at once, and returns the results in the items'
  /// order. The first error thrown is rethrown once the calls already started have ended.
  public static func map<Item: Sendable, Value: Sendable>(
    _ items: [Item], lanes: Int, _ body: @escaping @Sendable (Item) async throws -> Value
  ) async throws -> [Value] {
    precondition(lanes > 0, "at least one lane")
    return try await withThrowingTaskGroup(of: (Int, Value).self) { group in
      var results = [Value?](repeating: nil, count: items.count)
      for (index, item) in items.enumerated() {
        if index >= lanes, let (done, value) = try await group.next() { results[done] = value }
        group.addTask { (index, try await body(item)) }
      }
      for try await (done, value) in group { results[done] = value }
      return results.compactMap { $0 }
    }
  }
}
