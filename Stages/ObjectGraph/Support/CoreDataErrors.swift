import Foundation

// Core Data's error codes (CoreDataErrors.h: the `NSCocoaErrorDomain` codes Core Data adds) and the keys of
// its errors' `userInfo`, with Apple's names, types and values. Foundation already declares the general ones
// (`NSCocoaErrorDomain`, `NSUnderlyingErrorKey`, `NSURLErrorKey`, `NSFilePathErrorKey`, …): they are not
// declared again here, which would make every use of them ambiguous.

/// Core Data error 1550: a generic validation error: a value failed a rule of the app's own (`validateValue(_:forKey:)`, `validateForInsert()`, …).
public var NSManagedObjectValidationError: Int { 1550 }
/// Core Data error 1551: a uniqueness constraint was broken, found while validating.
public var NSManagedObjectConstraintValidationError: Int { 1551 }
/// Core Data error 1560: several validation errors at once; the individual errors are under `NSDetailedErrorsKey`.
public var NSValidationMultipleErrorsError: Int { 1560 }
/// Core Data error 1570: a non-optional property has no value.
public var NSValidationMissingMandatoryPropertyError: Int { 1570 }
/// Core Data error 1580: a to-many relationship holds fewer objects than its minimum count.
public var NSValidationRelationshipLacksMinimumCountError: Int { 1580 }
/// Core Data error 1590: a to-many relationship holds more objects than its maximum count.
public var NSValidationRelationshipExceedsMaximumCountError: Int { 1590 }
/// Core Data error 1600: a delete was refused: a relationship with the deny rule still holds objects.
public var NSValidationRelationshipDeniedDeleteError: Int { 1600 }
/// Core Data error 1610: a number is above its attribute's maximum.
public var NSValidationNumberTooLargeError: Int { 1610 }
/// Core Data error 1620: a number is below its attribute's minimum.
public var NSValidationNumberTooSmallError: Int { 1620 }
/// Core Data error 1630: a date is after its attribute's maximum.
public var NSValidationDateTooLateError: Int { 1630 }
/// Core Data error 1640: a date is before its attribute's minimum.
public var NSValidationDateTooSoonError: Int { 1640 }
/// Core Data error 1650: a date is not valid.
public var NSValidationInvalidDateError: Int { 1650 }
/// Core Data error 1660: a string is longer than its attribute's maximum length.
public var NSValidationStringTooLongError: Int { 1660 }
/// Core Data error 1670: a string is shorter than its attribute's minimum length.
public var NSValidationStringTooShortError: Int { 1670 }
/// Core Data error 1680: a string does not match its attribute's regular expression.
public var NSValidationStringPatternMatchingError: Int { 1680 }
/// Core Data error 1690: a URI value cannot be represented as a string.
public var NSValidationInvalidURIError: Int { 1690 }
/// Core Data error 132000: a context's lock could not be acquired.
public var NSManagedObjectContextLockingError: Int { 132000 }
/// Core Data error 132010: a coordinator's lock could not be acquired.
public var NSPersistentStoreCoordinatorLockingError: Int { 132010 }
/// Core Data error 133000: a fault was fired for an object whose row is not in the store.
public var NSManagedObjectReferentialIntegrityError: Int { 133000 }
/// Core Data error 133010: an object being saved is related to an object of another store.
public var NSManagedObjectExternalRelationshipError: Int { 133010 }
/// Core Data error 133020: a save found rows changed elsewhere since the context read them (merge policy: error); the conflicts are under `NSPersistentStoreSaveConflictsErrorKey`.
public var NSManagedObjectMergeError: Int { 133020 }
/// Core Data error 133021: a save would break a uniqueness constraint (merge policy: error); the conflicts are under `NSPersistentStoreSaveConflictsErrorKey`.
public var NSManagedObjectConstraintMergeError: Int { 133021 }
/// Core Data error 134000: an unknown store type, or a file that is not a store of the type.
public var NSPersistentStoreInvalidTypeError: Int { 134000 }
/// Core Data error 134010: a store of one type was opened as another.
public var NSPersistentStoreTypeMismatchError: Int { 134010 }
/// Core Data error 134020: the store's schema does not match what its model needs.
public var NSPersistentStoreIncompatibleSchemaError: Int { 134020 }
/// Core Data error 134030: the store could not be written.
public var NSPersistentStoreSaveError: Int { 134030 }
/// Core Data error 134040: one or more of the stores returned an error during a save.
public var NSPersistentStoreIncompleteSaveError: Int { 134040 }
/// Core Data error 134050: an unresolved merge conflict was met during a save; the conflicts are under `NSPersistentStoreSaveConflictsErrorKey`.
public var NSPersistentStoreSaveConflictsError: Int { 134050 }
/// Core Data error 134060: a general Core Data error.
public var NSCoreDataError: Int { 134060 }
/// Core Data error 134070: a persistent store operation failed.
public var NSPersistentStoreOperationError: Int { 134070 }
/// Core Data error 134080: a store could not be opened.
public var NSPersistentStoreOpenError: Int { 134080 }
/// Core Data error 134090: a store's lock was not acquired in time.
public var NSPersistentStoreTimeoutError: Int { 134090 }
/// Core Data error 134091: a store was given a request it does not support.
public var NSPersistentStoreUnsupportedRequestTypeError: Int { 134091 }
/// Core Data error 134100: the store was made with another model (its version hashes differ); the store's metadata is under `metadata`.
public var NSPersistentStoreIncompatibleVersionHashError: Int { 134100 }
/// Core Data error 134110: a migration failed.
public var NSMigrationError: Int { 134110 }
/// Core Data error 134111: a migration broke a uniqueness constraint.
public var NSMigrationConstraintViolationError: Int { 134111 }
/// Core Data error 134120: a migration was cancelled.
public var NSMigrationCancelledError: Int { 134120 }
/// Core Data error 134130: no model matching the store (the migration's source) was found.
public var NSMigrationMissingSourceModelError: Int { 134130 }
/// Core Data error 134140: no mapping model for the migration was found, and none could be inferred.
public var NSMigrationMissingMappingModelError: Int { 134140 }
/// Core Data error 134150: the migration's source store could not be read.
public var NSMigrationManagerSourceStoreError: Int { 134150 }
/// Core Data error 134160: the migration's destination store could not be written.
public var NSMigrationManagerDestinationStoreError: Int { 134160 }
/// Core Data error 134170: an entity migration policy failed.
public var NSEntityMigrationPolicyError: Int { 134170 }
/// Core Data error 134180: a general SQLite error.
public var NSSQLiteError: Int { 134180 }
/// Core Data error 134190: a mapping model could not be inferred.
public var NSInferredMappingModelError: Int { 134190 }
/// Core Data error 134301: a persistent history token names history that was deleted.
public var NSPersistentHistoryTokenExpiredError: Int { 134301 }
/// Core Data error 134504: a staged migration's model reference found no model.
public var NSManagedObjectModelReferenceNotFoundError: Int { 134504 }
/// Core Data error 134505: a staged migration was made with another framework version.
public var NSStagedMigrationFrameworkVersionMismatchError: Int { 134505 }
/// Core Data error 134506: a staged migration would go to an earlier model version.
public var NSStagedMigrationBackwardMigrationError: Int { 134506 }

/// The individual errors (`[NSError]`) when several occurred at once (error 1560).
public let NSDetailedErrorsKey: String = "NSDetailedErrors"
/// The object that failed to validate (an `NSManagedObject`).
public let NSValidationObjectErrorKey: String = "NSValidationErrorObject"
/// The key (a `String`, the property's name) that failed to validate.
public let NSValidationKeyErrorKey: String = "NSValidationErrorKey"
/// For predicate-based validation, the predicate of the condition that failed.
public let NSValidationPredicateErrorKey: String = "NSValidationErrorPredicate"
/// The value that failed to validate, when there is one.
public let NSValidationValueErrorKey: String = "NSValidationErrorValue"
/// The stores that prompted the error.
public let NSAffectedStoresErrorKey: String = "NSAffectedStoresErrorKey"
/// The objects that prompted the error.
public let NSAffectedObjectsErrorKey: String = "NSAffectedObjectsErrorKey"
/// The conflicts of a failed save: `[NSMergeConflict]` for error 133020, `[NSConstraintConflict]` for 133021 (the key's text is `"conflictList"`, as in Core Data).
public let NSPersistentStoreSaveConflictsErrorKey: String = "conflictList"

/// The domain of the underlying errors that come from SQLite (the code is SQLite's extended result code); an
/// error of a SQLite store also has SQLite's code under this key in its own `userInfo`.
public let NSSQLiteErrorDomain: String = "NSSQLiteErrorDomain"

/// Core Data's codes by name, as Apple's CoreData overlay adds them to Foundation's `CocoaError.Code`:
/// `catch let error as CocoaError where error.code == .validationMissingMandatoryProperty`.
extension CocoaError.Code {
  /// 1550 (`NSManagedObjectValidationError`): a generic validation error: a value failed a rule of the app's own (`validateValue(_:forKey:)`, `validateForInsert()`, …).
  public static var managedObjectValidation: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectValidationError) }
  /// 1560 (`NSValidationMultipleErrorsError`): several validation errors at once; the individual errors are under `NSDetailedErrorsKey`.
  public static var validationMultipleErrors: CocoaError.Code { CocoaError.Code(rawValue: NSValidationMultipleErrorsError) }
  /// 1570 (`NSValidationMissingMandatoryPropertyError`): a non-optional property has no value.
  public static var validationMissingMandatoryProperty: CocoaError.Code {
    CocoaError.Code(rawValue: NSValidationMissingMandatoryPropertyError)
  }
  /// 1580 (`NSValidationRelationshipLacksMinimumCountError`): a to-many relationship holds fewer objects than its minimum count.
  public static var validationRelationshipLacksMinimumCount: CocoaError.Code {
    CocoaError.Code(rawValue: NSValidationRelationshipLacksMinimumCountError)
  }
  /// 1590 (`NSValidationRelationshipExceedsMaximumCountError`): a to-many relationship holds more objects than its maximum count.
  public static var validationRelationshipExceedsMaximumCount: CocoaError.Code {
    CocoaError.Code(rawValue: NSValidationRelationshipExceedsMaximumCountError)
  }
  /// 1600 (`NSValidationRelationshipDeniedDeleteError`): a delete was refused: a relationship with the deny rule still holds objects.
  public static var validationRelationshipDeniedDelete: CocoaError.Code {
    CocoaError.Code(rawValue: NSValidationRelationshipDeniedDeleteError)
  }
  /// 1610 (`NSValidationNumberTooLargeError`): a number is above its attribute's maximum.
  public static var validationNumberTooLarge: CocoaError.Code { CocoaError.Code(rawValue: NSValidationNumberTooLargeError) }
  /// 1620 (`NSValidationNumberTooSmallError`): a number is below its attribute's minimum.
  public static var validationNumberTooSmall: CocoaError.Code { CocoaError.Code(rawValue: NSValidationNumberTooSmallError) }
  /// 1630 (`NSValidationDateTooLateError`): a date is after its attribute's maximum.
  public static var validationDateTooLate: CocoaError.Code { CocoaError.Code(rawValue: NSValidationDateTooLateError) }
  /// 1640 (`NSValidationDateTooSoonError`): a date is before its attribute's minimum.
  public static var validationDateTooSoon: CocoaError.Code { CocoaError.Code(rawValue: NSValidationDateTooSoonError) }
  /// 1650 (`NSValidationInvalidDateError`): a date is not valid.
  public static var validationInvalidDate: CocoaError.Code { CocoaError.Code(rawValue: NSValidationInvalidDateError) }
  /// 1660 (`NSValidationStringTooLongError`): a string is longer than its attribute's maximum length.
  public static var validationStringTooLong: CocoaError.Code { CocoaError.Code(rawValue: NSValidationStringTooLongError) }
  /// 1670 (`NSValidationStringTooShortError`): a string is shorter than its attribute's minimum length.
  public static var validationStringTooShort: CocoaError.Code { CocoaError.Code(rawValue: NSValidationStringTooShortError) }
  /// 1680 (`NSValidationStringPatternMatchingError`): a string does not match its attribute's regular expression.
  public static var validationStringPatternMatching: CocoaError.Code { CocoaError.Code(rawValue: NSValidationStringPatternMatchingError) }
  /// 132000 (`NSManagedObjectContextLockingError`): a context's lock could not be acquired.
  public static var managedObjectContextLocking: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectContextLockingError) }
  /// 132010 (`NSPersistentStoreCoordinatorLockingError`): a coordinator's lock could not be acquired.
  public static var persistentStoreCoordinatorLocking: CocoaError.Code {
    CocoaError.Code(rawValue: NSPersistentStoreCoordinatorLockingError)
  }
  /// 133000 (`NSManagedObjectReferentialIntegrityError`): a fault was fired for an object whose row is not in the store.
  public static var managedObjectReferentialIntegrity: CocoaError.Code {
    CocoaError.Code(rawValue: NSManagedObjectReferentialIntegrityError)
  }
  /// 133010 (`NSManagedObjectExternalRelationshipError`): an object being saved is related to an object of another store.
  public static var managedObjectExternalRelationship: CocoaError.Code {
    CocoaError.Code(rawValue: NSManagedObjectExternalRelationshipError)
  }
  /// 133020 (`NSManagedObjectMergeError`): a save found rows changed elsewhere since the context read them (merge policy: error); the conflicts are under `NSPersistentStoreSaveConflictsErrorKey`.
  public static var managedObjectMerge: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectMergeError) }
  /// 133021 (`NSManagedObjectConstraintMergeError`): a save would break a uniqueness constraint (merge policy: error); the conflicts are under `NSPersistentStoreSaveConflictsErrorKey`.
  public static var managedObjectConstraintMerge: CocoaError.Code { CocoaError.Code(rawValue: NSManagedObjectConstraintMergeError) }
  /// 134000 (`NSPersistentStoreInvalidTypeError`): an unknown store type, or a file that is not a store of the type.
  public static var persistentStoreInvalidType: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreInvalidTypeError) }
  /// 134010 (`NSPersistentStoreTypeMismatchError`): a store of one type was opened as another.
  public static var persistentStoreTypeMismatch: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreTypeMismatchError) }
  /// 134020 (`NSPersistentStoreIncompatibleSchemaError`): the store's schema does not match what its model needs.
  public static var persistentStoreIncompatibleSchema: CocoaError.Code {
    CocoaError.Code(rawValue: NSPersistentStoreIncompatibleSchemaError)
  }
  /// 134030 (`NSPersistentStoreSaveError`): the store could not be written.
  public static var persistentStoreSave: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreSaveError) }
  /// 134040 (`NSPersistentStoreIncompleteSaveError`): one or more of the stores returned an error during a save.
  public static var persistentStoreIncompleteSave: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreIncompleteSaveError) }
  /// 134050 (`NSPersistentStoreSaveConflictsError`): an unresolved merge conflict was met during a save; the conflicts are under `NSPersistentStoreSaveConflictsErrorKey`.
  public static var persistentStoreSaveConflicts: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreSaveConflictsError) }
  /// 134060 (`NSCoreDataError`): a general Core Data error.
  public static var coreData: CocoaError.Code { CocoaError.Code(rawValue: NSCoreDataError) }
  /// 134070 (`NSPersistentStoreOperationError`): a persistent store operation failed.
  public static var persistentStoreOperation: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreOperationError) }
  /// 134080 (`NSPersistentStoreOpenError`): a store could not be opened.
  public static var persistentStoreOpen: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreOpenError) }
  /// 134090 (`NSPersistentStoreTimeoutError`): a store's lock was not acquired in time.
  public static var persistentStoreTimeout: CocoaError.Code { CocoaError.Code(rawValue: NSPersistentStoreTimeoutError) }
  /// 134091 (`NSPersistentStoreUnsupportedRequestTypeError`): a store was given a request it does not support.
  public static var persistentStoreUnsupportedRequestType: CocoaError.Code {
    CocoaError.Code(rawValue: NSPersistentStoreUnsupportedRequestTypeError)
  }
  /// 134100 (`NSPersistentStoreIncompatibleVersionHashError`): the store was made with another model (its version hashes differ); the store's metadata is under `metadata`.
  public static var persistentStoreIncompatibleVersionHash: CocoaError.Code {
    CocoaError.Code(rawValue: NSPersistentStoreIncompatibleVersionHashError)
  }
  /// 134110 (`NSMigrationError`): a migration failed.
  public static var migration: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationError) }
  /// 134120 (`NSMigrationCancelledError`): a migration was cancelled.
  public static var migrationCancelled: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationCancelledError) }
  /// 134130 (`NSMigrationMissingSourceModelError`): no model matching the store (the migration's source) was found.
  public static var migrationMissingSourceModel: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationMissingSourceModelError) }
  /// 134140 (`NSMigrationMissingMappingModelError`): no mapping model for the migration was found, and none could be inferred.
  public static var migrationMissingMappingModel: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationMissingMappingModelError) }
  /// 134150 (`NSMigrationManagerSourceStoreError`): the migration's source store could not be read.
  public static var migrationManagerSourceStore: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationManagerSourceStoreError) }
  /// 134160 (`NSMigrationManagerDestinationStoreError`): the migration's destination store could not be written.
  public static var migrationManagerDestinationStore: CocoaError.Code { CocoaError.Code(rawValue: NSMigrationManagerDestinationStoreError) }
  /// 134170 (`NSEntityMigrationPolicyError`): an entity migration policy failed.
  public static var entityMigrationPolicy: CocoaError.Code { CocoaError.Code(rawValue: NSEntityMigrationPolicyError) }
  /// 134180 (`NSSQLiteError`): a general SQLite error.
  public static var sqlite: CocoaError.Code { CocoaError.Code(rawValue: NSSQLiteError) }
  /// 134190 (`NSInferredMappingModelError`): a mapping model could not be inferred.
  public static var inferredMappingModel: CocoaError.Code { CocoaError.Code(rawValue: NSInferredMappingModelError) }
}

/// Core Data's codes on `CocoaError` itself (`CocoaError.managedObjectMerge`), and its accessors for the
/// `userInfo` keys of Core Data's errors, as Apple's CoreData overlay has them.
extension CocoaError {
  /// 1550 (`NSManagedObjectValidationError`), the same as `CocoaError.Code.managedObjectValidation`.
  public static var managedObjectValidation: CocoaError.Code { .managedObjectValidation }
  /// 1560 (`NSValidationMultipleErrorsError`), the same as `CocoaError.Code.validationMultipleErrors`.
  public static var validationMultipleErrors: CocoaError.Code { .validationMultipleErrors }
  /// 1570 (`NSValidationMissingMandatoryPropertyError`), the same as `CocoaError.Code.validationMissingMandatoryProperty`.
  public static var validationMissingMandatoryProperty: CocoaError.Code { .validationMissingMandatoryProperty }
  /// 1580 (`NSValidationRelationshipLacksMinimumCountError`), the same as `CocoaError.Code.validationRelationshipLacksMinimumCount`.
  public static var validationRelationshipLacksMinimumCount: CocoaError.Code { .validationRelationshipLacksMinimumCount }
  /// 1590 (`NSValidationRelationshipExceedsMaximumCountError`), the same as `CocoaError.Code.validationRelationshipExceedsMaximumCount`.
  public static var validationRelationshipExceedsMaximumCount: CocoaError.Code { .validationRelationshipExceedsMaximumCount }
  /// 1600 (`NSValidationRelationshipDeniedDeleteError`), the same as `CocoaError.Code.validationRelationshipDeniedDelete`.
  public static var validationRelationshipDeniedDelete: CocoaError.Code { .validationRelationshipDeniedDelete }
  /// 1610 (`NSValidationNumberTooLargeError`), the same as `CocoaError.Code.validationNumberTooLarge`.
  public static var validationNumberTooLarge: CocoaError.Code { .validationNumberTooLarge }
  /// 1620 (`NSValidationNumberTooSmallError`), the same as `CocoaError.Code.validationNumberTooSmall`.
  public static var validationNumberTooSmall: CocoaError.Code { .validationNumberTooSmall }
  /// 1630 (`NSValidationDateTooLateError`), the same as `CocoaError.Code.validationDateTooLate`.
  public static var validationDateTooLate: CocoaError.Code { .validationDateTooLate }
  /// 1640 (`NSValidationDateTooSoonError`), the same as `CocoaError.Code.validationDateTooSoon`.
  public static var validationDateTooSoon: CocoaError.Code { .validationDateTooSoon }
  /// 1650 (`NSValidationInvalidDateError`), the same as `CocoaError.Code.validationInvalidDate`.
  public static var validationInvalidDate: CocoaError.Code { .validationInvalidDate }
  /// 1660 (`NSValidationStringTooLongError`), the same as `CocoaError.Code.validationStringTooLong`.
  public static var validationStringTooLong: CocoaError.Code { .validationStringTooLong }
  /// 1670 (`NSValidationStringTooShortError`), the same as `CocoaError.Code.validationStringTooShort`.
  public static var validationStringTooShort: CocoaError.Code { .validationStringTooShort }
  /// 1680 (`NSValidationStringPatternMatchingError`), the same as `CocoaError.Code.validationStringPatternMatching`.
  public static var validationStringPatternMatching: CocoaError.Code { .validationStringPatternMatching }
  /// 132000 (`NSManagedObjectContextLockingError`), the same as `CocoaError.Code.managedObjectContextLocking`.
  public static var managedObjectContextLocking: CocoaError.Code { .managedObjectContextLocking }
  /// 132010 (`NSPersistentStoreCoordinatorLockingError`), the same as `CocoaError.Code.persistentStoreCoordinatorLocking`.
  public static var persistentStoreCoordinatorLocking: CocoaError.Code { .persistentStoreCoordinatorLocking }
  /// 133000 (`NSManagedObjectReferentialIntegrityError`), the same as `CocoaError.Code.managedObjectReferentialIntegrity`.
  public static var managedObjectReferentialIntegrity: CocoaError.Code { .managedObjectReferentialIntegrity }
  /// 133010 (`NSManagedObjectExternalRelationshipError`), the same as `CocoaError.Code.managedObjectExternalRelationship`.
  public static var managedObjectExternalRelationship: CocoaError.Code { .managedObjectExternalRelationship }
  /// 133020 (`NSManagedObjectMergeError`), the same as `CocoaError.Code.managedObjectMerge`.
  public static var managedObjectMerge: CocoaError.Code { .managedObjectMerge }
  /// 133021 (`NSManagedObjectConstraintMergeError`), the same as `CocoaError.Code.managedObjectConstraintMerge`.
  public static var managedObjectConstraintMerge: CocoaError.Code { .managedObjectConstraintMerge }
  /// 134000 (`NSPersistentStoreInvalidTypeError`), the same as `CocoaError.Code.persistentStoreInvalidType`.
  public static var persistentStoreInvalidType: CocoaError.Code { .persistentStoreInvalidType }
  /// 134010 (`NSPersistentStoreTypeMismatchError`), the same as `CocoaError.Code.persistentStoreTypeMismatch`.
  public static var persistentStoreTypeMismatch: CocoaError.Code { .persistentStoreTypeMismatch }
  /// 134020 (`NSPersistentStoreIncompatibleSchemaError`), the same as `CocoaError.Code.persistentStoreIncompatibleSchema`.
  public static var persistentStoreIncompatibleSchema: CocoaError.Code { .persistentStoreIncompatibleSchema }
  /// 134030 (`NSPersistentStoreSaveError`), the same as `CocoaError.Code.persistentStoreSave`.
  public static var persistentStoreSave: CocoaError.Code { .persistentStoreSave }
  /// 134040 (`NSPersistentStoreIncompleteSaveError`), the same as `CocoaError.Code.persistentStoreIncompleteSave`.
  public static var persistentStoreIncompleteSave: CocoaError.Code { .persistentStoreIncompleteSave }
  /// 134050 (`NSPersistentStoreSaveConflictsError`), the same as `CocoaError.Code.persistentStoreSaveConflicts`.
  public static var persistentStoreSaveConflicts: CocoaError.Code { .persistentStoreSaveConflicts }
  /// 134060 (`NSCoreDataError`), the same as `CocoaError.Code.coreData`.
  public static var coreData: CocoaError.Code { .coreData }
  /// 134070 (`NSPersistentStoreOperationError`), the same as `CocoaError.Code.persistentStoreOperation`.
  public static var persistentStoreOperation: CocoaError.Code { .persistentStoreOperation }
  /// 134080 (`NSPersistentStoreOpenError`), the same as `CocoaError.Code.persistentStoreOpen`.
  public static var persistentStoreOpen: CocoaError.Code { .persistentStoreOpen }
  /// 134090 (`NSPersistentStoreTimeoutError`), the same as `CocoaError.Code.persistentStoreTimeout`.
  public static var persistentStoreTimeout: CocoaError.Code { .persistentStoreTimeout }
  /// 134091 (`NSPersistentStoreUnsupportedRequestTypeError`), the same as `CocoaError.Code.persistentStoreUnsupportedRequestType`.
  public static var persistentStoreUnsupportedRequestType: CocoaError.Code { .persistentStoreUnsupportedRequestType }
  /// 134100 (`NSPersistentStoreIncompatibleVersionHashError`), the same as `CocoaError.Code.persistentStoreIncompatibleVersionHash`.
  public static var persistentStoreIncompatibleVersionHash: CocoaError.Code { .persistentStoreIncompatibleVersionHash }
  /// 134110 (`NSMigrationError`), the same as `CocoaError.Code.migration`.
  public static var migration: CocoaError.Code { .migration }
  /// 134120 (`NSMigrationCancelledError`), the same as `CocoaError.Code.migrationCancelled`.
  public static var migrationCancelled: CocoaError.Code { .migrationCancelled }
  /// 134130 (`NSMigrationMissingSourceModelError`), the same as `CocoaError.Code.migrationMissingSourceModel`.
  public static var migrationMissingSourceModel: CocoaError.Code { .migrationMissingSourceModel }
  /// 134140 (`NSMigrationMissingMappingModelError`), the same as `CocoaError.Code.migrationMissingMappingModel`.
  public static var migrationMissingMappingModel: CocoaError.Code { .migrationMissingMappingModel }
  /// 134150 (`NSMigrationManagerSourceStoreError`), the same as `CocoaError.Code.migrationManagerSourceStore`.
  public static var migrationManagerSourceStore: CocoaError.Code { .migrationManagerSourceStore }
  /// 134160 (`NSMigrationManagerDestinationStoreError`), the same as `CocoaError.Code.migrationManagerDestinationStore`.
  public static var migrationManagerDestinationStore: CocoaError.Code { .migrationManagerDestinationStore }
  /// 134170 (`NSEntityMigrationPolicyError`), the same as `CocoaError.Code.entityMigrationPolicy`.
  public static var entityMigrationPolicy: CocoaError.Code { .entityMigrationPolicy }
  /// 134180 (`NSSQLiteError`), the same as `CocoaError.Code.sqlite`.
  public static var sqlite: CocoaError.Code { .sqlite }
  /// 134190 (`NSInferredMappingModelError`), the same as `CocoaError.Code.inferredMappingModel`.
  public static var inferredMappingModel: CocoaError.Code { .inferredMappingModel }

  /// The key that failed to validate (`NSValidationKeyErrorKey`).
  public var validationKey: String? { userInfo[NSValidationKeyErrorKey] as? String }
  /// The object that failed to validate (`NSValidationObjectErrorKey`).
  public var validationObject: Any? { userInfo[NSValidationObjectErrorKey] }
  /// The value that failed to validate (`NSValidationValueErrorKey`).
  public var validationValue: Any? { userInfo[NSValidationValueErrorKey] }
  /// The objects that prompted the error (`NSAffectedObjectsErrorKey`).
  public var affectedObjects: [AnyObject]? { userInfo[NSAffectedObjectsErrorKey] as? [AnyObject] }
  /// The stores that prompted the error (`NSAffectedStoresErrorKey`).
  public var affectedStores: [AnyObject]? { userInfo[NSAffectedStoresErrorKey] as? [AnyObject] }
}
