import Foundation
import TestSupport
import Testing

/// What the release binary links: FoundationEssentials, never Foundation with its ICU data — that is what keeps
/// the binary at a quarter of its former size and the daemon's code pages few (docs/development/memory.md). One stray
/// `import Foundation` in any linked module brings it all back, and nothing else would notice.
@Suite struct ReleaseBinaryTests {
    @Test func linksFoundationEssentialsButNeitherFoundationNorICU() async throws {
        let symbols = try await Shell.check("nm", [BuiltPackage.releaseBinary])
        #expect(symbols.contains("20FoundationEssentials"), "nm shows no FoundationEssentials symbol: is this a Swift binary?")
        let foundation = symbols.split(separator: "\n").filter { $0.contains("$s10Foundation") || $0.contains(" ucol_open") }
        #expect(foundation.isEmpty, "Foundation or ICU is linked; a module imports Foundation instead of FoundationEssentials: \(foundation.prefix(5))")
    }

    /// The release link (Package.swift, `releaseLinkLayout`) takes libstdc++ in, instead of loading libstdc++.so.6 (~0.9 MB
    /// resident for the ~25 functions the Swift runtime calls), and exports none of the ~6,300 Swift symbols whose dynamic
    /// symbol table the loader read at every lookup. Either coming back costs the daemon its memory budget.
    @Test func linksLibstdcxxInAndExportsNoSwiftSymbol() async throws {
        let dynamicSection = try await Shell.check("readelf", ["-d", BuiltPackage.releaseBinary])
        let needed = dynamicSection.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(needed.contains { $0.contains("[libc.so.6]") }, "readelf -d lists no libc: \(dynamicSection)")
        #expect(!needed.contains { $0.contains("libstdc++") }, "the release binary loads libstdc++.so: \(needed)")
        let exported = try await Shell.check("nm", ["-D", "--defined-only", BuiltPackage.releaseBinary])
        let swiftSymbols = exported.split(separator: "\n").filter { $0.contains(" $s") }
        #expect(swiftSymbols.count == 0, "Swift symbols exported, e.g. \(swiftSymbols.prefix(3))")
    }
}
