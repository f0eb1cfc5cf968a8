import Foundation
import Testing

/// Every relative link in README.md and docs/**/*.md leads somewhere: the file (or folder) exists and
/// an `#anchor` names a heading of the page it points to. Repository paths written in the prose
/// (`docs/memory.md`, `config/examples/music-box.yaml`) exist too, so moving a page cannot leave
/// a stale pointer behind.
@Suite struct DocumentLinksTests {
    static let root = ExampleConfigTests.repositoryRoot

    /// README.md and every Markdown file under docs/, as paths relative to the repository.
    static let pages: [String] = {
        let docs = FileManager.default.enumerator(atPath: root + "/docs")?.compactMap { $0 as? String } ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }()

    @Test func theDocsAreFound() {
        #expect(Self.pages.contains("docs/guide/README.md"))
        #expect(Self.pages.contains("docs/development/README.md"))
    }

    @Test(arguments: pages)
    func everyRelativeLinkResolves(page: String) throws {
        let text = try String(contentsOfFile: Self.root + "/" + page, encoding: .utf8)
        let folder = (page as NSString).deletingLastPathComponent
        for link in MarkdownText.links(in: text) where !link.target.contains(":") || link.target.hasPrefix("#") {
            let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let path = parts[0].isEmpty ? page : Self.normalized(folder.isEmpty ? parts[0] : folder + "/" + parts[0])
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: Self.root + "/" + path, isDirectory: &isFolder) else {
                Issue.record("\(page):\(link.line): link to \(link.target): there is no \(path)")
                continue
            }
            guard parts.count == 2, path.hasSuffix(".md") else { continue }
            let target = try String(contentsOfFile: Self.root + "/" + path, encoding: .utf8)
            #expect(MarkdownText.anchors(in: target).contains(parts[1]), "\(page):\(link.line): link to \(link.target): \(path) has no heading #\(parts[1])")
        }
    }

    @Test(arguments: pages)
    func everyRepositoryPathNamedInTheProseExists(page: String) throws {
        let text = try String(contentsOfFile: Self.root + "/" + page, encoding: .utf8)
        for mention in MarkdownText.repositoryPaths(in: text) {
            #expect(FileManager.default.fileExists(atPath: Self.root + "/" + mention.path), "\(page):\(mention.line): names \(mention.path), which does not exist")
        }
    }

    @Test func theCheckerSeesABrokenLinkAndAMissingAnchor() {
        let text = "# Title\n\n## The `mqtt:` section\n\nSee [a](other.md#x) and [b](#the-mqtt-section), `docs/x.md`.\n\n```\n[not a link](nowhere.md)\n```\n"
        #expect(MarkdownText.links(in: text).map(\.target) == ["other.md#x", "#the-mqtt-section"])
        #expect(MarkdownText.anchors(in: text) == ["title", "the-mqtt-section"])
        #expect(MarkdownText.repositoryPaths(in: text).map(\.path) == ["docs/x.md"])
    }

    /// `a/b/../c.md` → `a/c.md`.
    private static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == ".." { _ = parts.popLast() } else if part != "." { parts.append(part) }
        }
        return parts.joined(separator: "/")
    }
}

/// What the link test reads out of a Markdown page: its links, the anchors its headings make, the
/// repository paths its prose names. Fenced code blocks are skipped.
enum MarkdownText {
    struct Link { var target: String; var line: Int }
    struct Mention { var path: String; var line: Int }

    /// The lines outside fenced code blocks, numbered from 1.
    static func proseLines(_ text: String) -> [(number: Int, text: Substring)] {
        var fenced = false
        var lines: [(Int, Substring)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.drop(while: { $0 == " " }).hasPrefix("```") { fenced.toggle(); continue }
            if !fenced { lines.append((index + 1, line)) }
        }
        return lines
    }

    /// Inline links `[text](target)`, targets without a title. (A line without `](` has none: the pattern,
    /// slow in a debug build, only reads the lines that may.)
    static func links(in text: String) -> [Link] {
        proseLines(text).filter { $0.text.contains("](") }.flatMap { number, line in
            line.matches(of: /\]\(([^)\s]+)\)/).map { Link(target: String($0.output.1), line: number) }
        }
    }

    /// The anchors GitHub gives the page's headings: lower case, punctuation dropped, spaces as
    /// hyphens, a repeated one numbered (`-1`, `-2`); and explicit `<a id="…">`.
    static func anchors(in text: String) -> [String] {
        var seen: [String: Int] = [:]
        var anchors: [String] = []
        // Only a heading or an `<a` tag makes an anchor: the patterns read no other line.
        for (_, line) in proseLines(text) where line.hasPrefix("#") || line.contains("<a ") {
            anchors += line.matches(of: /<a (?:id|name)="([^"]+)"/).map { String($0.output.1) }
            guard let heading = line.wholeMatch(of: /#{1,6} +(.*)/)?.output.1 else { continue }
            let plain = heading.replacing(/\[([^\]]*)\]\([^)]*\)/) { $0.output.1 }.lowercased()
            let slug = String(plain.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == " " }.map { $0 == " " ? "-" : $0 })
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.append(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }

    /// Paths into this repository named in the prose (`docs/…`, `config/…`, `scripts/…`), without globs or placeholders.
    static func repositoryPaths(in text: String) -> [Mention] {
        let roots = ["docs/", "config/", "scripts/", "packaging/"]
        return proseLines(text).filter { line in roots.contains { line.text.contains($0) } }.flatMap { number, line in
            line.matches(of: /(?:^|[^\w.\/-])((?:docs|config|scripts|packaging)\/[\w.\/-]*\w)/).compactMap { match -> Mention? in
                let path = String(match.output.1)
                let next = line[match.range.upperBound...].first
                guard next != "*", next != "<", next != "{" else { return nil }
                return Mention(path: path, line: number)
            }
        }
    }
}
