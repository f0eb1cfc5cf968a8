import ExecPlugin
import Foundation
import MQTTPlugin
import OpenURLPlugin
import ShellPlugin
import TagRouter
import Testing
import WebhookPlugin

/// The README and the shipped examples stay true to the plugins' option specs.
@Suite struct DocumentationTests {
    static let plugins: [(any ActionPlugin.Type, heading: String)] = [
        (MQTTPlugin.self, "### `mqtt`"), (ShellPlugin.self, "### `shell`"), (OpenURLPlugin.self, "### `open`"),
        (WebhookPlugin.self, "### `webhook`"), (ExecPlugin.self, "### `exec` — writing a plugin in any language"),
    ]

    @Test(arguments: plugins.map(\.heading))
    func readmeDocumentsEveryOption(heading: String) throws {
        let plugin = try #require(Self.plugins.first { $0.heading == heading }?.0)
        let section = try Self.readmeSection(heading)
        for name in Self.optionNames(plugin.actionSpec) + (plugin.sectionSpec.map(Self.optionNames) ?? []) {
            #expect(section.contains("`\(name)`"), "README \(heading) does not document `\(name)`")
        }
    }

    @Test(arguments: plugins.map(\.heading))
    func readmeConfigExamplesLoad(heading: String) throws {
        let section = try Self.readmeSection(heading)
        let blocks = section.components(separatedBy: "```yaml\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
        let sandbox = try Sandbox()
        try sandbox.write("webhook.key", "secret")
        try sandbox.write("mqtt-password", "secret")
        let loader = ConfigLoader(registry: PluginRegistry(Self.plugins.map(\.0)), environment: ["HA_WEBHOOK_ID": "id", "HOME": sandbox.path], dryRun: true)
        for block in blocks where block.contains("routes:") {
            #expect(throws: Never.self, "README \(heading):\n\(block)") { try loader.load(text: block, file: "README.md", directory: sandbox.path) }
        }
    }

    @Test(arguments: ["webhook-home-assistant.yaml", "webhook-home-assistant-rest.yaml", "webhook-node-red.yaml"])
    func webhookExamplesLoad(file: String) throws {
        let sandbox = try Sandbox()
        try sandbox.write("ha-token", "token")
        try sandbox.write("node-red.key", "secret")
        let text = try String(contentsOfFile: repositoryRoot + "/config/examples/" + file, encoding: .utf8)
        let registry = PluginRegistry(Self.plugins.map(\.0))
        let config = try ConfigLoader(registry: registry, environment: ["HA_WEBHOOK_ID": "id", "HOME": sandbox.path], dryRun: true)
            .load(text: text, file: file, directory: sandbox.path)
        #expect(config.actions.map(\.plugin) == ["webhook"])
    }

    /// The README from `heading` to the next heading.
    private static func readmeSection(_ heading: String) throws -> String {
        let readme = try String(contentsOfFile: repositoryRoot + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: heading + "\n"))
        let rest = readme[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n### ")?.lowerBound ?? rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
    }

    /// Option names as the README writes them (`hmac.secret_file` for nested sections).
    private static func optionNames(_ spec: OptionSpec) -> [String] {
        spec.options.flatMap { option -> [String] in
            if case .section(let nested) = option.type { return optionNames(nested).map { "\(option.name).\($0)" } }
            return [option.name]
        }
    }
}
