import Foundation
import Testing

/// scripts/fuzz.sh compiles the fuzzed modules outside Package.swift, each rebuilt when a module it imports was
/// (its `imports` map). The map says what Package.swift says, so a new dependency cannot leave a stale object behind
/// or a module out of the fuzz build.
@Suite struct FuzzModuleMapTests {
    static let root = ExampleConfigTests.repositoryRoot

    /// Each module of the map imports exactly its Package.swift dependencies, C libraries aside (fuzz.sh finds
    /// every `Sources/C*/module.modulemap` itself).
    @Test func theMapMatchesPackageSwift() throws {
        let package = try ModuleDrawingTests.package()
        let map = try FuzzModuleMap(String(contentsOfFile: Self.root + "/scripts/fuzz.sh", encoding: .utf8)).imports
        #expect(map["TagRouter"]?.contains("TagCore") == true, "scripts/fuzz.sh was read: \(map)")
        for (name, imports) in map.sorted(by: { $0.key < $1.key }) {
            guard let dependencies = package.modules[name] else {
                Issue.record("scripts/fuzz.sh maps \(name), which Package.swift has no product module for")
                continue
            }
            let swiftModules = dependencies.filter { dependency in
                !FileManager.default.fileExists(atPath: Self.root + "/" + (package.folders[dependency] ?? "") + "/module.modulemap")
            }
            #expect(imports == swiftModules, "\(name): scripts/fuzz.sh says it imports \(imports.sorted()), Package.swift \(swiftModules.sorted())")
        }
    }

    @Test func theReaderFindsTheMap() throws {
        let map = try FuzzModuleMap("""
            x=1
            declare -A imports=(
              [A]="" [B]="A"
              [C]="A B"
            )
            declare -A other=([D]="A")
            """)
        #expect(map.imports == ["A": [], "B": ["A"], "C": ["A", "B"]])
    }
}

/// scripts/fuzz.sh's `declare -A imports=( [Module]="Imported Modules" … )`.
private struct FuzzModuleMap {
    var imports: [String: Set<String>] = [:]

    init(_ script: String) throws {
        let start = try #require(script.range(of: "declare -A imports=("), "scripts/fuzz.sh declares no imports map")
        let end = try #require(script[start.upperBound...].range(of: "\n)"), "the imports map has no closing parenthesis")
        for entry in script[start.upperBound..<end.lowerBound].matches(of: /\[(\w+)\]="([^"]*)"/) {
            imports[String(entry.output.1)] = Set(entry.output.2.split(separator: " ").map(String.init))
        }
    }
}
