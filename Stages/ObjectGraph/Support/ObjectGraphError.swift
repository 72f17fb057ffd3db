import Foundation

/// The error ObjectGraph throws: an `NSError` in `NSCocoaErrorDomain` with Core Data's code and `userInfo`,
/// so code written for Core Data catches it as it does on an iPhone.
///
/// ```swift
/// do {
///   try context.save()
/// } catch let error as NSError where error.code == NSValidationMissingMandatoryPropertyError {
///   print(error.localizedDescription)  // names the entity and the property that is missing
///   print(error.userInfo[NSValidationKeyErrorKey] ?? "")
/// }
/// ```
///
/// Apple's other forms work too: `catch let error as CocoaError where error.code == .managedObjectMerge`,
/// `error.userInfo[NSDetailedErrorsKey] as? [NSError]`, `error.userInfo["conflictList"] as? [NSMergeConflict]`.
/// The engine's message, which says what happened, to which entity, object or file, and what to do, is the
/// error's `localizedDescription` and `localizedFailureReason`.
///
/// The class is the engine's: apps catch `NSError` (or `CocoaError`) and need not name it. Its initializer is
/// internal; only the engine makes these.
///
/// A few failures have no Core Data error (Core Data raises an Objective-C exception for them, which Swift
/// cannot catch): a malformed model, a predicate that does not parse, a key an entity does not have, no object
/// for an ID, a feature the engine does not run, a missing store, a value of the wrong type. The engine throws
/// those in its own domain, ``engineErrorDomain``, with codes from 900001 named as Core Data names its own
/// (``ObjectGraphUnknownKeyError``, ``ObjectGraphModelInvalidError``, …), never in `NSCocoaErrorDomain`.
///
/// Sendable: `NSError` is `@unchecked Sendable` in Foundation, and this subclass adds only `let`s (the message,
/// the detailed errors, which are errors of this class, and the cause). Its `userInfo` may hold managed objects
/// (the object that failed to validate, the objects of a conflict): as with Core Data's own errors, read those
/// on the queue of the context that threw.
public final class ObjectGraphError: NSError, @unchecked Sendable {
  /// Core Data's codes: Foundation's `CocoaError.Code`, which ObjectGraph extends with Core Data's names
  /// (`.validationMissingMandatoryProperty`, `.managedObjectMerge`, …) as Apple's CoreData overlay does.
  public typealias Code = CocoaError.Code

  /// The domain of the few errors Core Data reports as exceptions rather than errors (codes 900001 to
  /// 900007: see the type's discussion).
  public static let engineErrorDomain = "ObjectGraphErrorDomain"

  /// What happened and what to do, in plain words (the same text as `localizedDescription`).
  public let message: String
  /// For 1560 (several validation errors at once): the individual errors, also under `NSDetailedErrorsKey`.
  let detailedErrors: [ObjectGraphError]
  /// The cause as the engine got it (GRDB's `DatabaseError`, a `POSIXError`, a transformer's error); it is under
  /// `NSUnderlyingErrorKey` as an `NSError` (a SQLite failure in `NSSQLiteErrorDomain` with SQLite's code).
  let underlyingError: (any Error)?

  /// Makes an error in `NSCocoaErrorDomain` (or ``engineErrorDomain`` for an engine-only code) with `message` as
  /// its `localizedDescription` and `localizedFailureReason`.
  ///
  /// - Parameters:
  ///   - code: Core Data's code (or an engine-only one).
  ///   - message: what happened and what to do.
  ///   - url: the file concerned, if any: `NSURLErrorKey`, and `NSFilePathErrorKey` for a file URL.
  ///   - detailedErrors: the individual errors of a 1560 error: `NSDetailedErrorsKey`.
  ///   - underlyingError: the cause, when it comes from outside the engine: `NSUnderlyingErrorKey`.
  ///   - sqliteResultCode: SQLite's extended result code, when SQLite refused the operation: `NSSQLiteErrorDomain`,
  ///     and the underlying error in that domain.
  ///   - userInfo: Core Data's other keys (`NSValidationObjectErrorKey`, `NSPersistentStoreSaveConflictsErrorKey`, …).
  convenience init(
    _ code: Code, _ message: String, url: URL? = nil, detailedErrors: [ObjectGraphError] = [],
    underlyingError: (any Error)? = nil, sqliteResultCode: Int32? = nil, userInfo extra: [String: Any] = [:]
  ) {
    var info = extra
    info[NSLocalizedDescriptionKey] = message
    info[NSLocalizedFailureReasonErrorKey] = message
    if !detailedErrors.isEmpty { info[NSDetailedErrorsKey] = detailedErrors as [NSError] }
    if let url {
      info[NSURLErrorKey] = url
      if url.isFileURL { info[NSFilePathErrorKey] = url.path }
    }
    if let sqliteResultCode {
      // Core Data puts SQLite's code under the domain's name, and the failure itself as the underlying error.
      info[NSSQLiteErrorDomain] = Int(sqliteResultCode)
      info[NSUnderlyingErrorKey] = NSError(
        domain: NSSQLiteErrorDomain, code: Int(sqliteResultCode),
        userInfo: underlyingError.map { [NSLocalizedDescriptionKey: "\($0)"] } ?? [:])
    } else if let underlyingError {
      info[NSUnderlyingErrorKey] = underlyingError as NSError
    }
    self.init(
      domain: code.rawValue >= 900_000 ? Self.engineErrorDomain : NSCocoaErrorDomain, code: code.rawValue, message: message,
      detailedErrors: detailedErrors, underlyingError: underlyingError, userInfo: info)
  }

  private init(
    domain: String, code: Int, message: String, detailedErrors: [ObjectGraphError], underlyingError: (any Error)?,
    userInfo: [String: Any]
  ) {
    self.message = message
    self.detailedErrors = detailedErrors
    self.underlyingError = underlyingError
    super.init(domain: domain, code: code, userInfo: userInfo)
  }

  /// Not supported: the engine's errors are not archived.
  public required init?(coder: NSCoder) { nil }

  /// What `print(error)` shows: NSError's own shape, as an iPhone prints it, with the message once, the other
  /// `userInfo` entries, and each detailed error on a line of its own.
  public override var description: String {
    let shown = userInfo.filter {
      $0.key != NSLocalizedDescriptionKey && $0.key != NSLocalizedFailureReasonErrorKey && $0.key != NSDetailedErrorsKey
        && $0.key != NSUnderlyingErrorKey
    }
    var text = "Error Domain=\(domain) Code=\(code) \"\(message)\""
    if !shown.isEmpty {
      text += " UserInfo={" + shown.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + "}"
    }
    for detail in detailedErrors {
      text += "\n  - " + detail.description.replacingOccurrences(of: "\n", with: "\n    ")
    }
    return text
  }

  /// The file concerned, when there is one (`NSURLErrorKey`).
  var url: URL? { userInfo[NSURLErrorKey] as? URL }

  /// SQLite's extended result code, when SQLite refused the operation (`userInfo[NSSQLiteErrorDomain]`).
  var sqliteResultCode: Int32? { (userInfo[NSSQLiteErrorDomain] as? Int).map { Int32(truncatingIfNeeded: $0) } }

  /// SQLite's primary result code (the low 8 bits of ``sqliteResultCode``), e.g. 5 for `SQLITE_BUSY`.
  var sqlitePrimaryResultCode: Int32? { sqliteResultCode.map { $0 & 0xFF } }

  /// The same error with other `userInfo` entries (a context puts its objects in place of the IDs a store
  /// reports).
  func replacingUserInfo(_ entries: [String: Any]) -> ObjectGraphError {
    ObjectGraphError(
      domain: domain, code: code, message: message, detailedErrors: detailedErrors, underlyingError: underlyingError,
      userInfo: userInfo.merging(entries) { $1 })
  }
}

// The codes of the failures Core Data reports as exceptions, in Core Data's style (`error.code ==
// ObjectGraphUnknownKeyError`); their domain is `ObjectGraphError.engineErrorDomain`.

/// Engine error 900001 (in ``ObjectGraphError/engineErrorDomain``, engine only): the model is malformed or inconsistent (Core Data raises an exception).
public var ObjectGraphModelInvalidError: Int { 900_001 }
/// Engine error 900002 (in ``ObjectGraphError/engineErrorDomain``, engine only): a predicate format string could not be parsed (Core Data raises an exception).
public var ObjectGraphPredicateSyntaxError: Int { 900_002 }
/// Engine error 900003 (in ``ObjectGraphError/engineErrorDomain``, engine only): a key or key path names no property of the entity (Core Data raises an exception).
public var ObjectGraphUnknownKeyError: Int { 900_003 }
/// Engine error 900004 (in ``ObjectGraphError/engineErrorDomain``, engine only): no object exists for an object ID.
public var ObjectGraphObjectNotFoundError: Int { 900_004 }
/// Engine error 900005 (in ``ObjectGraphError/engineErrorDomain``, engine only): a model feature that loads but is not supported at run time was used.
public var ObjectGraphUnsupportedFeatureError: Int { 900_005 }
/// Engine error 900006 (in ``ObjectGraphError/engineErrorDomain``, engine only): the operation needs a coordinator or store that is not there.
public var ObjectGraphNoPersistentStoreError: Int { 900_006 }
/// Engine error 900007 (in ``ObjectGraphError/engineErrorDomain``, engine only): a value of the wrong type was given for a property or argument (Core Data raises an exception).
public var ObjectGraphInvalidValueError: Int { 900_007 }

/// `error.code == .managedObjectMerge`, where `error.code` is NSError's `Int` (the engine and its tests; apps
/// compare with Core Data's constants, `error.code == NSManagedObjectMergeError`).
func == (lhs: Int, rhs: CocoaError.Code) -> Bool { lhs == rhs.rawValue }

/// `error.code != .managedObjectMerge` (see `==`).
func != (lhs: Int, rhs: CocoaError.Code) -> Bool { lhs != rhs.rawValue }

extension CocoaError.Code {
  /// `switch error.code { case .managedObjectMerge: … }` on NSError's `Int` code, in the engine.
  static func ~= (pattern: CocoaError.Code, value: Int) -> Bool { pattern.rawValue == value }

  /// 900001 (engine only, ``ObjectGraphError/engineErrorDomain``): the model is malformed or inconsistent.
  static var modelInvalid: CocoaError.Code { .init(rawValue: ObjectGraphModelInvalidError) }
  /// 900002 (engine only): a predicate format string could not be parsed.
  static var predicateSyntax: CocoaError.Code { .init(rawValue: ObjectGraphPredicateSyntaxError) }
  /// 900003 (engine only): a key or key path names no property of the entity.
  static var unknownKey: CocoaError.Code { .init(rawValue: ObjectGraphUnknownKeyError) }
  /// 900004 (engine only): no object exists for an object ID.
  static var objectNotFound: CocoaError.Code { .init(rawValue: ObjectGraphObjectNotFoundError) }
  /// 900005 (engine only): a model feature that loads but is not supported at run time was used.
  static var unsupportedFeature: CocoaError.Code { .init(rawValue: ObjectGraphUnsupportedFeatureError) }
  /// 900006 (engine only): the operation needs a coordinator or store that is not there.
  static var noPersistentStore: CocoaError.Code { .init(rawValue: ObjectGraphNoPersistentStoreError) }
  /// 900007 (engine only): a value of the wrong type was given for a property or argument.
  static var invalidValue: CocoaError.Code { .init(rawValue: ObjectGraphInvalidValueError) }
}

/// `error?.code == .managedObjectMerge` (see `==`).
func == (lhs: Int?, rhs: CocoaError.Code) -> Bool { lhs == rhs.rawValue }

/// `error?.code != .managedObjectMerge` (see `==`).
func != (lhs: Int?, rhs: CocoaError.Code) -> Bool { lhs != rhs.rawValue }
