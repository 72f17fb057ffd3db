import Foundation
import ObjectGraph

/// A file attached to a note (new in version 2 of the model).
///
/// Laid out as Xcode's code generation writes it: the class here, its properties in
/// `Attachment+CoreDataProperties.swift`.
public class Attachment: NSManagedObject {}
