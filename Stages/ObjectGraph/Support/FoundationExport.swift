// `import ObjectGraph` brings Foundation with it, as `import CoreData` does on Apple platforms: code written
// for Core Data uses `Date`, `URL`, `UUID` and `NSPredicate` with no `import Foundation` of its own, and
// compiles here with the one import changed.
@_exported import Foundation
