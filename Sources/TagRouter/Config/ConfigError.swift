/// One problem in a config file, printed compiler style:
/// `tagrouter.yaml:14:9: routes[1].actions[0].mqtt.qos: expected 0, 1 or 2, got 3`.
/// A warning (`tagrouter.yaml:3:18: warning: …`) is printed but does not stop the load.
public struct ConfigError: Sendable, Hashable, CustomStringConvertible {
    public var mark: SourceMark
    /// The dotted path of the offending key (`routes[1].match.uri`), empty for the document.
    public var path: String
    public var message: String
    /// True for something that loads but will not do what the user expects.
    public var isWarning: Bool

    public init(mark: SourceMark, path: String, message: String, isWarning: Bool = false) {
        self.mark = mark
        self.path = path
        self.message = message
        self.isWarning = isWarning
    }

    public var description: String {
        let severity = isWarning ? "warning: " : ""
        return path.isEmpty ? "\(mark): \(severity)\(message)" : "\(mark): \(severity)\(path): \(message)"
    }
}

/// Every problem found while loading a config, all at once, in file order.
/// Thrown by the loader and by plugins validating their own options.
/// The warnings ride along: a load with warnings only succeeds and hands them on.
public struct ConfigErrors: Error, Sendable, CustomStringConvertible {
    public var errors: [ConfigError]
    /// What loads but deserves a look (a secret file not created yet, no routes).
    public var warnings: [ConfigError] = []

    public init(_ errors: [ConfigError] = []) { self.errors = errors }

    public init(mark: SourceMark, path: String, message: String) {
        self.errors = [ConfigError(mark: mark, path: path, message: message)]
    }

    /// True when there is no error (warnings do not count).
    public var isEmpty: Bool { errors.isEmpty }

    /// Files it under errors or warnings, by its `isWarning`.
    public mutating func append(_ error: ConfigError) {
        if error.isWarning { warnings.append(error) } else { errors.append(error) }
    }

    public mutating func append(contentsOf other: ConfigErrors) {
        errors.append(contentsOf: other.errors)
        warnings.append(contentsOf: other.warnings)
    }

    /// The errors and warnings, sorted by position.
    public var sorted: [ConfigError] {
        (errors + warnings).sorted { ($0.mark.file, $0.mark.line, $0.mark.column) < ($1.mark.file, $1.mark.line, $1.mark.column) }
    }

    /// "1 problem", "3 problems".
    public var countPhrase: String { errors.count == 1 ? "1 problem" : "\(errors.count) problems" }

    /// Problems printed at most: a hostile file can make thousands alike.
    public static let printedAtMost = 50

    /// The first `atMost` problems, sorted by position, each on its own line and
    /// cut to a line's length; then "… and N more" for the rest.
    public func lines(atMost: Int = printedAtMost) -> [String] {
        let all = sorted
        var lines = all.prefix(atMost).map { Self.cut($0.description) }
        if all.count > atMost { lines.append("… and \(all.count - atMost) more") }
        return lines
    }

    /// Problems quote values, and a value can be a megabyte long.
    private static func cut(_ line: String, at length: Int = 500) -> String {
        let scalars = line.unicodeScalars
        guard scalars.count > length else { return line }
        return String(String.UnicodeScalarView(scalars.prefix(length))) + "… (\(scalars.count - length) more characters)"
    }

    /// The problems (see `lines`), then a count.
    public var description: String {
        (lines() + [countPhrase]).joined(separator: "\n")
    }
}
