import FoundationEssentials

/// What a config is read against: the environment `{{env.NAME}}` sees and the
/// directory relative `*_file` paths start from.
public struct ConfigContext: Sendable {
    public var environment: [String: String]
    /// The directory of the config file.
    public var directory: String
    /// True for `check-config`: a secret not provided yet (an unreadable `*_file`,
    /// an unset `{{env.NAME}}`) is a warning and a placeholder stands in for it;
    /// false for `run`, which cannot work without it.
    public var missingSecretsAreWarnings: Bool

    public init(environment: [String: String] = ProcessInfo.processInfo.environment, directory: String = FileManager.default.currentDirectoryPath,
                missingSecretsAreWarnings: Bool = false) {
        self.environment = environment
        self.directory = directory
        self.missingSecretsAreWarnings = missingSecretsAreWarnings
    }

    /// `text` as a template over this environment.
    public func template(_ text: String) throws(TemplateError) -> Template {
        try Template(text, environment: environment, unsetEnvironment: missingSecretsAreWarnings ? .placeholder : .fail)
    }

    /// `path` made absolute against `directory` (`~/` expands to the home directory).
    public func resolve(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        if path.hasPrefix("~/") { return (environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + path.dropFirst(1) }
        return directory + "/" + path
    }
}
