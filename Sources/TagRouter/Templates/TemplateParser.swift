import FoundationEssentials
import OrderedJSON
import SystemKit

/// Splits template text into literals and `{{ path | filter }}` expressions and
/// checks every path against the known variables (the event's fields by default).
struct TemplateParser {
    let source: String
    let environment: [String: String]
    let unsetEnvironment: Template.UnsetEnvironment

    /// The variables a path may start with (`Template.Variables`).
    let variables: Template.Variables

    /// The parts, and the `env.NAME` variables rendered as placeholders.
    func parse() throws(TemplateError) -> (parts: [Template.Part], unsetEnvironment: [String]) {
        var parts: [Template.Part] = []
        var unset: [String] = []
        var literal = ""
        let characters = Array(source)
        var index = 0
        while index < characters.count {
            if characters[index] == "{", index + 1 < characters.count, characters[index + 1] == "{" {
                guard let close = Self.find("}}", in: characters, from: index + 2) else {
                    throw TemplateError(offset: index, message: "'{{' is not closed by '}}'")
                }
                let body = String(characters[(index + 2)..<close])
                let part = try expression(body, offset: index, unset: &unset)
                if case .literal(let text) = part {
                    literal += text
                } else {
                    if !literal.isEmpty { parts.append(.literal(literal)) }
                    literal = ""
                    parts.append(part)
                }
                index = close + 2
            } else {
                literal.append(characters[index])
                index += 1
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        return (parts, unset)
    }

    private static func find(_ needle: String, in characters: [Character], from start: Int) -> Int? {
        let pattern = Array(needle)
        var index = start
        while index + pattern.count <= characters.count {
            if Array(characters[index..<(index + pattern.count)]) == pattern { return index }
            index += 1
        }
        return nil
    }

    private func expression(_ body: String, offset: Int, unset: inout [String]) throws(TemplateError) -> Template.Part {
        let pieces = Self.splitFilters(body)
        let path = pieces[0].trimmingWhitespace()
        guard !path.isEmpty else { throw TemplateError(offset: offset, message: "empty '{{ }}'; name a variable such as {{uri}}") }
        var filters: [TemplateFilter] = []
        for piece in pieces.dropFirst() {
            filters.append(try filter(piece.trimmingWhitespace(), offset: offset))
        }
        if path.hasPrefix("env.") {
            let name = String(path.dropFirst(4))
            let fallback = filters.lazy.compactMap { if case .defaultValue(let text) = $0 { text } else { nil } }.first
            guard let value = environment[name] ?? fallback else {
                guard case .placeholder = unsetEnvironment else {
                    throw TemplateError(offset: offset, message: "environment variable '\(name)' is not set (add | default: \"…\" to allow that)")
                }
                unset.append(name)
                return .literal("${\(name)}")
            }
            var rendered: JSONValue? = .string(value)
            for filter in filters { rendered = filter.apply(to: rendered) }
            return .secret(rendered?.plainText ?? "")
        }
        try check(path, offset: offset)
        return .expression(path: path, filters: filters)
    }

    /// Splits on `|` outside quotes.
    private static func splitFilters(_ body: String) -> [String] {
        var pieces = [""]
        var quote: Character?
        for character in body {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "|" {
                pieces.append("")
                continue
            }
            pieces[pieces.count - 1].append(character)
        }
        return pieces
    }

    private func filter(_ text: String, offset: Int) throws(TemplateError) -> TemplateFilter {
        let name = text.prefix { $0 != ":" }.trimmingWhitespace()
        switch name {
        case "json": return .json
        case "urlencode": return .urlencode
        case "upper": return .upper
        case "lower": return .lower
        case "default":
            guard let colon = text.firstIndex(of: ":") else {
                throw TemplateError(offset: offset, message: "filter 'default' needs a value: default: \"x\"")
            }
            var argument = text[text.index(after: colon)...].trimmingWhitespace()
            if argument.count >= 2, let first = argument.first, first == "\"" || first == "'", argument.last == first {
                argument = String(argument.dropFirst().dropLast())
            }
            return .defaultValue(argument)
        default:
            let hint = DidYouMean.suggestion(for: name, among: TemplateFilter.names).map { " (did you mean '\($0)'?)" }
                ?? "; filters are " + TemplateFilter.names.joined(separator: ", ")
            throw TemplateError(offset: offset, message: "unknown filter '\(name)'\(hint)")
        }
    }

    private func check(_ path: String, offset: Int) throws(TemplateError) {
        var components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if components.first == "json", components.count > 1 { components.removeFirst() }
        let root = components[0]
        guard let members = variables[root] else {
            let names = variables.keys.sorted() + ["env.NAME"]
            let hint = DidYouMean.suggestion(for: root, among: names).map { " (did you mean '\($0)'?)" }
                ?? "; variables are " + names.joined(separator: ", ")
            throw TemplateError(offset: offset, message: "unknown variable '\(path)'\(hint)")
        }
        guard components.count > 1 else { return }
        guard let members else {
            throw TemplateError(offset: offset, message: "unknown variable '\(path)': '\(root)' has no members")
        }
        if members.isEmpty { return }
        let member = components.dropFirst().joined(separator: ".")
        guard members.contains(member) else {
            let hint = DidYouMean.suggestion(for: member, among: members).map { " (did you mean '\(root).\($0)'?)" } ?? ""
            throw TemplateError(offset: offset, message: "unknown variable '\(path)'\(hint); '\(root)' has " + members.joined(separator: ", "))
        }
    }
}
