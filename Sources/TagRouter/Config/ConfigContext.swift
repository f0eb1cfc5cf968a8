import Foundation

/// What a config is read against: the environment `{{env.NAME}}` sees and the
/// directory relative `*_file` paths start from.
public struct ConfigContext: Sendable {
    public var environment: [String: String]
    /// The directory of the config file.
    public var directory: String

    public init(environment: [String: String] = ProcessInfo.processInfo.environment, directory: String = FileManager.default.currentDirectoryPath) {
        self.environment = environment
        self.directory = directory
    }

    /// `path` made absolute against `directory` (`~/` expands to the home directory).
    public func resolve(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        if path.hasPrefix("~/") { return (environment["HOME"] ?? NSHomeDirectory()) + path.dropFirst(1) }
        return directory + "/" + path
    }
}
