import Foundation

/// The one error type ObjectGraph throws.
///
/// Its ``code`` carries Core Data's own number wherever Core Data has one, so searching the number finds
/// the Core Data meaning; its ``description`` says what happened, to which entity, object or file, and
/// what to do about it.
///
/// ```swift
/// do {
///   try context.save()
/// } catch let error as ObjectGraphError where error.code == .validationMissingMandatoryProperty {
///   print(error)  // names the entity and the property that is missing
/// }
/// ```
///
/// Codes are pattern-matchable against an error directly:
///
/// ```swift
/// catch ObjectGraphError.Code.persistentStoreIncompatibleVersionHash { … }
/// ```
public struct ObjectGraphError: Error, Sendable, CustomStringConvertible {
  /// What kind of failure this is. Raw values are Core Data's error numbers where Core Data has one.
  public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// 260: a file to read is not there (Cocoa's `NSFileReadNoSuchFileError`, what Core Data's
    /// `metadataForPersistentStore(ofType:at:options:)` reports for a missing store file).
    public static let fileReadNoSuchFile = Code(rawValue: 260)
    /// 1550: a value failed validation for another reason (bad type, bad value).
    public static let validationValue = Code(rawValue: 1550)
    /// 1560: several validation errors at once; ``ObjectGraphError/underlyingErrors`` lists them.
    public static let validationMultipleErrors = Code(rawValue: 1560)
    /// 1570: a required (non-optional) property has no value.
    public static let validationMissingMandatoryProperty = Code(rawValue: 1570)
    /// 1580: a to-many relationship has fewer objects than its minimum count.
    public static let validationRelationshipLacksMinimumCount = Code(rawValue: 1580)
    /// 1590: a to-many relationship has more objects than its maximum count.
    public static let validationRelationshipExceedsMaximumCount = Code(rawValue: 1590)
    /// 1600: a delete was refused because a relationship with the deny rule still points somewhere.
    public static let validationRelationshipDeniedDelete = Code(rawValue: 1600)
    /// 1610: a number is above its attribute's maximum.
    public static let validationNumberTooLarge = Code(rawValue: 1610)
    /// 1620: a number is below its attribute's minimum.
    public static let validationNumberTooSmall = Code(rawValue: 1620)
    /// 1630: a date is after its attribute's maximum.
    public static let validationDateTooLate = Code(rawValue: 1630)
    /// 1640: a date is before its attribute's minimum.
    public static let validationDateTooSoon = Code(rawValue: 1640)
    /// 1650: a date is not valid.
    public static let validationInvalidDate = Code(rawValue: 1650)
    /// 1660: a string is longer than its attribute's maximum length.
    public static let validationStringTooLong = Code(rawValue: 1660)
    /// 1670: a string is shorter than its attribute's minimum length.
    public static let validationStringTooShort = Code(rawValue: 1670)
    /// 1680: a string does not match its attribute's regular expression.
    public static let validationStringPatternMatching = Code(rawValue: 1680)
    /// 133000: an object or its row could not be found in the store (Core Data's
    /// `NSManagedObjectReferentialIntegrityError`).
    public static let managedObjectReferentialIntegrity = Code(rawValue: 133000)
    /// 133020: a save found rows changed by someone else since this context read them.
    public static let managedObjectMerge = Code(rawValue: 133020)
    /// 133021: a save would break a uniqueness constraint (Core Data's
    /// `NSManagedObjectConstraintMergeError`): under the error merge policy, objects share the values of a
    /// constraint with each other or with a stored row. ``ObjectGraphError/constraintConflicts`` lists them.
    public static let managedObjectConstraintMerge = Code(rawValue: 133021)
    /// 134000: the store type or the file is not one this engine can open.
    public static let persistentStoreInvalidType = Code(rawValue: 134000)
    /// 134020: the store file lacks tables its model needs: it was changed outside Core Data (Core Data's
    /// `NSPersistentStoreIncompatibleSchemaError`).
    public static let persistentStoreIncompatibleSchema = Code(rawValue: 134020)
    /// 134030: the store could not be written (Core Data's `NSPersistentStoreSaveError`).
    public static let persistentStoreSave = Code(rawValue: 134030)
    /// 134060: a generic store failure (Core Data's `NSCoreDataError`).
    public static let coreData = Code(rawValue: 134060)
    /// 134070: the store or operation is not supported.
    public static let persistentStoreOperation = Code(rawValue: 134070)
    /// 134080: the store file could not be opened (missing folder, no permission, locked).
    public static let persistentStoreOpen = Code(rawValue: 134080)
    /// 134100: the store was made with a different model; migrate it or use the matching model.
    public static let persistentStoreIncompatibleVersionHash = Code(rawValue: 134100)
    /// 134110: a migration was started and failed (Core Data's `NSMigrationError`); the store was left as it was.
    public static let migration = Code(rawValue: 134110)
    /// 134130: a migration was needed but no model matching the store was found.
    public static let migrationMissingSourceModel = Code(rawValue: 134130)
    /// 134140: a migration is needed but no mapping model is available: inference is off, or the change is
    /// one that cannot be inferred (Core Data's `NSMigrationMissingMappingModelError`).
    public static let migrationMissingMappingModel = Code(rawValue: 134140)
    /// 134190: a migration is needed and no mapping can be inferred (Core Data's `NSInferredMappingModelError`).
    public static let inferredMappingModel = Code(rawValue: 134190)

    /// 900001 (workspace-specific): the model is malformed or inconsistent.
    public static let modelInvalid = Code(rawValue: 900_001)
    /// 900002 (workspace-specific): a predicate format string could not be parsed.
    public static let predicateSyntax = Code(rawValue: 900_002)
    /// 900003 (workspace-specific): a key or key path names no property of the entity.
    public static let unknownKey = Code(rawValue: 900_003)
    /// 900004 (workspace-specific): no object exists for an object ID.
    public static let objectNotFound = Code(rawValue: 900_004)
    /// 900005 (workspace-specific): a model feature that loads but is not supported at run time was used.
    public static let unsupportedFeature = Code(rawValue: 900_005)
    /// 900006 (workspace-specific): the operation needs a coordinator or store that is not there.
    public static let noPersistentStore = Code(rawValue: 900_006)
    /// 900007 (workspace-specific): a value of the wrong type was given for a property or argument.
    public static let invalidValue = Code(rawValue: 900_007)

    public var description: String { "\(rawValue)" }

    /// Lets `catch ObjectGraphError.Code.managedObjectMerge` match an error directly.
    public static func ~= (code: Code, error: any Error) -> Bool {
      (error as? ObjectGraphError)?.code == code
    }
  }

  /// What kind of failure this is.
  public let code: Code
  /// What happened and what to do, in plain words.
  public let message: String
  /// The file concerned, when there is one.
  public let url: URL?
  /// For ``Code/validationMultipleErrors`` and merge conflicts: the individual errors.
  public let underlyingErrors: [ObjectGraphError]
  /// The records of a conflict error (read as ``conflicts`` and ``constraintConflicts``), kept here without
  /// their types: they name objects by ID, and this folder sits below the IDs.
  /// `Contract/ObjectGraphError+Conflicts.swift` makes and reads them.
  let conflictRecords: [any Sendable]
  /// The error this one was made from, when it has a cause outside the engine: for a store failure,
  /// GRDB's `DatabaseError` (with SQLite's message, result code and SQL), as Core Data puts the SQLite
  /// error under `NSUnderlyingErrorKey`.
  public let underlyingError: (any Error)?
  /// SQLite's extended result code, when SQLite refused the operation: tell a busy database
  /// (``sqlitePrimaryResultCode`` 5, `SQLITE_BUSY`) from a full disk (13, `SQLITE_FULL`) or a damaged
  /// file (11, `SQLITE_CORRUPT`) without importing GRDB. `nil` when SQLite was not involved.
  ///
  /// ```swift
  /// catch let error as ObjectGraphError where error.sqlitePrimaryResultCode == 13 {
  ///   showDiskFullAlert()
  /// }
  /// ```
  public let sqliteResultCode: Int32?

  /// SQLite's primary result code (the low 8 bits of ``sqliteResultCode``), e.g. 5 for `SQLITE_BUSY`.
  public var sqlitePrimaryResultCode: Int32? { sqliteResultCode.map { $0 & 0xFF } }

  /// Makes an error without conflict records (the initializer that takes them is in
  /// `Contract/ObjectGraphError+Conflicts.swift`).
  init(
    _ code: Code, _ message: String, url: URL? = nil, underlyingErrors: [ObjectGraphError] = [],
    conflictRecords: [any Sendable] = [], underlyingError: (any Error)? = nil, sqliteResultCode: Int32? = nil
  ) {
    self.code = code
    self.message = message
    self.url = url
    self.underlyingErrors = underlyingErrors
    self.conflictRecords = conflictRecords
    self.underlyingError = underlyingError
    self.sqliteResultCode = sqliteResultCode
  }

  public var description: String {
    var text = "ObjectGraphError \(code.rawValue): \(message)"
    for error in underlyingErrors {
      text += "\n  - \(error.message)"
    }
    return text
  }
}
