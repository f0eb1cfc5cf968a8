import Glibc
import SystemKit

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
                ? "'" + argument.replacing("'", with: "'\\''") + "'" : argument
        }.joined(separator: " ")
    }

    /// Why `path` cannot be a child's working directory (missing, not a
    /// directory, not searchable), or nil when it can: for checking a config at load.
    public static func problem(withWorkingDirectory path: String) -> ChildProcessError? {
        var info = stat()
        guard stat(path, &info) == 0 else { return .badWorkingDirectory(path: path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFDIR else { return .badWorkingDirectory(path: path, errno: ENOTDIR) }
        guard access(path, X_OK) == 0 else { return .badWorkingDirectory(path: path, errno: errno) }
        return nil
    }

    /// The first argument or environment name or value holding a NUL character,
    /// which C strings cannot carry; nil when there is none.
    func nulCharacter() -> ChildProcessError? {
        func position(_ text: String) -> Int? {
            text.unicodeScalars.firstIndex(of: "\0").map { text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: $0) + 1 }
        }
        for (index, argument) in arguments.enumerated() {
            if let at = position(argument) { return .nulCharacter(place: "argument \(index + 1)", position: at) }
        }
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) {
            if let at = position(name) { return .nulCharacter(place: "an environment variable's name", position: at) }
            if let at = position(value) { return .nulCharacter(place: "environment variable \(name)", position: at) }
        }
        return nil
    }

    /// The program to execute: `arguments[0]` when it holds a `/`, otherwise the
    /// first executable file of that name in the child's `PATH`.
    func resolvedProgram() throws(ChildProcessError) -> String {
        guard let program = arguments.first, !program.isEmpty else { throw .emptyCommand }
        if program.contains("/") { return program }
        let searchPath = environment["PATH"] ?? ExecutableSearch.defaultPath
        guard let found = ExecutableSearch.find(program, in: searchPath) else { throw .notFound(program: program, searchPath: searchPath) }
        return found
    }
}
