import Foundation
import TestSupport

/// A command in the docs (README.md, docs/**/*.md: a line of a code block, or a code span) that writes a secret
/// file: it has `chmod 600`, `install … -m 600` or `openssl rand … >`. The convention (docs/guide/service.md
/// "Secrets") is one shape, `SOURCE | sudo install [-D] -o tagrouter -g tagrouter -m 600 /dev/stdin FILE` for
/// the service's files (or a copy, `sudo install -o tagrouter -g tagrouter -m 600 YOURS FILE`), and the same
/// without `sudo` and the owner for your own.
struct DocumentedSecretRecipe {
    var page: String
    var line: Int
    var command: String

    var place: String { "\(page):\(line)" }

    /// What the recipe makes, when it has the convention's shape.
    struct Shape {
        var file: String
        var forTheService: Bool
    }

    var shape: Shape? {
        guard let match = command.wholeMatch(of: /(?:(.+?) \| )?(sudo )?install (?:-D )?(-o tagrouter -g tagrouter )?-m 600 (\S+) (\S+)/) else {
            return nil
        }
        let (_, source, sudo, owner, from, file) = match.output
        let piped = source != nil
        guard piped == (from == "/dev/stdin"), (sudo != nil) == (owner != nil) else { return nil }
        return Shape(file: String(file), forTheService: sudo != nil)
    }

    /// The config line (YAML, `FILE` for the file) of the setting that reads the secret `file`; nil for a file no
    /// test knows.
    static func setting(reading file: String) -> String? {
        switch (file as NSString).lastPathComponent {
        case "command-token": return "mqtt: { host: 127.0.0.1, commands: { token_file: FILE } }"
        case "mqtt-password": return "mqtt: { host: 127.0.0.1, username: tagrouter, password_file: FILE }"
        case "metrics.token": return #"metrics: { listen: "0.0.0.0:9464", token_file: FILE }"#
        case "tag-password": return "tag_password_file: FILE"
        case "meta.key", "file.key": return "sun: { keys: [{ id: badges, meta_key_file: FILE, file_key_file: FILE }] }"
        default:
            guard file.contains("/keys/") else { return nil }
            return #"mqtt: { host: 127.0.0.1, protocol: "5", sign: { key_id: node, key_file: FILE } }"#
        }
    }

    /// Every secret recipe of the docs, page by page in the order they come.
    static func all() throws -> [DocumentedSecretRecipe] {
        let root = BuiltProducts.packageRoot.path
        let docs = FileManager.default.enumerator(atPath: root + "/docs")?.compactMap { $0 as? String } ?? []
        let pages = ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return try pages.flatMap { page in
            try commands(in: String(contentsOfFile: root + "/" + page, encoding: .utf8))
                .filter { isSecretRecipe($0.text) }
                .map { DocumentedSecretRecipe(page: page, line: $0.line, command: $0.text) }
        }
    }

    static func isSecretRecipe(_ text: String) -> Bool {
        text.contains("chmod 600") || (text.contains("install ") && text.contains("-m 600"))
            || (text.contains("openssl rand") && text.contains(">"))
    }

    /// The lines of fenced code blocks and the code spans of the prose, numbered from 1.
    static func commands(in text: String) -> [(line: Int, text: String)] {
        var fenced = false
        var found: [(Int, String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("```") { fenced.toggle(); continue }
            if fenced {
                found.append((index + 1, String(trimmed)))
            } else {
                found += line.matches(of: /`([^`]+)`/).map { (index + 1, String($0.output.1)) }
            }
        }
        return found
    }
}
