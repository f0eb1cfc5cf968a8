/// The action plugins a config may use, by name. The executable lists the
/// built-in ones in one place; tests build registries of their own.
public struct PluginRegistry: Sendable {
    public let plugins: [any ActionPlugin.Type]

    public init(_ plugins: [any ActionPlugin.Type]) {
        var seen: Set<String> = []
        self.plugins = plugins.filter { seen.insert($0.name).inserted }
    }

    public subscript(name: String) -> (any ActionPlugin.Type)? {
        plugins.first { $0.name == name }
    }

    public var names: [String] { plugins.map { $0.name } }
}
