/// One problem in a config file, printed compiler style:
/// `tagrouter.yaml:14:9: routes[1].actions[0].mqtt.qos: expected 0, 1 or 2, got 3`.
public struct ConfigError: Sendable, Hashable, CustomStringConvertible {
    public var mark: SourceMark
    /// The dotted path of the offending key (`routes[1].match.uri`), empty for the document.
    public var path: String
    public var message: String

    public init(mark: SourceMark, path: String, message: String) {
        self.mark = mark
        self.path = path
        self.message = message
    }

    public var description: String {
        path.isEmpty ? "\(mark): \(message)" : "\(mark): \(path): \(message)"
    }
}

/// Every problem found while loading a config, all at once, in file order.
/// Thrown by the loader and by plugins validating their own options.
public struct ConfigErrors: Error, Sendable, CustomStringConvertible {
    public var errors: [ConfigError]

    public init(_ errors: [ConfigError] = []) { self.errors = errors }

    public init(mark: SourceMark, path: String, message: String) {
        self.errors = [ConfigError(mark: mark, path: path, message: message)]
    }

    public var isEmpty: Bool { errors.isEmpty }

    public mutating func append(_ error: ConfigError) { errors.append(error) }

    public mutating func append(contentsOf other: ConfigErrors) { errors.append(contentsOf: other.errors) }

    /// The problems sorted by position.
    public var sorted: [ConfigError] {
        errors.sorted { ($0.mark.file, $0.mark.line, $0.mark.column) < ($1.mark.file, $1.mark.line, $1.mark.column) }
    }

    /// "1 problem", "3 problems".
    public var countPhrase: String { errors.count == 1 ? "1 problem" : "\(errors.count) problems" }

    /// Every problem on its own line, sorted by position, then a count.
    public var description: String {
        (sorted.map(\.description) + [countPhrase]).joined(separator: "\n")
    }
}
