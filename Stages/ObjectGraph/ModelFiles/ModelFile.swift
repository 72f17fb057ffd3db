import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reading the bytes of a model or mapping file, the one way every loader does it: an error names the file,
/// what it is and what to do.
///
/// Only a regular file (or a symbolic link to one) is read. A named pipe is never opened for reading as a
/// file is: its `open` blocks until another process writes to it, so a model path that names one would hang
/// the app's launch. A socket, a device (`/dev/zero` would be read forever) or a folder is refused as well,
/// saying what it is.
enum ModelFile {
  /// The file's bytes.
  /// - Parameters:
  ///   - file: the file.
  ///   - what: what it is, as the message names it ("the Xcode model file").
  ///   - remedy: what to do when it cannot be read, as a sentence.
  /// - Throws: ``ObjectGraphModelInvalidError`` naming the file and the reason: it is not a regular file
  ///   (``requireRegularFile(_:what:)``), or it cannot be read.
  static func read(_ file: URL, what: String, remedy: String) throws -> Data {
    try requireRegularFile(file, what: what)
    func unreadable(_ reason: String) -> ObjectGraphError {
      ObjectGraphError(.modelInvalid, "Cannot read \(what) '\(file.path)': \(reason). \(remedy)", url: file)
    }
    // Opened without blocking and checked again once open: a pipe put at the path after the check above is
    // refused too, never waited on.
    let descriptor = open(file.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { throw unreadable(String(cString: strerror(errno))) }
    let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { throw unreadable(String(cString: strerror(errno))) }
    if let kind = kind(mode: status.st_mode) {
      throw notAFile(file, what: what, kind: kind)
    }
    do {
      return try handle.readToEnd() ?? Data()
    } catch {
      throw unreadable(error.localizedDescription)
    }
  }

  /// Refuses a path that names something other than a regular file (after following symbolic links): a
  /// named pipe, a socket, a device or a folder. A path where nothing is, or that cannot be looked at, is
  /// left to the caller's read, whose error says so.
  /// - Parameters:
  ///   - file: the path.
  ///   - what: what it should be, as the message names it ("the Xcode model file").
  /// - Throws: ``ObjectGraphModelInvalidError`` naming the path and what is there.
  static func requireRegularFile(_ file: URL, what: String) throws {
    guard let kind = kind(of: file) else { return }
    throw notAFile(file, what: what, kind: kind)
  }

  /// What is at `url`, in words ("a named pipe"), when it is not a regular file; `nil` for a regular file or when
  /// nothing can be looked at there.
  static func kind(of url: URL) -> String? {
    var status = stat()
    guard stat(url.path, &status) == 0 else { return nil }
    return kind(mode: status.st_mode)
  }

  /// What a file of mode `mode` is, in words ("a named pipe"), or `nil` for a regular file.
  static func kind(mode: mode_t) -> String? {
    switch mode & S_IFMT {
    case S_IFREG: nil
    case S_IFIFO: "a named pipe (FIFO)"
    case S_IFSOCK: "a socket"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    case S_IFDIR: "a folder"
    default: "not a regular file"
    }
  }

  private static func notAFile(_ file: URL, what: String, kind: String) -> ObjectGraphError {
    let pipeNote =
      kind.hasPrefix("a named pipe") ? ", and never opens a pipe (reading one waits until another process writes to it)" : ""
    return ObjectGraphError(
      .modelInvalid,
      "'\(file.path)' is \(kind), not a model file: ObjectGraph reads \(what) only from a regular file\(pipeNote). "
        + "Pass the path of the file itself.",
      url: file)
  }
}
