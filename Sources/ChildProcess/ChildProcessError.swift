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
        case .workingDirectoryUnsupported:
            return "this C library has no posix_spawn_file_actions_addchdir_np, so 'cwd' cannot be set"
        }
    }
}
