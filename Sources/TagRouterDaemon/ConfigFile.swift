import FoundationEssentials
import Glibc
import SystemKit
import TagRouter

/// Finds and loads the config the daemon and `check-config` use: the file given,
/// else the first of `$CONFIGURATION_DIRECTORY/tagrouter.yaml` (set by systemd's
/// `ConfigurationDirectory=`), `./tagrouter.yaml`, `~/.config/tagrouter/tagrouter.yaml`,
/// `/etc/tagrouter/tagrouter.yaml`, else the default embedded in the binary; or a
/// text a host gives (a test).
public struct ConfigFile: Sendable {
    private enum Source: Sendable {
        case file(String)
        case text(String, name: String)
    }

    private let source: Source

    private init(source: Source) { self.source = source }

    public static let embeddedName = "embedded default"

    public static var searchPath: [String] {
        let environment = ProcessInfo.processInfo.environment
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        // systemd may list several directories, separated by colons.
        let systemd = (environment["CONFIGURATION_DIRECTORY"] ?? "").split(separator: ":").map { String($0) + "/tagrouter.yaml" }
        return systemd + ["./tagrouter.yaml", home + "/.config/tagrouter/tagrouter.yaml", "/etc/tagrouter/tagrouter.yaml"]
    }

    /// The file given (`--config`), which must be readable, else the first found on the search path, else the embedded default.
    public init(explicit: String?) throws(DaemonError) {
        if let explicit {
            if let reason = FileBytes.whyUnreadable(explicit) { throw .usage("cannot read the config file '\(explicit)': \(reason)") }
            source = .file(explicit)
        } else if let found = Self.searchPath.first(where: { FileManager.default.isReadableFile(atPath: $0) }) {
            source = .file(found)
        } else {
            source = .text(String(decoding: PackageResources.tagrouter_yaml, as: UTF8.self), name: Self.embeddedName)
        }
    }

    /// A config given as text, named `name` in its errors; relative paths in it start from the current directory.
    /// A reload loads the same text again.
    public init(text: String, name: String) {
        source = .text(text, name: name)
    }

    /// The file's path; nil for a text (the embedded default).
    public var path: String? {
        if case .file(let path) = source { return path }
        return nil
    }

    /// The same config, a file named by its absolute path (`absolutePath(from:)`, from the
    /// current directory): what the daemon reports (`status`, its log) names the file from any folder.
    public var absolute: ConfigFile {
        guard case .file(let path) = source else { return self }
        return ConfigFile(source: .file(path.absolutePath(from: FileManager.default.currentDirectoryPath)))
    }

    /// The path, or the text's name.
    public var name: String {
        switch source {
        case .file(let path): path
        case .text(_, let name): name
        }
    }

    /// Loads (again: SIGHUP reloads through here) and validates the config.
    public func load(_ loader: ConfigLoader) throws(ConfigErrors) -> RouterConfig {
        switch source {
        case .file(let path): try loader.load(file: path)
        case .text(let text, let name): try loader.load(text: text, file: name)
        }
    }

    /// How long the file must stay unchanged before a reload reads it, and how
    /// long a reload waits for that at most.
    static let settle = (microseconds: useconds_t(100_000), atMost: Duration.seconds(3))

    /// Loads the config again for a reload (SIGHUP, `tagrouter reload`), refusing
    /// what an editor or `cp` writing the file in place leaves half-written: the
    /// file is read until two reads `settle.microseconds` apart agree, an empty file is
    /// refused, and so is a change of `state_dir` (the spools stay where they are
    /// until a restart).
    public func reload(_ loader: ConfigLoader, running: RouterConfig) throws(ConfigErrors) -> RouterConfig {
        guard let path else { return try load(loader) }
        let start = SourceMark(file: path, line: 1, column: 1)
        let contents = try Self.settledContents(path)
        guard contents.contains(where: { ![UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains($0) }) else {
            throw ConfigErrors(mark: start, path: "", message: "the config file is empty (is it being saved?); a reload needs the whole config")
        }
        let next = try loader.load(contents: contents, file: path)
        guard next.stateDirectory == running.stateDirectory else {
            throw ConfigErrors(
                mark: start, path: "state_dir",
                message: "changes from \(running.stateDirectory) to \(next.stateDirectory); the spools stay where they are until tagrouter is restarted: restart it to move them")
        }
        return next
    }

    /// The file's bytes once two reads `settle.microseconds` apart agree. A FIFO
    /// (or any file that is not a regular one) is read once: a second read would
    /// wait for another writer, and nothing saves such a file in place.
    private static func settledContents(_ path: String) throws(ConfigErrors) -> [UInt8] {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            guard let contents = ConfigLoader.read(file: path) else { throw ConfigLoader.unreadable(path) }
            return contents
        }
        let clock = ContinuousClock()
        let deadline = clock.now + settle.atMost
        var previous = ConfigLoader.read(file: path)
        while true {
            usleep(settle.microseconds)
            let current = ConfigLoader.read(file: path)
            guard let contents = current else { throw ConfigLoader.unreadable(path) }
            if current == previous { return contents }
            guard clock.now < deadline else {
                throw ConfigErrors(
                    mark: SourceMark(file: path, line: 1, column: 1), path: "",
                    message: "the config file kept changing for \(settle.atMost) while it was read; reload once it is saved")
            }
            previous = current
        }
    }
}
