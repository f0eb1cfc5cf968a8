import FoundationEssentials

/// The config reference in Markdown, generated from the same specs that
/// validate configs: one table (key, type, default, meaning) per section, for
/// the top level, readers, routes, matches, the options every action has, and
/// each plugin's section and action. The README's reference is this text.
public enum ReferenceTable {
    public static func markdown(_ loader: ConfigLoader) -> String {
        var tables: [String] = []
        append(loader.spec, title: "top level", path: "", skip: Set(loader.registry.plugins.map { $0.name }), to: &tables)
        append(TagEntry.spec, title: "`tags[]`", path: "tags[]", to: &tables)
        append(OptionSpec("options every action accepts besides its own", DeliveryPolicy.options), title: "every action", path: "<action>", to: &tables)
        for source in loader.registry.sources {
            append(source.spec, title: "`- \(source.name)` input", path: "inputs[].\(source.name)", to: &tables)
        }
        for plugin in loader.registry.plugins {
            if let section = plugin.sectionSpec { append(section, title: "`\(plugin.name):` section", path: plugin.name, to: &tables) }
            append(plugin.actionSpec, title: "`- \(plugin.name)` action", path: "- \(plugin.name)", to: &tables)
        }
        return tables.joined(separator: "\n\n") + "\n"
    }

    private static func append(_ spec: OptionSpec, title: String, path: String, skip: Set<String> = [], to tables: inout [String]) {
        var lines = ["#### \(title)", ""]
        if !spec.summary.isEmpty { lines += [spec.summary.prefix(1).uppercased() + spec.summary.dropFirst() + (spec.scalarOption.map { "; a lone value sets `\($0)`" } ?? "") + ".", ""] }
        lines += ["| key | type | default | meaning |", "| --- | --- | --- | --- |"]
        var nested: [(OptionSpec, String, String)] = []
        for option in spec.options where !skip.contains(option.name) {
            let key = path.isEmpty ? option.name : "\(path).\(option.name)"
            let defaultText = option.required ? "required" : option.defaultValue.map { "`\($0)`" } ?? "—"
            lines.append("| `\(key)` | \(option.type.displayName) | \(escape(defaultText)) | \(escape(option.meaning)) |")
            switch option.type {
            case .section(let inner): nested.append((inner, "`\(key)`", key))
            case .list(.section(let inner)): nested.append((inner, "`\(key)[]`", key + "[]"))
            default: break
            }
        }
        tables.append(lines.joined(separator: "\n"))
        for (inner, innerTitle, innerPath) in nested { append(inner, title: innerTitle, path: innerPath, to: &tables) }
    }

    private static func escape(_ text: String) -> String {
        var escaped = ""
        var inCode = false
        for character in text {
            if character == "`" { inCode.toggle() }
            escaped += character == "|" && !inCode ? "\\|" : String(character)
        }
        return escaped.replacing("\n", with: " ")
    }
}
