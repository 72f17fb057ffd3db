import Foundation

/// What the model's classes share when they archive themselves (`NSSecureCoding`): reading typed values
/// back from a coder, and failing a decode with a message instead of stopping the program.
///
/// Every value is asked for among the property-list classes (strings, numbers, arrays, dictionaries, data,
/// dates) and then checked for its Swift type, so a value of the wrong kind makes the decode fail rather
/// than Foundation stop the program: Linux's Foundation stops it when a secure unarchiver meets a class it
/// was not allowed, where Apple's reports an error.
enum ArchiveCoding {
  /// The property-list classes every decode allows.
  static let valueClasses: [AnyClass] = [
    NSString.self, NSNumber.self, NSArray.self, NSDictionary.self, NSData.self, NSDate.self,
  ]
}

extension NSCoder {
  /// Encodes `text` under `key`, or nothing when it is `nil`.
  func encodeText(_ text: String?, forKey key: String) {
    if let text { encode(NSString(string: text), forKey: key) }
  }

  /// The string under `key`, or `nil` when there is none (or it is not a string).
  func decodeText(forKey key: String) -> String? {
    decodeValue(forKey: key) as? String
  }

  /// The property-list value under `key` (a string, number, array or dictionary of them, data, date).
  /// `nil` when there is none: asking for a missing key would set the unarchiver's error.
  func decodeValue(forKey key: String) -> Any? {
    guard containsValue(forKey: key) else { return nil }
    return decodeObject(of: ArchiveCoding.valueClasses, forKey: key)
  }

  /// Encodes strings as an array.
  func encodeTexts(_ texts: [String], forKey key: String) {
    encode(NSArray(array: texts.map { NSString(string: $0) }), forKey: key)
  }

  /// The array of strings under `key`: empty when there is none, `nil` when it holds something else.
  func decodeTexts(forKey key: String) -> [String]? {
    guard containsValue(forKey: key) else { return [] }
    return decodeValue(forKey: key) as? [String]
  }

  /// Encodes a dictionary of strings (user info).
  func encodeTextDictionary(_ dictionary: [String: String], forKey key: String) {
    let archived = NSMutableDictionary()
    for (name, value) in dictionary { archived[NSString(string: name)] = NSString(string: value) }
    encode(archived, forKey: key)
  }

  /// The dictionary of strings under `key`: empty when there is none, `nil` when it holds something else.
  func decodeTextDictionary(forKey key: String) -> [String: String]? {
    guard containsValue(forKey: key) else { return [:] }
    return decodeValue(forKey: key) as? [String: String]
  }

  /// The archived objects of class `type` under `key`, in order: empty when there are none, `nil` when the
  /// array holds something else or one of them failed to decode.
  func decodeArchivedObjects<T: NSObject>(of type: T.Type, forKey key: String) -> [T]? {
    guard containsValue(forKey: key) else { return [] }
    guard let array = decodeObject(of: [NSArray.self, type], forKey: key) as? NSArray else { return nil }
    var objects: [T] = []
    for element in array {
      guard let object = element as? T else { return nil }
      objects.append(object)
    }
    return objects
  }

  /// Fails the decode of `what`: the unarchiver's `error` becomes an ``ObjectGraphError`` (`coderReadCorrupt`)
  /// saying what was wrong, when the unarchiver reports errors (`NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`
  /// and the `unarchiveTopLevelObjectWithData` family set it so); the caller then returns `nil`.
  func failDecoding(_ what: String, _ problem: String) {
    guard error == nil, decodingFailurePolicy == .setErrorAndReturn else { return }
    failWithError(
      ObjectGraphError(
        .coderReadCorrupt,
        "The archive of \(what) cannot be read: \(problem). Archive it again with NSKeyedArchiver from this version of ObjectGraph."
      ))
  }
}
