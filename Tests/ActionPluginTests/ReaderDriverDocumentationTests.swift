import Foundation
import TagCore
import TagReader
import TagRouter
import TagRouterDaemon
import Testing

/// Every built-in reader driver (the daemon's `BuiltinPlugins.readers`) is documented as the action plugins
/// are: a section in the reader notes (docs/reader.md) and in the guide's hardware page, its options in the
/// generated reference, its part of `tagrouter devices`, and its example configs in the guide load.
@Suite struct ReaderDriverDocumentationTests {
    static let titles = BuiltinPlugins.readers.drivers.map { $0.title }

    static func driver(_ title: String) throws -> any ReaderDriver.Type {
        try #require(BuiltinPlugins.readers.drivers.first { $0.title == title })
    }

    static func text(_ file: String) throws -> String { try String(contentsOfFile: repositoryRoot + "/" + file, encoding: .utf8) }

    /// The headings of `file` that name `title` (`## PC/SC readers`, `## Keyboard-wedge readers (…)`).
    static func headings(naming title: String, in file: String) throws -> [Substring] {
        try text(file).split(separator: "\n").filter { $0.hasPrefix("#") && $0.lowercased().contains(title.lowercased()) }
    }

    @Test(arguments: titles)
    func theReaderNotesAndTheHardwareGuideHaveASection(driver title: String) throws {
        #expect(try !Self.headings(naming: title, in: "docs/reader.md").isEmpty, "docs/reader.md has no heading naming \(title)")
        #expect(try !Self.headings(naming: title, in: "docs/guide/hardware.md").isEmpty, "docs/guide/hardware.md has no heading naming \(title)")
    }

    @Test(arguments: titles)
    func theReferenceHasItsOptionsAndHowADeviceIsWritten(driver title: String) throws {
        let driver = try Self.driver(title)
        let reference = try Self.text("docs/guide/reference.md")
        for option in driver.options {
            #expect(reference.contains("| `readers[].\(option.name)` |"), "docs/guide/reference.md has no row for readers[].\(option.name)")
        }
        let device = try #require(reference.split(separator: "\n").first { $0.hasPrefix("| `readers[].device` |") })
        #expect(device.contains(driver.deviceHelp))
    }

    @Test(arguments: titles)
    func devicesSaysWhatItFound(driver title: String) throws {
        let listing = try Self.driver(title).listDevices(extra: [])
        #expect(!listing.lines.isEmpty, "\(title) adds no line to `tagrouter devices`")
        #expect(listing.found >= listing.usable)
    }

    /// The keyboard-wedge section's config, as the hardware guide shows it, loads with the built-in registry.
    @Test func theHardwareGuidesKeyboardExampleLoads() throws {
        let guide = try Self.text("docs/guide/hardware.md")
        let section = try #require(guide.components(separatedBy: "\n## Keyboard-wedge readers").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```yaml\n").dropFirst().first?.components(separatedBy: "```").first)
        let config = try ConfigLoader(registry: BuiltinPlugins.registry, environment: [:], dryRun: true)
            .load(text: block + "routes: [{actions: [log]}]\n", file: "hardware.md", directory: "/tmp")
        #expect(config.warnings.isEmpty)
        #expect(config.readers.map(\.exitDelay) == [.seconds(2)])
        #expect(config.readers.first?.driverSettings != DriverSettings())
    }
}
