import Foundation
import Testing

/// docs/development/README.md draws the module graph (each module of the product with the modules it depends on);
/// the drawing says what Package.swift says, module by module, so it cannot drift again.
@Suite struct ModuleDrawingTests {
    static let root = ExampleConfigTests.repositoryRoot

    @Test func theDrawingMatchesPackageSwift() throws {
        let package = try PackageTargets(String(contentsOfFile: Self.root + "/Package.swift", encoding: .utf8))
        let drawn = try ModuleDrawing(String(contentsOfFile: Self.root + "/docs/development/README.md", encoding: .utf8))
        let modules = package.modules
        #expect(modules["TagRouterDaemon"]?.contains("TagRouter") == true, "Package.swift was read: \(modules)")
        for name in Set(modules.keys).union(drawn.modules.keys).sorted() {
            guard let declared = modules[name] else {
                Issue.record("the drawing shows \(name), which Package.swift has no product module for")
                continue
            }
            guard let shown = drawn.modules[name] else {
                Issue.record("the drawing lacks \(name) (Package.swift: \(declared.sorted().joined(separator: ", ")))")
                continue
            }
            #expect(shown == declared, "\(name): the drawing shows \(shown.sorted()), Package.swift says \(declared.sorted())")
        }
    }

    @Test func theReadersFindWhatTheyLookFor() throws {
        let package = try PackageTargets("""
            .target(name: "A", dependencies: ["B", "CX"]),
            .target(name: "B", dependencies: ["C"], swiftSettings: [.unsafeFlags(["-Xcc", "-I(x)"])]),
            .systemLibrary(name: "CX", providers: [.apt(["x-dev"])]),
            .target(name: "Bench", dependencies: ["A"], path: "Benchmarks/Bench"),
            .testTarget(name: "ATests", dependencies: ["A"]),
            """)
        #expect(package.modules == ["A": ["B", "CX"], "B": ["C"], "CX": []])
        let drawing = try ModuleDrawing("x\n<!-- module graph -->\n```\nA ─→ B, CX\nB ─→ C\nCX, C\n```\n")
        #expect(drawing.modules == ["A": ["B", "CX"], "B": ["C"], "CX": [], "C": []])
    }
}

/// The modules Package.swift declares for the product (not under Tests/ or Benchmarks/: tests, benchmarks, the harness), each with
/// the names in its `dependencies:`. Read from the text: every `.target(`, `.executableTarget(` and `.systemLibrary(`
/// call, up to its closing parenthesis.
private struct PackageTargets {
    struct Unreadable: Error, CustomStringConvertible { let description: String }

    var modules: [String: Set<String>] = [:]

    init(_ text: String) throws {
        let characters = Array(text)
        var offset = 0
        while let call = Self.nextCall(in: characters, from: offset) {
            let (body, end) = try Self.arguments(characters, from: call)
            offset = end
            guard let name = Self.quoted(after: "name:", in: body) else { throw Unreadable(description: "a target without a name: \(body)") }
            let path = Self.quoted(after: "path:", in: body) ?? "Sources/" + name
            guard !path.hasPrefix("Tests/"), !path.hasPrefix("Benchmarks/") else { continue }
            var dependencies: Set<String> = []
            if let list = body.range(of: "dependencies:"), let close = body[list.upperBound...].firstIndex(of: "]") {
                dependencies = Set(body[list.upperBound..<close].split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
            }
            modules[name] = dependencies
        }
    }

    /// The offset just past the next `.target(`, `.executableTarget(` or `.systemLibrary(` from `offset`.
    private static func nextCall(in characters: [Character], from offset: Int) -> Int? {
        let calls = [".target(", ".executableTarget(", ".systemLibrary("].map(Array.init)
        var index = offset
        while index < characters.count {
            for call in calls where characters[index...].starts(with: call) { return index + call.count }
            index += 1
        }
        return nil
    }

    /// The call's arguments up to its closing parenthesis (skipping parentheses inside strings), and the offset after it.
    private static func arguments(_ characters: [Character], from start: Int) throws -> (String, Int) {
        var (depth, inString, index) = (1, false, start)
        while index < characters.count {
            switch (characters[index], inString) {
            case ("\\", true): index += 1
            case ("\"", _): inString.toggle()
            case ("(", false): depth += 1
            case (")", false):
                depth -= 1
                if depth == 0 { return (String(characters[start..<index]), index + 1) }
            default: break
            }
            index += 1
        }
        throw Unreadable(description: "a target call without its closing parenthesis")
    }

    private static func quoted(after label: String, in body: String) -> String? {
        guard let found = body.range(of: label) else { return nil }
        let rest = body[found.upperBound...].drop { $0 == " " }
        guard rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") else { return nil }
        return String(rest[rest.index(after: rest.startIndex)..<close])
    }
}

/// The drawing: the code block after `<!-- module graph -->`, one module a line with what it depends on
/// (`A ─→ B, C`); a line without an arrow lists modules that depend on nothing.
private struct ModuleDrawing {
    var modules: [String: Set<String>] = [:]

    init(_ text: String) throws {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let marker = try #require(lines.firstIndex(of: "<!-- module graph -->"), "docs/development/README.md has no <!-- module graph --> marker")
        let open = try #require(lines[marker...].firstIndex { $0.hasPrefix("```") })
        let close = try #require(lines[(open + 1)...].firstIndex { $0.hasPrefix("```") })
        let names = { (list: Substring) in list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        for line in lines[(open + 1)..<close] {
            let parts = line.components(separatedBy: "─→")
            if parts.count == 2 {
                modules[parts[0].trimmingCharacters(in: .whitespaces)] = Set(names(Substring(parts[1])))
            } else {
                for name in names(Substring(line)) { modules[name] = [] }
            }
        }
    }
}
