import ExecPlugin
import Foundation
import MQTTPlugin
import OpenURLPlugin
import ShellPlugin
import TagRouter
import Testing
import WebhookPlugin

/// The shipped examples load with the real plugins' specs.
@Suite struct ExampleConfigTests {
    static let examples = ["home-assistant-mqtt.yaml", "music-box.yaml", "door-badge.yaml", "node-red.yaml"]
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test(arguments: examples) func exampleLoads(file: String) throws {
        let text = try String(contentsOfFile: Self.repositoryRoot + "/config/examples/" + file, encoding: .utf8)
        let registry = PluginRegistry([LogPlugin.self, MQTTPlugin.self, ShellPlugin.self, OpenURLPlugin.self, WebhookPlugin.self, ExecPlugin.self])
        let secrets = Scratch()
        defer { secrets.remove() }
        _ = try secrets.write("mqtt-password", "secret")
        let loader = ConfigLoader(registry: registry, environment: ["HOME": secrets.path], dryRun: true)
        let config = try loader.load(text: text.replacingOccurrences(of: "/etc/tagrouter/", with: secrets.path + "/"), file: file, directory: secrets.path)
        #expect(!config.routes.isEmpty)
    }

    @Test func theReadmeNamesEveryExample() throws {
        let readme = try String(contentsOfFile: Self.repositoryRoot + "/README.md", encoding: .utf8)
        for file in Self.examples { #expect(readme.contains("config/examples/\(file)"), "README does not mention \(file)") }
    }
}
