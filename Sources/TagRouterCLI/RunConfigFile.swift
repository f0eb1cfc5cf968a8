import FoundationEssentials
import TagRouter

/// Finds and loads the config `run` and `check-config` use: the file given,
/// else the first of `$CONFIGURATION_DIRECTORY/tagrouter.yaml` (set by systemd's
/// `ConfigurationDirectory=`), `./tagrouter.yaml`, `~/.config/tagrouter/tagrouter.yaml`,
/// `/etc/tagrouter/tagrouter.yaml`, else the default embedded in the binary.
struct RunConfigFile {
    /// The path, or nil for the embedded default.
    let path: String?

    static let embeddedName = "embedded default"

    static var searchPath: [String] {
        let environment = ProcessInfo.processInfo.environment
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        // systemd may list several directories, separated by colons.
        let systemd = (environment["CONFIGURATION_DIRECTORY"] ?? "").split(separator: ":").map { String($0) + "/tagrouter.yaml" }
        return systemd + ["./tagrouter.yaml", home + "/.config/tagrouter/tagrouter.yaml", "/etc/tagrouter/tagrouter.yaml"]
    }

    init(explicit: String?) throws(CLIError) {
        if let explicit {
            guard FileManager.default.isReadableFile(atPath: explicit) else { throw .usage("cannot read the config file '\(explicit)'") }
            path = explicit
        } else {
            path = Self.searchPath.first { FileManager.default.isReadableFile(atPath: $0) }
        }
    }

    var name: String { path ?? Self.embeddedName }

    /// Loads (again: SIGHUP reloads through here) and validates the config.
    func load(_ loader: ConfigLoader) throws(ConfigErrors) -> RouterConfig {
        if let path { return try loader.load(file: path) }
        return try loader.load(text: String(decoding: PackageResources.tagrouter_yaml, as: UTF8.self), file: Self.embeddedName)
    }

    /// Loads or fails with every problem on stderr and the exit status for bad data;
    /// warnings go to stderr either way.
    func loadOrExit(_ loader: ConfigLoader) throws(CLIError) -> RouterConfig {
        do {
            let config = try load(loader)
            for warning in config.warnings { printToStderr(warning.description) }
            return config
        } catch {
            for problem in error.sorted { printToStderr(problem.description) }
            throw .data("\(name): the config has \(error.countPhrase)")
        }
    }
}
