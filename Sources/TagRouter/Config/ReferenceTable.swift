import FoundationEssentials

/// The config reference in Markdown, generated from the same specs that
/// validate configs: one table (key, type, default, meaning) per section, for
/// the top level, readers, routes, matches, the options every action has, and
/// each plugin's section and action. docs/guide/reference.md is this text; the
/// README carries its index (`index(_:page:)`), one link per top-level section.
public enum ReferenceTable {
    /// One section's table, and whether the index lists it.
    private struct Table {
        var title: String
        var summary: String
        var indexed: Bool
        var text: String
    }

    public static func markdown(_ loader: ConfigLoader) -> String {
        tables(loader).map(\.text).joined(separator: "\n\n") + "\n"
    }

    /// A list of links to the top-level sections of the reference at `page`, each with its summary.
    public static func index(_ loader: ConfigLoader, page: String) -> String {
        tables(loader).filter(\.indexed).map { table in
            "- [\(table.title)](\(page)#\(anchor(table.title)))" + (table.summary.isEmpty ? "" : ": \(table.summary)")
        }.joined(separator: "\n") + "\n"
    }

    private static func tables(_ loader: ConfigLoader) -> [Table] {
        var tables: [Table] = []
        append(loader.spec, title: "top level", path: "", depth: -1, skip: Set(loader.registry.plugins.map { $0.name }), to: &tables)
        append(TagEntry.spec, title: "`tags[]`", path: "tags[]", to: &tables)
        append(OptionSpec("options every action accepts besides its own", DeliveryPolicy.options), title: "every action", path: "<action>", to: &tables)
        for source in loader.registry.sources {
            append(source.spec, title: "`- \(source.name)` input", path: "inputs[].\(source.name)", to: &tables)
        }
        for plugin in loader.registry.plugins {
            if let section = plugin.sectionSpec { append(section, title: "`\(plugin.name):` section", path: plugin.name, to: &tables) }
            append(plugin.actionSpec, title: "`- \(plugin.name)` action", path: "- \(plugin.name)", to: &tables)
        }
        return tables
    }

    /// Appends the table of `spec` and those of its nested sections; the index lists tables up to depth 0
    /// (the top level starts at -1, so its own sections are listed too).
    private static func append(_ spec: OptionSpec, title: String, path: String, depth: Int = 0, skip: Set<String> = [], to tables: inout [Table]) {
        let summary = spec.summary.isEmpty ? "" : spec.summary.prefix(1).uppercased() + spec.summary.dropFirst() + (spec.scalarOption.map { "; a lone value sets `\($0)`" } ?? "") + "."
        var lines = ["#### \(title)", ""]
        if !summary.isEmpty { lines += [summary, ""] }
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
        tables.append(Table(title: title, summary: summary, indexed: depth <= 0, text: lines.joined(separator: "\n")))
        for (inner, innerTitle, innerPath) in nested { append(inner, title: innerTitle, path: innerPath, depth: depth + 1, to: &tables) }
    }

    /// The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens.
    private static func anchor(_ title: String) -> String {
        String(title.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == " " }.map { $0 == " " ? "-" : $0 })
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
