import Foundation
import TagRouter
import TagRouterDaemon
import Testing

/// The guide's Actions page (docs/guide/actions.md) and the shipped examples stay true to the plugins'
/// option specs: each plugin's section links to its options in the generated reference, which is the
/// one place they are described, and its examples load. Every built-in plugin (the daemon's registry) has its section.
@Suite struct DocumentationTests {
    static let registry = BuiltinPlugins.registry
    static let names = registry.plugins.map { $0.name }

    @Test(arguments: names)
    func theGuideLinksToTheOptionsOnceInTheReference(plugin name: String) throws {
        let plugin = try #require(Self.registry[name])
        let heading = try Self.heading(name)
        let section = try Self.guideSection(heading)
        #expect(section.contains("](reference.md#--\(plugin.name)-action)"), "docs/guide/actions.md \(heading) does not link to its options")
        if plugin.sectionSpec != nil {
            #expect(section.contains("](reference.md#\(plugin.name)-section)"), "docs/guide/actions.md \(heading) does not link to its section's options")
        }
        #expect(!section.contains("| --- |"), "docs/guide/actions.md \(heading) has a table: options are described once, in the reference")
    }

    @Test(arguments: names)
    func theGuidesConfigExamplesLoad(plugin name: String) throws {
        let heading = try Self.heading(name)
        let section = try Self.guideSection(heading)
        let blocks = section.components(separatedBy: "```yaml\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
        #expect(!blocks.isEmpty, "docs/guide/actions.md \(heading) has no example")
        let sandbox = try Sandbox()
        try sandbox.write("webhook.key", "secret", secret: true)
        try sandbox.write("mqtt-password", "secret", secret: true)
        let loader = ConfigLoader(registry: Self.registry, environment: ["HA_WEBHOOK_ID": "id", "HOME": sandbox.path], dryRun: true)
        for block in blocks where block.contains("routes:") {
            #expect(throws: Never.self, "docs/guide/actions.md \(heading):\n\(block)") { try loader.load(text: block, file: "actions.md", directory: sandbox.path) }
        }
    }

    @Test(arguments: ["webhook-home-assistant.yaml", "webhook-home-assistant-rest.yaml", "webhook-node-red.yaml"])
    func webhookExamplesLoad(file: String) throws {
        let sandbox = try Sandbox()
        try sandbox.write("ha-token", "token", secret: true)
        try sandbox.write("node-red.key", "secret", secret: true)
        let text = try String(contentsOfFile: repositoryRoot + "/config/examples/" + file, encoding: .utf8)
        let config = try ConfigLoader(registry: Self.registry, environment: ["HA_WEBHOOK_ID": "id", "HOME": sandbox.path], dryRun: true)
            .load(text: text, file: file, directory: sandbox.path)
        #expect(config.actions.map(\.plugin) == ["webhook"])
    }

    /// The heading of plugin `name`'s section in docs/guide/actions.md (`## `exec` — writing a plugin in any language`).
    private static func heading(_ name: String) throws -> String {
        let guide = try String(contentsOfFile: repositoryRoot + "/docs/guide/actions.md", encoding: .utf8)
        let line = guide.split(separator: "\n").first { $0 == "## `\(name)`" || $0.hasPrefix("## `\(name)` ") }
        return String(try #require(line, "docs/guide/actions.md has no section for the `\(name)` action"))
    }

    /// docs/guide/actions.md from `heading` to the next heading of its level or above.
    private static func guideSection(_ heading: String) throws -> String {
        let guide = try String(contentsOfFile: repositoryRoot + "/docs/guide/actions.md", encoding: .utf8)
        let start = try #require(guide.range(of: "\n" + heading + "\n"))
        let rest = guide[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.range(of: "\n# ")?.lowerBound ?? rest.endIndex)])
    }
}
