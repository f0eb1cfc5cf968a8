/// The config reference in Markdown, generated from the same specs that
/// validate configs: one table (key, type, default, meaning) per section, for
/// the top level, readers, routes, matches, the options every action has, and
/// each plugin's section and action. The README's reference is this text.
public enum ReferenceTable {
    public static func markdown(_ loader: ConfigLoader) -> String {
        ReferenceSection.all(loader).map(table).joined(separator: "\n\n") + "\n"
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
