/// One table of the config reference: a section, an input or an action with its
/// keys, in the order the reference shows them. `all` walks the same specs that
/// validate configs, so the README's table (`ReferenceTable`) and the
/// tagrouter.yaml(5) page (`ConfigManPage`) cannot drift from them or each other.
public struct ReferenceSection: Sendable {
    /// One key: its full path (`routes[].match.uid`), its type as the reference
    /// names it, and its default (nil: none) or whether it must be given.
    public struct Row: Sendable {
        public var key: String
        public var type: String
        public var defaultValue: String?
        public var required: Bool
        public var meaning: String
    }

    /// The heading, in Markdown (`` `tags[]` ``, `` `- mqtt` action ``).
    public var title: String
    /// One sentence on what the section is for; empty when the spec has none.
    public var summary: String
    public var rows: [Row]
    /// How deep it is nested: the top level is -1, its own sections and every other table 0, a
    /// section inside one of those 1, and so on (the README's index lists those up to 0).
    public var depth: Int

    /// Every table: the top level, `tags[]`, the options every action has, each
    /// input, each plugin's section and action; a nested section follows its parent.
    public static func all(_ loader: ConfigLoader) -> [ReferenceSection] {
        var sections: [ReferenceSection] = []
        append(loader.spec, title: "top level", path: "", depth: -1, skip: Set(loader.registry.plugins.map { $0.name }), to: &sections)
        append(TagEntry.spec, title: "`tags[]`", path: "tags[]", to: &sections)
        append(OptionSpec("options every action accepts besides its own", DeliveryPolicy.options), title: "every action", path: "<action>", to: &sections)
        for source in loader.registry.sources {
            append(source.spec, title: "`- \(source.name)` input", path: "inputs[].\(source.name)", to: &sections)
        }
        for plugin in loader.registry.plugins {
            if let section = plugin.sectionSpec { append(section, title: "`\(plugin.name):` section", path: plugin.name, to: &sections) }
            append(plugin.actionSpec, title: "`- \(plugin.name)` action", path: "- \(plugin.name)", to: &sections)
        }
        return sections
    }

    private static func append(_ spec: OptionSpec, title: String, path: String, depth: Int = 0, skip: Set<String> = [], to sections: inout [ReferenceSection]) {
        var summary = ""
        if !spec.summary.isEmpty {
            summary = spec.summary.prefix(1).uppercased() + spec.summary.dropFirst() + (spec.scalarOption.map { "; a lone value sets `\($0)`" } ?? "") + "."
        }
        var rows: [Row] = []
        var nested: [(OptionSpec, String, String)] = []
        for option in spec.options where !skip.contains(option.name) {
            let key = path.isEmpty ? option.name : "\(path).\(option.name)"
            rows.append(Row(key: key, type: option.type.displayName, defaultValue: option.defaultValue, required: option.required, meaning: option.meaning))
            switch option.type {
            case .section(let inner): nested.append((inner, "`\(key)`", key))
            case .list(.section(let inner)): nested.append((inner, "`\(key)[]`", key + "[]"))
            default: break
            }
        }
        sections.append(ReferenceSection(title: title, summary: summary, rows: rows, depth: depth))
        for (inner, innerTitle, innerPath) in nested { append(inner, title: innerTitle, path: innerPath, depth: depth + 1, to: &sections) }
    }
}
