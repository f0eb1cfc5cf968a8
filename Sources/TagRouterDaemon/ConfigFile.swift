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
    static let settle = (interval: Duration.milliseconds(100), atMost: Duration.seconds(3))

    /// Loads the config again for a reload (SIGHUP, `tagrouter reload`), refusing
    /// what an editor or `cp` writing the file in place leaves half-written: the
    /// file is read until two reads `settle.interval` apart agree, an empty file is
    /// refused, and so is a change of `state_dir` (the spools stay where they are
    /// until a restart). It holds no thread of Swift's pool: the reads and the load
    /// (which may read more files: tags, secrets) run on a thread of their own, and
    /// the waits between reads are `Task.sleep`.
    public func reload(_ loader: ConfigLoader, running: RouterConfig) async throws(ConfigErrors) -> RouterConfig {
        let next: RouterConfig
        if let path {
            let start = SourceMark(file: path, line: 1, column: 1)
            let contents = try await Self.settledContents(path)
            guard contents.contains(where: { ![UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains($0) }) else {
                throw ConfigErrors(mark: start, path: "", message: "the config file is empty (is it being saved?); a reload needs the whole config")
            }
            next = try await Self.onThread { () throws(ConfigErrors) in try loader.load(contents: contents, file: path) }
            guard next.stateDirectory == running.stateDirectory else {
                throw ConfigErrors(
                    mark: start, path: "state_dir",
                    message: "changes from \(running.stateDirectory) to \(next.stateDirectory); the spools stay where they are until tagrouter is restarted: restart it to move them")
            }
        } else {
            next = try await Self.onThread { () throws(ConfigErrors) in try load(loader) }
        }
        return next
    }

    /// The file's bytes once two reads `settle.interval` apart agree. A FIFO
    /// (or any file that is not a regular one) is read once: a second read would
    /// wait for another writer, and nothing saves such a file in place.
    private static func settledContents(_ path: String) async throws(ConfigErrors) -> [UInt8] {
        let regular = await DedicatedThread.value(name: "config read") {
            var info = stat()
            return stat(path, &info) != 0 || info.st_mode & S_IFMT == S_IFREG
        }
        guard regular else {
            guard let contents = await read(path) else { throw ConfigLoader.unreadable(path) }
            return contents
        }
        let clock = ContinuousClock()
        let deadline = clock.now + settle.atMost
        var previous = await read(path)
        while true {
            // A reload that waits here holds no thread; the daemon's shutdown does not wait for it (at most `settle.atMost`).
            try? await Task.sleep(for: settle.interval)
            let current = await read(path)
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

    /// The file's bytes, read on a thread of its own (a FIFO's read waits for its writer).
    private static func read(_ path: String) async -> [UInt8]? {
        await DedicatedThread.value(name: "config read") { ConfigLoader.read(file: path) }
    }

    /// Runs a load on a thread of its own: it reads files and builds the plugins.
    private static func onThread(_ load: @escaping @Sendable () throws(ConfigErrors) -> RouterConfig) async throws(ConfigErrors) -> RouterConfig {
        try await DedicatedThread.value(name: "config load") { Result { () throws(ConfigErrors) in try load() } }.get()
    }
}
