import DaemonControl
import FoundationEssentials
import Glibc
import OrderedJSON
import SystemKit
import TagCore
import TagRouter

/// The list of named tags a config uses, edited as text so the file keeps its
/// comments, order and style: the config's own `tags:` block, or the file that
/// `tags: {file: …}` names. Entries are added as one flow line
/// (`  - { name: "door-key", uid: "04a224b2c35e80", groups: ["family"] }`) after the last entry.
public struct TagsFile {
    /// The file edited: the config itself, or its tags file.
    public let path: String
    let lines: [String]
    /// The list's entries (nil: there is no list yet).
    private let list: ConfigNode?
    /// The `tags:` key of the config (nil: the list is a file of its own, or there is none).
    private let key: ConfigNode.Entry?
    /// True when the list lives in the config file itself (or will, having none).
    public let isInline: Bool

    /// Finds the list `config` uses. A `tags:` written as a one-line flow list with entries is refused:
    /// it cannot take a line of its own.
    public init(config: String) throws(TagNamesProblem) {
        let text = try Self.read(config)
        let root = try Self.parse(text, file: config)
        let entry = root.entries?.last { $0.key == "tags" }
        if let file = entry?.value["file"]?.scalar {
            let directory = config.lastIndex(of: "/").map { String(config[..<$0]) } ?? "."
            let path = file.hasPrefix("/") ? file : directory + "/" + file
            // A tags file not made yet holds no tags; the first name makes it.
            let listText = FileManager.default.fileExists(atPath: path) ? try Self.read(path) : String()
            let node = try Self.parse(listText, file: path)
            self.path = path
            lines = listText.components(separatedBy: "\n")
            list = node.isNull || node.entries?.isEmpty == true ? nil : node  // empty, or comments only
            key = nil
            isInline = false
        } else {
            path = config
            lines = text.components(separatedBy: "\n")
            list = entry.flatMap { $0.value.isNull ? nil : $0.value }
            key = entry
            isInline = true
        }
        if let list, list.elements == nil {
            throw .data("\(list.mark): tags: expected a list of tags, found \(list.kindDescription)")
        }
    }

    /// The entries' nodes, in file order.
    public var entries: [ConfigNode] { list?.elements ?? [] }

    /// The text with an entry for `name` added after the last entry (a name `check(newName:)` refuses is refused).
    func adding(name: String, uid: TagUID, groups: [String]) throws(TagNamesProblem) -> String {
        try check(newName: name)
        var entry = "{ name: \(Self.quoted(name)), uid: \(Self.quoted(uid.hex))"
        if !groups.isEmpty { entry += ", groups: [\(groups.map(Self.quoted).joined(separator: ", "))]" }
        entry += " }"
        var lines = lines
        guard !entries.isEmpty else {
            // No entry yet: the first goes right under `tags:` (`tags: []` becomes a block), or ends the file.
            if let key {
                let line = key.keyMark.line - 1
                lines[line] = String(lines[line].prefix(key.keyMark.column - 1)) + "tags:"
                lines.insert(String(repeating: " ", count: key.keyMark.column + 1) + "- " + entry, at: line + 1)
            } else {
                if lines.last == "" { lines.removeLast() }
                lines += (isInline ? ["tags:", "  - " + entry] : ["- " + entry]) + [""]
            }
            return lines.joined(separator: "\n")
        }
        if let list, lines[list.mark.line - 1].dropFirst(list.mark.column - 1).hasPrefix("[") {
            throw .data("\(list.mark): the tags are a one-line list ([…]); write them one per line (`- {name: …}`) to add one here")
        }
        let firstLine = lines[entries[0].mark.line - 1]
        let indent = firstLine.prefix { $0 == " " }
        lines.insert(indent + "- " + entry, at: endOfEntry(entries.count - 1) + 1)
        return lines.joined(separator: "\n")
    }

    /// The text with the entry named `old` called `new` (a name `check(newName:)` refuses is refused).
    public func renaming(_ old: String, to new: String) throws(TagNamesProblem) -> String {
        let entry = try self.entry(named: old)
        try check(newName: new)
        guard let name = entry["name"] else { throw .data("\(entry.mark): the tag '\(old)' has no name to change") }
        var lines = lines
        let index = name.mark.line - 1
        let line = Array(lines[index])
        let start = name.mark.column - 1
        lines[index] = String(line[..<start]) + Self.quoted(new) + String(line[Self.endOfScalar(line, from: start)...])
        return lines.joined(separator: "\n")
    }

    /// The text without the entry named `name` (its comments above stay).
    public func forgetting(_ name: String) throws(TagNamesProblem) -> String {
        let entry = try self.entry(named: name)
        let index = entries.firstIndex { $0.mark == entry.mark } ?? 0
        var lines = lines
        lines.removeSubrange((entry.mark.line - 1)...endOfEntry(index))
        return lines.joined(separator: "\n")
    }

    /// Writes `text` in place of the file (`FileReplacement`), keeping its owner, group and mode: `sudo tagrouter
    /// tags learn` leaves the service's tags file the service's. A tags file made by the first name gets its
    /// folder's owner and group, mode 0640 (the service's own folder, /var/lib/tagrouter: the service reads it).
    public func write(_ text: String) throws(TagNamesProblem) {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let ownership = FileReplacement.Ownership.of(path) ?? .new(in: folder.isEmpty ? "/" : folder, mode: 0o640)
        do throws(FileReplacement.Problem) {
            try FileReplacement.write(Array(text.utf8), to: path, ownership: ownership)
        } catch {
            throw .runtime(error.description)
        }
    }

    private func entry(named name: String) throws(TagNamesProblem) -> ConfigNode {
        guard let entry = entries.first(where: { $0["name"]?.scalar == name }) else {
            let known = entries.compactMap { $0["name"]?.scalar }
            throw .usage("no tag named '\(name)' in \(path)" + (known.isEmpty ? "" : "; the tags there: \(known.joined(separator: ", "))"))
        }
        return entry
    }

    /// The 0-based index of the last line of entry `index`: the last line before the next
    /// entry (or the end of the list) that is neither blank nor a comment.
    private func endOfEntry(_ index: Int) -> Int {
        let start = entries[index].mark.line - 1
        var end: Int
        if index + 1 < entries.count {
            end = entries[index + 1].mark.line - 1
        } else {
            end = lines.count
            // Inline: the block ends at the next key written at or left of `tags:`.
            if let key {
                end = lines.indices.dropFirst(start + 1).first { line in
                    let text = lines[line]
                    let indent = text.prefix { $0 == " " }.count
                    let rest = text.dropFirst(indent)
                    return indent < key.keyMark.column && !rest.isEmpty && !rest.hasPrefix("#") && !rest.hasPrefix("-")
                } ?? lines.count
            }
        }
        var last = start
        for line in start..<end {
            let rest = lines[line].drop { $0 == " " }
            if !rest.isEmpty, !rest.hasPrefix("#") { last = line }
        }
        return last
    }

    /// Where the scalar starting at `start` ends: after its closing quote, or before `,`, `}`, ` #` or the line's end.
    private static func endOfScalar(_ line: [Character], from start: Int) -> Int {
        if let quote = line[start...].first, quote == "\"" || quote == "'" {
            var index = start + 1
            while index < line.count {
                if line[index] == "\\", quote == "\"" {
                    index += 2
                    continue
                }
                if line[index] == quote { return index + 1 }
                index += 1
            }
            return line.count
        }
        var index = start
        while index < line.count, line[index] != ",", line[index] != "}", !(line[index] == "#" && index > start && line[index - 1] == " ") { index += 1 }
        while index > start, line[index - 1] == " " { index -= 1 }
        return index
    }

    /// A YAML scalar for `text`: JSON's double-quoted string, which YAML reads as the same text.
    static func quoted(_ text: String) -> String { JSONValue.string(text).serialized() }

    private static func read(_ path: String) throws(TagNamesProblem) -> String {
        guard let bytes = FileBytes.read(path: path) else { throw .usage("cannot read \(path): \(FileBytes.whyUnreadable(path) ?? "read failed")") }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func parse(_ text: String, file: String) throws(TagNamesProblem) -> ConfigNode {
        do throws(ConfigErrors) {
            return try YAMLParser.parse(text, file: file)
        } catch {
            throw .data(error.description)
        }
    }
}
