import Foundation
import ObjectGraph

/// A notebook: a name and its notes (deleting a notebook deletes its notes).
///
/// Laid out as Xcode's code generation writes it: the class here, its properties in
/// `Notebook+CoreDataProperties.swift`.
public class Notebook: NSManagedObject {}
