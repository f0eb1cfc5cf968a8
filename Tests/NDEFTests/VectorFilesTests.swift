import Foundation
import Testing

/// The conformance vectors ship with the tests (copied from the shared set) so the
/// suite runs without anything outside the repository.
@Test func vectorFilesAreBundled() throws {
    let folder = try #require(Bundle.module.url(forResource: "Vectors", withExtension: nil))
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
    #expect(files.count >= 14)
}
