import Foundation
import TestSupport
import Testing

/// The user docs the package installs under /usr/share/doc/tagrouter, with links that work there.
@Suite struct PackagedDocumentationTests {
    static let docFolder = "/usr/share/doc/tagrouter"

    /// The user docs of this tree: README.md, every docs/**/*.md but docs/development/, the event schema.
    static func userDocs() throws -> [String] {
        let root = BuiltProducts.packageRoot.path
        let docs = try FileManager.default.subpathsOfDirectory(atPath: root + "/docs")
            .filter { $0.hasSuffix(".md") && !$0.hasPrefix("development/") }
            .map { "docs/" + $0 }
        return ["README.md", "docs/event.schema.json"] + docs
    }

    /// A compressed file of the package, as text.
    static func text(_ file: String) async throws -> String {
        try await Shell.check("gzip", ["-dc", file])
    }

    /// The targets of the links in Markdown `text` that a reader would follow: inline links and images, and
    /// reference definitions, outside code blocks and code spans.
    static func linkTargets(_ text: String) -> [String] {
        var prose: [Substring] = []
        var fenced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") { fenced.toggle(); continue }
            if !fenced { prose.append(line) }
        }
        let withoutCode = prose.joined(separator: "\n").replacing(/`+[^`]*?`+/, with: "")
        let inline = withoutCode.matches(of: /\]\(\s*([^)\s]+)/).map { String($0.output.1) }
        let definitions = withoutCode.matches(of: /(?m)^ {0,3}\[[^\]]+\]:\s*(\S+)/).map { String($0.output.1) }
        return inline + definitions
    }

    @Test func theUserDocsAreInstalledCompressedWithoutTheDeveloperNotes() async throws {
        let package = try await BuiltPackage.shared
        let installed = try FileManager.default.subpathsOfDirectory(atPath: package.root + Self.docFolder)
        let docs = try Self.userDocs()
        #expect(docs.contains("docs/security.md"))
        for doc in docs {
            #expect(installed.contains(doc + ".gz"), "\(doc) is not in the package")
            #expect(!installed.contains(doc), "\(doc) is installed uncompressed")
        }
        #expect(!installed.contains { $0.hasPrefix("docs/development") }, "developer notes are not user docs: \(installed)")
        // gzip -9n: no name or time stamp in the header, so the package builds the same twice.
        let header = try Data(contentsOf: URL(fileURLWithPath: package.root + Self.docFolder + "/docs/security.md.gz")).prefix(10)
        #expect(Array(header[header.startIndex + 3..<header.startIndex + 8]) == [0, 0, 0, 0, 0], "FNAME and MTIME are set")
    }

    @Test func everyRelativeLinkOfAnInstalledDocLeadsToAFileOfThePackage() async throws {
        let package = try await BuiltPackage.shared
        let folder = package.root + Self.docFolder
        // The Markdown pages and the upstream changelog (CHANGELOG.md).
        let pages = try FileManager.default.subpathsOfDirectory(atPath: folder).filter { $0.hasSuffix(".md.gz") || $0 == "changelog.gz" }
        #expect(pages.count == (try Self.userDocs().count))
        for page in pages {
            let here = URL(fileURLWithPath: folder + "/" + page).deletingLastPathComponent()
            for target in Self.linkTargets(try await Self.text(folder + "/" + page)) {
                if target.hasPrefix("#") || target.hasPrefix("/") || target.firstMatch(of: /^[A-Za-z][A-Za-z0-9+.\-]*:/) != nil { continue }
                let path = String(target.prefix { $0 != "#" })
                let file = here.appendingPathComponent(path).standardizedFileURL.path
                var isFolder: ObjCBool = false
                let exists = FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) && !isFolder.boolValue
                #expect(exists, "\(page): the link \(target) leads to no file of the package")
                #expect(file.hasPrefix(package.root + "/"), "\(page): the link \(target) leaves the package")
            }
        }
        // The README links to the guides; a rewrite that dropped every link would pass the loop above.
        let readmeLinks = Self.linkTargets(try await Self.text(folder + "/README.md.gz"))
        #expect(readmeLinks.contains { $0.hasPrefix("docs/") && $0.contains(".md.gz") }, "\(readmeLinks)")
    }

    /// scripts/doc-links.pl on a page with every kind of link, in a tree of its own: installed targets get their
    /// installed names, others become text; code, absolute URLs and same-page anchors stay as they are.
    @Test func theLinkRewriteFollowsTheInstallListAndLeavesCodeAlone() async throws {
        let tree = try TemporaryFolder.make("tagrouter-doc-links")
        defer { try? FileManager.default.removeItem(atPath: tree) }
        try FileManager.default.createDirectory(atPath: tree + "/docs/guide", withIntermediateDirectories: true)
        let page = """
            See [b](b.md#x), [`code` text](../../README.md) and ![img](pic.png).
            A [two
            line](../c.md) link, [source](../../Sources/X.swift "title"), [web](https://x.y/a.md), [here](#top).
            `[in a span](b.md)` and ``a ` [in a span](b.md)``.
            [log]: ../../CHANGELOG.md
            [gone]: ../../Package.swift
            Use [log][] and [this][gone] and [Gone][].
            ```
            [in a block](b.md)
            ```
            [outside](../../../../outside.md)

            """
        try page.write(toFile: tree + "/docs/guide/a.md", atomically: true, encoding: .utf8)
        let entries = [("docs/guide/a.md", "/d/docs/guide/a.md.gz"), ("docs/guide/b.md", "/d/docs/guide/b.md.gz"),
                       ("README.md", "/d/README.md.gz"), ("docs/c.md", "/d/docs/c.md.gz"), ("CHANGELOG.md", "/d/changelog.gz")]
        try entries.map { "\($0.1)\t\($0.0)\t644\n" }.joined().write(toFile: tree + "/entries", atomically: true, encoding: .utf8)
        let script = BuiltProducts.packageRoot.appendingPathComponent("scripts/doc-links.pl").path
        let run = try await Shell.run("sh", ["-c", "\"$0\" docs/guide/a.md /d/docs/guide/a.md.gz <entries", script], directory: tree)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == """
            See [b](b.md.gz#x), [`code` text](../../README.md.gz) and img.
            A [two
            line](../c.md.gz) link, source, [web](https://x.y/a.md), [here](#top).
            `[in a span](b.md)` and ``a ` [in a span](b.md)``.
            [log]: ../../changelog.gz
            Use [log][] and this and Gone.
            ```
            [in a block](b.md)
            ```
            outside

            """)
    }

    /// The files a user reads on the machine — the config, the units, the udev rules, the modprobe list —
    /// point at what is there: each `/usr/share/doc/tagrouter/…` path they name is a file of the package,
    /// and none tells to copy a file from the source tree (`config/…`) that the package installed already.
    @Test func theInstalledConfigAndUnitsPointAtInstalledFiles() async throws {
        let package = try await BuiltPackage.shared
        let files = ["/etc/tagrouter/tagrouter.yaml", "/usr/lib/systemd/system/tagrouter.service", "/usr/lib/systemd/user/tagrouter.service",
                     "/usr/lib/udev/rules.d/99-tagrouter-nfc.rules", "/usr/lib/modprobe.d/blacklist-tagrouter.conf"]
        for file in files {
            let text = try String(contentsOfFile: package.root + file, encoding: .utf8)
            for match in text.matches(of: /\/usr\/share\/doc\/tagrouter\/[^\s`"',;)]*/) {
                let named = String(match.output).replacing(/[.:]$/, with: "")
                #expect(FileManager.default.fileExists(atPath: package.root + named), "\(file) names \(named), which the package does not install")
            }
            #expect(!text.contains("cp config/") && !text.contains("README.md \""), "\(file) points at the source tree:\n\(text)")
        }
    }
}
