import Foundation

/// What a fetch can return: Core Data's `NSFetchRequestResult`. An ``NSFetchRequest`` is generic over it:
/// `NSFetchRequest<Note>` for objects, `NSFetchRequest<NSManagedObjectID>` for IDs, `NSFetchRequest<NSDictionary>`
/// (or `NSFetchRequest<[String: Any]>`) for dictionaries of chosen properties, `NSFetchRequest<NSNumber>` for
/// a count.
public protocol NSFetchRequestResult {}

extension NSManagedObjectID: NSFetchRequestResult {}
extension NSDictionary: NSFetchRequestResult {}
extension NSNumber: NSFetchRequestResult {}
extension Dictionary: NSFetchRequestResult where Key == String, Value == Any {}
