/// The config reference in Markdown, generated from the same specs that
/// validate configs: one table (key, type, default, meaning) per section, for
/// the top level, readers, routes, matches, the options every action has, and
/// each plugin's section and action. docs/guide/reference.md is this text; the
/// README carries its index (`index(_:page:)`), one link per top-level section.
public enum ReferenceTable {
    public static func markdown(_ loader: ConfigLoader) -> String {
        ReferenceSection.all(loader).map(table).joined(separator: "\n\n") + "\n"
    }

    /// A list of links to the top-level sections of the reference at `page`, each with its summary.
    public static func index(_ loader: ConfigLoader, page: String) -> String {
        ReferenceSection.all(loader).filter { $0.depth <= 0 }.map { section in
            "- [\(section.title)](\(page)#\(anchor(section.title)))" + (section.summary.isEmpty ? "" : ": \(section.summary)")
        }.joined(separator: "\n") + "\n"
    }

    private static func table(_ section: ReferenceSection) -> String {
        var lines = ["#### \(section.title)", ""]
        if !section.summary.isEmpty { lines += [section.summary, ""] }
        lines += ["| key | type | default | meaning |", "| --- | --- | --- | --- |"]
        for row in section.rows {
            let defaultText = row.required ? "required" : row.defaultValue.map { "`\($0)`" } ?? "—"
            lines.append("| `\(row.key)` | \(escape(row.type)) | \(escape(defaultText)) | \(escape(row.meaning)) |")
        }
        return lines.joined(separator: "\n")
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
