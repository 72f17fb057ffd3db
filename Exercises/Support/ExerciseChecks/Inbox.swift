import ObjectGraph

/// A small model of a notes app, in code, for the checks of exercises 07 and 08: its `priority` is text in the
/// app's first version and a number in the version after it, a change no lightweight migration can infer, in
/// either direction.
public enum Inbox {
  /// The model with `priority` of the given type: `.string` for version 1, `.integer16` for version 2.
  public static func model(priority type: NSAttributeDescription.AttributeType) -> NSManagedObjectModel {
    let title = NSAttributeDescription()
    title.name = "title"
    title.type = .string
    title.isOptional = false
    title.defaultValue = ""
    let priority = NSAttributeDescription()
    priority.name = "priority"
    priority.type = type
    let note = NSEntityDescription()
    note.name = "Note"
    note.properties = [title, priority]
    let model = NSManagedObjectModel()
    model.entities = [note]
    return model
  }
}
