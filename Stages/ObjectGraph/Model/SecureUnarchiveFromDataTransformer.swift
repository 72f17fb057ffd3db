import Foundation

/// Archives property-list values with `NSKeyedArchiver` (secure coding) and unarchives them allowing
/// only ``allowedTopLevelClasses`` (Core Data's `NSSecureUnarchiveFromDataTransformer`): strings,
/// numbers, booleans, dates, data, URLs, UUIDs and arrays, sets and dictionaries of them.
///
/// A value of another type (a struct of your own) is refused with an error naming its type, before the
/// archiver sees it; give its attribute a transformer of your own.
open class SecureUnarchiveFromDataTransformer: AttributeValueTransformer, @unchecked Sendable {
  static let shared = SecureUnarchiveFromDataTransformer()

  /// The classes unarchiving accepts.
  open class var allowedTopLevelClasses: [AnyClass] {
    [
      NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self, NSURL.self,
      NSUUID.self, NSNull.self,
    ]
  }

  /// The value archived, after checking that it is of a kind the archiver takes: a property-list value, or
  /// an `NSSecureCoding` object of one of ``allowedTopLevelClasses`` (or `transformedValueClass()`), which
  /// a subclass overrides to store its own classes, as Core Data's documentation shows.
  open override func transformedValue(_ value: Any) throws -> Data {
    let allowed = type(of: self).allowedTopLevelClasses + [type(of: self).transformedValueClass()]
    if let object = value as? NSObject, object is NSSecureCoding, allowed.contains(where: { object.isKind(of: $0) }),
      !(value is String || value is NSNumber)
    {
      // Linux's Foundation names an archived object's class by `NSStringFromClass`, which stops the program
      // for a class that is not declared at the top level of its module (nested, private or local).
      let name = String(reflecting: Swift.type(of: object))
      guard name.split(separator: ".").count == 2, !name.contains("(") else {
        throw ObjectGraphError(
          .managedObjectValidation,
          "A \(name) cannot be archived on Linux: Foundation's NSKeyedArchiver there archives only classes declared at the top level of their module (not nested in another type, not private or local). Declare the class at file scope, internal or public."
        )
      }
      return try archive(value)
    }
    try checkArchivable(value)
    return try archive(value)
  }

  private func archive(_ value: Any) throws -> Data {
    do {
      return try NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
    } catch {
      throw ObjectGraphError(
        .managedObjectValidation, "A \(type(of: value)) could not be archived: \(error.localizedDescription)", underlyingError: error)
    }
  }

  /// The archived value, unarchived allowing only ``allowedTopLevelClasses``.
  open override func reverseTransformedValue(_ data: Data) throws -> Any {
    do {
      guard let value = try NSKeyedUnarchiver.unarchivedObject(ofClasses: Self.allowedTopLevelClasses, from: data) else {
        throw ObjectGraphError(.managedObjectValidation, "The archived value is empty.")
      }
      return value
    } catch let error as ObjectGraphError {
      throw error
    } catch {
      throw ObjectGraphError(
        .managedObjectValidation, "The stored bytes are not a secure archive: \(error.localizedDescription)", underlyingError: error)
    }
  }

  /// Refuses a value the secure archiver cannot take (Foundation on Linux stops the program for one).
  func checkArchivable(_ value: Any) throws {
    switch value {
    case is String, is Bool, is Int, is Int8, is Int16, is Int32, is Int64, is UInt, is UInt8, is UInt16, is UInt32, is UInt64,
      is Double, is Float, is Date, is Data, is URL, is UUID, is NSNull, is Decimal:
      return
    case let array as [Any]:
      for element in array { try checkArchivable(element) }
    case let dictionary as [String: Any]:
      for element in dictionary.values { try checkArchivable(element) }
    case let set as Set<AnyHashable>:
      for element in set { try checkArchivable(element.base) }
    default:
      let transformer = type(of: self)
      guard transformer == SecureUnarchiveFromDataTransformer.self else {
        // A subclass the app registered: say what it allows, not to register one.
        throw ObjectGraphError(
          .managedObjectValidation,
          "A \(type(of: value)) cannot be stored by \(transformer), which takes property-list values and NSSecureCoding objects of its allowedTopLevelClasses (\(transformer.allowedTopLevelClasses.map { "\($0)" }.joined(separator: ", "))). Add the value's class to allowedTopLevelClasses (it must conform to NSSecureCoding)."
        )
      }
      throw ObjectGraphError(
        .managedObjectValidation,
        "A \(type(of: value)) cannot be stored by the secure unarchiving transformer, which takes strings, numbers, dates, data, URLs, UUIDs and arrays, sets and dictionaries of them. Give the attribute a valueTransformerName and register an AttributeValueTransformer for it (a subclass of SecureUnarchiveFromDataTransformer whose allowedTopLevelClasses names an NSSecureCoding class of yours, or a transformer of your own)."
      )
    }
  }
}
