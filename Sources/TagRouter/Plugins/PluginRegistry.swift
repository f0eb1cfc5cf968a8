/// The plugins a config may use, by name: action plugins (`- <name>` in a
/// route's actions) and source plugins (`- <name>` in `inputs:`), and the
/// reader kinds its `readers:` may name by their `device:`. The
/// executable lists the built-in ones in one place; tests build registries of
/// their own.
public struct PluginRegistry: Sendable {
    public let plugins: [any ActionPlugin.Type]
    public let sources: [any SourcePlugin.Type]
    /// The reader kinds (TagReader's drivers); none: `readers:` entries get only the common checks.
    public let readers: ReaderKinds

    public init(_ plugins: [any ActionPlugin.Type], sources: [any SourcePlugin.Type] = [], readers: ReaderKinds = ReaderKinds([])) {
        self.readers = readers
        var seen: Set<String> = []
        self.plugins = plugins.filter { seen.insert($0.name).inserted }
        var seenSources: Set<String> = []
        self.sources = sources.filter { seenSources.insert($0.name).inserted }
        assert(invalidDefaults.isEmpty, "plugin specs declare defaults that are not valid values: \(invalidDefaults)")
    }

    public subscript(name: String) -> (any ActionPlugin.Type)? {
        plugins.first { $0.name == name }
    }

    /// The source plugin named `name`.
    public func source(named name: String) -> (any SourcePlugin.Type)? {
        sources.first { $0.name == name }
    }

    public var names: [String] { plugins.map { $0.name } }
}
