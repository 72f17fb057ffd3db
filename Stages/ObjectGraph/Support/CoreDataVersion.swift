/// The version of Core Data the running process has (Core Data's `NSCoreDataVersionNumber`), for code that
/// checks it before using newer API: `if NSCoreDataVersionNumber >= NSCoreDataVersionNumber_iPhoneOS_9_0 { … }`.
///
/// Apple's named versions stop at macOS 10.11.3 and iOS 9.3 (below 700), and Apple publishes no number for a
/// later release. The engine carries the API of today's Core Data (staged migration, composite attributes),
/// so every check against one of Apple's named versions must pass: its number, 1000, is above all of them.
/// Ask for a feature by trying it, not by this number.
public let NSCoreDataVersionNumber: Double = 1000
