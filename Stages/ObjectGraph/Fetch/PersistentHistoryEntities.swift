import Foundation

/// The entities of history transactions and changes, which Core Data describes so that a fetch request can
/// narrow a history request: not part of any model, never stored as rows (history has tables of its own).
enum HistoryEntities {
  /// An entity named `name` with one optional attribute per key a predicate may use.
  static func entity(named name: String, attributes: [(String, NSAttributeType)]) -> NSEntityDescription {
    NSEntityDescription(
      name: name,
      properties: attributes.map { key, type in
        NSAttributeDescription(name: key, type: NSAttributeDescription.AttributeType(rawValue: type))
      })
  }

  /// A fetch request of one of these entities.
  static func fetchRequest(of entity: NSEntityDescription?) -> NSFetchRequest<any NSFetchRequestResult>? {
    guard let entity, let name = entity.name else { return nil }
    let request = NSFetchRequest<any NSFetchRequestResult>(entityName: name)
    request.entity = entity
    return request
  }
}
