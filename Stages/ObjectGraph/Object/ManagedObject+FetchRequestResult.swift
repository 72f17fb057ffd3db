import Foundation

/// A fetch request can return managed objects (`NSFetchRequest<Note>`).
extension NSManagedObject: NSFetchRequestResult {}
