import Foundation

/// The classes of the loaded Swift modules by their bare name, for a `representedClassName` that does not
/// name its module (`Note`, or Xcode's "current product module" form `.Note`).
///
/// On Apple platforms Core Data asks the Objective-C runtime for a class by name. Swift's own lookup,
/// `_typeByName`, needs the module (`NotesModel.Note`), so the engine reads, once, which modules declare
/// a class of each name: ``qualifiedNames(forBareName:)`` answers `["NotesModel.Note"]` for `"Note"`.
/// Only top-level, non-generic classes are listed (a nested or generic class has no name
/// `_typeByName` can find from a bare one); the caller keeps those that are ``EntityClass``es.
///
/// The table is made the first time it is asked for and covers the images loaded by then: an image
/// opened later with `dlopen` is not searched. Where the Swift runtime does not export the enumeration
/// (Apple platforms, where the metadata is found through the Mach-O loader), the table is empty.
enum SwiftClassLookup {
  /// The module-qualified names of the classes named `bareName`, sorted; empty when none has that name.
  static func qualifiedNames(forBareName bareName: String) -> [String] {
    table[bareName] ?? []
  }

  /// Bare class name -> sorted module-qualified names, read once.
  private static let table: [String: [String]] = {
    var found: [String: Set<String>] = [:]
    for (module, name) in SwiftTypeMetadata.topLevelClasses() {
      found[name, default: []].insert(module + "." + name)
    }
    return found.mapValues { $0.sorted() }
  }()
}

/// Reads the Swift runtime's type metadata records: the one place the engine reads memory the compiler
/// and the runtime lay out.
///
/// ## What it relies on
///
/// On ELF (and COFF) platforms every Swift image registers a `MetadataSections` structure with the
/// runtime when it is loaded, and `libswiftCore` exports `swift_enumerateAllMetadataSections` to walk
/// them (swift-testing finds its tests the same way). The structure (`swift/shims/MetadataSections.h`,
/// versions 1 to 5 so far, which only ever grew at the end) starts with four pointer-sized words
/// (version, base address, two unused) followed by `{start, length}` ranges, the third of which,
/// at word 8, is `swift5_type_metadata`: an array of 32-bit
/// relative pointers to type context descriptors, the low two bits telling direct (0) from indirect (1)
/// (and two Objective-C forms, skipped). A context descriptor (`swift/ABI/Metadata.h`) starts with
/// 32-bit flags (the kind in the low 5 bits: 0 module, 16 class; bit 7 generic) and a relative pointer
/// to its parent (low bit: indirect); a type's and a module's third field is a relative pointer to its
/// NUL-terminated name.
///
/// ## Why reading it is safe
///
/// Nothing here reads beyond what the runtime itself reads to answer `_typeByName` or `as?` casts:
/// the section ranges come from the runtime, every record in them points to a descriptor the compiler
/// emitted, and every descriptor's parent chain and name are read by the runtime's own name lookup.
/// The reader checks what it can before following anything: a version it does not know, a null
/// or misaligned range, a zero relative pointer, an
/// indirect pointer that holds null, each makes it skip the image or the record (finding nothing
/// rather than guessing). Only classes whose parent is a module descriptor are listed.
enum SwiftTypeMetadata {
  /// The `MetadataSections` versions whose first fields are laid out as above.
  static let knownVersions: ClosedRange<UInt> = 1...5
  /// Where the `swift5_type_metadata` range starts in `MetadataSections` (4 words, then 2 ranges of 2 words).
  private static let typeMetadataRangeOffset = 8 * MemoryLayout<UInt>.size

  /// The (module, name) of every top-level non-generic class of the loaded images.
  static func topLevelClasses() -> [(module: String, name: String)] {
    #if canImport(Darwin)
      return []
    #else
      let found = Found()
      withExtendedLifetime(found) {
        swiftEnumerateAllMetadataSections(
          { sections, context in
            let found = Unmanaged<Found>.fromOpaque(context).takeUnretainedValue()
            SwiftTypeMetadata.readImage(sections, into: found)
            return true
          }, Unmanaged.passUnretained(found).toOpaque())
      }
      return found.classes
    #endif
  }

  /// What the enumeration collects (a class, so that the C callback reaches it through its context).
  private final class Found {
    var classes: [(module: String, name: String)] = []
  }

  /// Reads the classes of one image's `swift5_type_metadata` section.
  private static func readImage(_ sections: UnsafeRawPointer, into found: Found) {
    guard knownVersions.contains(sections.load(as: UInt.self)) else { return }
    let start = sections.load(fromByteOffset: typeMetadataRangeOffset, as: UInt.self)
    let length = sections.load(fromByteOffset: typeMetadataRangeOffset + MemoryLayout<UInt>.size, as: UInt.self)
    guard let records = UnsafeRawPointer(bitPattern: start), length > 0, length % 4 == 0, start % 4 == 0 else { return }
    for index in 0..<Int(length / 4) {
      let record = records + index * 4
      let raw = record.loadUnaligned(as: Int32.self)
      let descriptor: UnsafeRawPointer
      switch raw & 3 {
      case 0:
        guard let direct = relative(record, raw) else { continue }
        descriptor = direct
      case 1:
        guard let slot = relative(record, raw & ~3), let indirect = UnsafeRawPointer(bitPattern: slot.loadUnaligned(as: UInt.self)) else {
          continue
        }
        descriptor = indirect
      default: continue  // an Objective-C class name or class reference
      }
      if let entry = topLevelClass(descriptor) { found.classes.append(entry) }
    }
  }

  /// The module and name of the class `descriptor` describes, when it is a non-generic class declared
  /// at the top level of a module.
  private static func topLevelClass(_ descriptor: UnsafeRawPointer) -> (module: String, name: String)? {
    let flags = descriptor.loadUnaligned(as: UInt32.self)
    guard flags & 0x1F == 16, flags & 0x80 == 0 else { return nil }  // a class, and not generic
    let parentField = descriptor + 4
    let parentRaw = parentField.loadUnaligned(as: Int32.self)
    let parent: UnsafeRawPointer
    if parentRaw & 1 == 0 {
      guard let direct = relative(parentField, parentRaw) else { return nil }
      parent = direct
    } else {
      guard let slot = relative(parentField, parentRaw & ~1), let indirect = UnsafeRawPointer(bitPattern: slot.loadUnaligned(as: UInt.self))
      else {
        return nil
      }
      parent = indirect
    }
    guard parent.loadUnaligned(as: UInt32.self) & 0x1F == 0 else { return nil }  // the parent is a module
    guard let name = string(at: descriptor + 8), let module = string(at: parent + 8) else { return nil }
    return (module, name)
  }

  /// The target of the 32-bit relative pointer `offset` stored at `field`; `nil` for 0 (null).
  private static func relative(_ field: UnsafeRawPointer, _ offset: Int32) -> UnsafeRawPointer? {
    offset == 0 ? nil : field + Int(offset)
  }

  /// The NUL-terminated UTF-8 name a relative pointer at `field` points to; `nil` when null or empty.
  private static func string(at field: UnsafeRawPointer) -> String? {
    guard let target = relative(field, field.loadUnaligned(as: Int32.self)) else { return nil }
    let text = String(cString: target.assumingMemoryBound(to: CChar.self))
    return text.isEmpty ? nil : text
  }
}

#if !canImport(Darwin)
  /// The Swift runtime's walk over the `MetadataSections` of every loaded image (`libswiftCore`, ELF and
  /// COFF platforms): calls `body` with each and `context`, while `body` answers `true`.
  @_silgen_name("swift_enumerateAllMetadataSections")
  private func swiftEnumerateAllMetadataSections(
    _ body: @convention(c) (_ sections: UnsafeRawPointer, _ context: UnsafeMutableRawPointer) -> Bool,
    _ context: UnsafeMutableRawPointer
  )
#endif
