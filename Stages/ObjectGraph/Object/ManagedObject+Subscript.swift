import Foundation

extension NSManagedObject {
  /// The value of a property by name, read and set as ``value(forKey:)`` and ``setValue(_:forKey:)`` do (Core
  /// Data's subscript): `note["title"] = "Milk"`. An unknown key stops the program as those do.
  public subscript(key: String) -> Any? {
    get { value(forKey: key) }
    set { setValue(newValue, forKey: key) }
  }
}
