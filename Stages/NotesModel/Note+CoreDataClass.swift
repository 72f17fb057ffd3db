import Foundation
import ObjectGraph

/// A note: a required title, an optional body, dates, maybe a notebook, any number of tags.
///
/// Laid out as Xcode's code generation writes it: the class here, its properties in
/// `Note+CoreDataProperties.swift`.
public class Note: NSManagedObject {}
