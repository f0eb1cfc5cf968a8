import Foundation
import Testing

/// docs/development/README.md draws the module graph (each module of the product with the modules it depends on)
/// and lists each module's folder in its layout table; both say what Package.swift says, module by module, so they
/// cannot drift again.
@Suite struct ModuleDrawingTests {
    static let root = ExampleConfigTests.repositoryRoot

    static func package() throws -> PackageTargets { try PackageTargets(String(contentsOfFile: root + "/Package.swift", encoding: .utf8)) }

    static func page() throws -> String { try String(contentsOfFile: root + "/docs/development/README.md", encoding: .utf8) }

    @Test func theDrawingMatchesPackageSwift() throws {
        let package = try Self.package()
        let drawn = try ModuleDrawing(Self.page())
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

    /// "The module graph reads one way, downward": every module a line depends on is drawn on a later line.
    @Test func theDrawingReadsDownward() throws {
        let drawn = try ModuleDrawing(Self.page())
        for (name, dependencies) in drawn.modules {
            for dependency in dependencies.sorted() {
                let line = try #require(drawn.lines[name])
                let below = try #require(drawn.lines[dependency], "\(dependency) is not drawn")
                #expect(below > line, "\(name) (line \(line)) depends on \(dependency), drawn above it (line \(below))")
            }
        }
    }

    /// The layout table has a row for every module's folder, and names no folder under Sources/, Readers/ or Plugins/
    /// that is not a module's.
    @Test func theLayoutTableNamesEveryModuleFolder() throws {
        let folders = try Self.package().folders
        let table = try LayoutTable(Self.page())
        #expect(folders["TagRouterDaemon"] == "Sources/TagRouterDaemon" && folders["MQTTPlugin"] == "Plugins/MQTTPlugin", "Package.swift was read: \(folders)")
        for (name, folder) in folders.sorted(by: { $0.key < $1.key }) {
            let named = table.names(folder)
            #expect(named, "the layout table has no row for \(folder) (module \(name))")
        }
        let moduleFolders = Set(folders.values)
        for named in table.paths where ["Sources/", "Readers/", "Plugins/"].contains(where: named.hasPrefix) && !named.hasSuffix("/*") {
            #expect(moduleFolders.contains(named), "the layout table names \(named), which is no module's folder in Package.swift")
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
        #expect(package.folders == ["A": "Sources/A", "B": "Sources/B", "CX": "Sources/CX"])
        let drawing = try ModuleDrawing("x\n<!-- module graph -->\n```\nA ─→ B, CX\nB ─→ C\nCX, C\n```\n")
        #expect(drawing.modules == ["A": ["B", "CX"], "B": ["C"], "CX": [], "C": []])
        #expect(drawing.lines == ["A": 0, "B": 1, "CX": 2, "C": 2])
        let table = try LayoutTable("""
            ## Layout

            | path | what it is for |
            | --- | --- |
            | `Sources/CA`, `CB` | C libraries |
            | `Plugins/*` | plugins |
            | `Tests/`, `scripts/x.sh` | tests |

            | path | not the layout |
            | `Sources/Elsewhere` | no |
            """)
        #expect(table.paths == ["Sources/CA", "Sources/CB", "Plugins/*", "Tests/", "scripts/x.sh"])
        #expect(table.names("Sources/CB") && table.names("Plugins/Shell") && !table.names("Sources/Elsewhere") && !table.names("Sources/C"))
    }
}

/// The drawing: the code block after `<!-- module graph -->`, one module a line with what it depends on
/// (`A ─→ B, C`); a line without an arrow lists modules that depend on nothing.
private struct ModuleDrawing {
    var modules: [String: Set<String>] = [:]
    /// The line (from 0, in the block) each module is drawn on.
    var lines: [String: Int] = [:]

    init(_ text: String) throws {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let marker = try #require(lines.firstIndex(of: "<!-- module graph -->"), "docs/development/README.md has no <!-- module graph --> marker")
        let open = try #require(lines[marker...].firstIndex { $0.hasPrefix("```") })
        let close = try #require(lines[(open + 1)...].firstIndex { $0.hasPrefix("```") })
        let names = { (list: Substring) in list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        for (number, line) in lines[(open + 1)..<close].enumerated() {
            let parts = line.components(separatedBy: "─→")
            if parts.count == 2 {
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                modules[name] = Set(names(Substring(parts[1])))
                self.lines[name] = number
            } else {
                for name in names(Substring(line)) {
                    modules[name] = []
                    self.lines[name] = number
                }
            }
        }
    }
}

/// The layout table (the first table after `## Layout`): the paths its rows name in their first cell. A name without a
/// slash after a path is a sibling of it (`Sources/CNFC`, `CYAML` is `Sources/CYAML`); `Plugins/*` names every folder in Plugins/.
private struct LayoutTable {
    var paths: [String] = []

    init(_ text: String) throws {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let heading = try #require(lines.firstIndex(of: "## Layout"), "docs/development/README.md has no ## Layout section")
        let start = try #require(lines[heading...].firstIndex { $0.hasPrefix("| path |") }, "the layout has no table of paths")
        for row in lines[(start + 2)...].prefix(while: { $0.hasPrefix("|") }) {
            var folder = ""
            for cell in row.split(separator: "|")[0].split(separator: ",") {
                let name = cell.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
                if let slash = name.lastIndex(of: "/") {
                    folder = String(name[...slash])
                    paths.append(name)
                } else {
                    paths.append(folder + name)
                }
            }
        }
    }

    /// Whether a row names `folder`, itself or through its parent's `/*`.
    func names(_ folder: String) -> Bool {
        paths.contains(folder) || paths.contains { $0.hasSuffix("/*") && folder.hasPrefix($0.dropLast()) }
    }
}
