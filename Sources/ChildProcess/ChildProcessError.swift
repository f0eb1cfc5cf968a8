import Glibc

/// A child could not be started; the message says what to fix.
public enum ChildProcessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The argument vector is empty or its program is an empty string.
    case emptyCommand
    /// No executable of that name in any directory of the search path.
    case notFound(program: String, searchPath: String)
    /// The system refused to start the program (`errno` from `posix_spawn`).
    case spawnFailed(program: String, errno: Int32)
    /// A pipe could not be made (`errno`), usually because the process ran out of file descriptors.
    case pipeFailed(errno: Int32)
    /// `workingDirectory` was given but this C library cannot change it for a spawned child.
    case workingDirectoryUnsupported
    /// `workingDirectory` is not a directory the daemon can enter (`errno`).
    case badWorkingDirectory(path: String, errno: Int32)
    /// An argument or environment value holds a NUL character (from a tag's text,
    /// say); a C string ends there, so the child would see the value cut short.
    /// `place` is `argument 2` or `environment variable TAG_TEXT`; `position` counts characters from 1.
    case nulCharacter(place: String, position: Int)

    public var description: String {
        switch self {
        case .emptyCommand:
            return "the command is empty: give the program as the first element"
        case .notFound(let program, let searchPath):
            return "command not found: '\(program)' is in no directory of PATH=\(searchPath); give its full path"
        case .spawnFailed(let program, let code):
            return "cannot start '\(program)': \(String(cString: strerror(code)))"
        case .pipeFailed(let code):
            return "cannot make a pipe to the child: \(String(cString: strerror(code)))"
        case .badWorkingDirectory(let path, let code):
            return "cannot run in '\(path)': \(String(cString: strerror(code)))"
        case .nulCharacter(let place, let position):
            return "\(place) holds a NUL character at character \(position); it would be cut short there, so the command is not run"
        case .workingDirectoryUnsupported:
            return "this C library has no posix_spawn_file_actions_addchdir_np, so 'cwd' cannot be set"
        }
    }
}
