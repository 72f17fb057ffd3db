import Foundation
import ObjectGraph

/// A tag, shared by any number of notes.
///
/// Laid out as Xcode's code generation writes it: the class here, its properties in
/// `Tag+CoreDataProperties.swift`.
public class Tag: NSManagedObject {}
