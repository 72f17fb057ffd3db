import Foundation

/// Core Data's `NSCompoundPredicate` is a kind of `NSPredicate`; here both are ``FetchPredicate``, so code
/// that builds `CompoundPredicate(andPredicateWithSubpredicates:)` ports unchanged.
public typealias CompoundPredicate = FetchPredicate
