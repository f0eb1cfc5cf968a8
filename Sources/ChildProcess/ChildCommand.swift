import Foundation

/// What to start: the argument vector (never a shell string), the complete
/// environment the child sees, and the directory it starts in.
public struct ChildCommand: Sendable, Hashable, CustomStringConvertible {
    /// `arguments[0]` is the program: a path, or a name looked up in the
    /// `PATH` of `environment`. Each element reaches the program as one argument, verbatim.
    public var arguments: [String]
    /// The child's whole environment (nothing else is inherited).
    public var environment: [String: String]
    /// The directory the child starts in; nil keeps the daemon's.
    public var workingDirectory: String?

    public init(_ arguments: [String], environment: [String: String] = ChildCommand.inheritedEnvironment, workingDirectory: String? = nil) {
        self.arguments = arguments
        self.environment = environment
        self.workingDirectory = workingDirectory
    }

    /// The daemon's own environment, the usual base for a child's.
    public static var inheritedEnvironment: [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return result
    }

    /// The arguments as a person would type them, for log lines.
    public var description: String {
        arguments.map { argument in
            argument.contains(where: { $0 == " " || $0 == "'" || $0 == "\"" }) || argument.isEmpty
                ? "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'" : argument
        }.joined(separator: " ")
    }

    /// The program to execute: `arguments[0]` when it holds a `/`, otherwise the
    /// first executable file of that name in the child's `PATH`.
    func resolvedProgram() throws(ChildProcessError) -> String {
        guard let program = arguments.first, !program.isEmpty else { throw .emptyCommand }
        if program.contains("/") { return program }
        let searchPath = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in searchPath.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + program
            var info = stat()
            if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        throw .notFound(program: program, searchPath: searchPath)
    }
}
