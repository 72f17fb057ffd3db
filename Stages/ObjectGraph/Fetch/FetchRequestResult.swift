import Foundation

/// What a fetch can return: Core Data's `NSFetchRequestResult`. A ``FetchRequest`` is generic over it:
/// `FetchRequest<Note>` for objects, `FetchRequest<ManagedObjectID>` for IDs, `FetchRequest<NSDictionary>`
/// (or `FetchRequest<[String: Any]>`) for dictionaries of chosen properties, `FetchRequest<NSNumber>` for
/// a count.
public protocol FetchRequestResult {}

extension ManagedObjectID: FetchRequestResult {}
extension NSDictionary: FetchRequestResult {}
extension NSNumber: FetchRequestResult {}
extension Dictionary: FetchRequestResult where Key == String, Value == Any {}
