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
}
