import Foundation
import TagCore
import TagRouter
import TagRouterDaemon
import TestSupport
import Testing

@testable import MQTTPlugin

/// Without an `mqtt:` section, or with an action that sets nothing, the plugin
/// runs with the defaults its specs declare — the only place they are written.
@Suite struct SectionDefaultsTests {
    static func declared(_ spec: OptionSpec, _ key: String) throws -> String { try #require(spec.option(key)?.defaultValue, "\(key) has no default") }
    static func duration(_ spec: OptionSpec, _ key: String) throws -> Duration { try #require(Duration(configText: try declared(spec, key))) }

    /// Of every built-in plugin and input, the MQTT ones included (the daemon's registry).
    @Test func everyDefaultOfTheSectionActionAndInputIsAValidValue() {
        #expect(BuiltinPlugins.registry[MQTTPlugin.name] != nil && BuiltinPlugins.registry.source(named: MQTTInput.name) != nil)
        let problems = BuiltinPlugins.registry.invalidDefaults
        #expect(problems.isEmpty, "\(problems)")
    }

    /// Found by `make fuzz` (config): a `sign:` without its required `key_id` trapped while the section was read.
    @Test func aSignSectionWithoutItsKeyIDIsAConfigErrorNotATrap() throws {
        let loader = ConfigLoader(registry: PluginRegistry([MQTTPlugin.self]), environment: [:], dryRun: true)
        #expect {
            _ = try loader.load(text: "mqtt: {protocol: \"5\", sign: {key_file: /dev/null}}\nroutes: [{actions: [{mqtt: {topic: t}}]}]\n", file: "t.yaml")
        } throws: { error in
            "\(error)".contains("key_id")
        }
    }

    @Test func anAbsentSectionReadsAsTheSpecDefaults() throws {
        let context = PluginContext(stateDirectory: NSTemporaryDirectory(), dryRun: true, readers: [ReaderConfig.testing(name: "door")])
        let plugin = try MQTTPlugin(section: MQTTPlugin.defaultSection(), context: context)
        let spec = MQTTSection.spec
        let settings = plugin.connection.settings
        #expect(settings.host == (try Self.declared(spec, "host")))
        #expect(settings.port == Int(try Self.declared(spec, "port")))
        #expect(settings.keepalive == Int((try Self.duration(spec, "keepalive")).components.seconds))
        #expect(settings.protocolVersion.rawValue == (try Self.declared(spec, "protocol")))
        #expect(settings.backoff.initial == (try Self.duration(spec, "reconnect_delay")))
        #expect(settings.backoff.maximum == (try Self.duration(spec, "reconnect_delay_max")))
        #expect(settings.tls == nil)
        #expect(plugin.section.baseTopic == (try Self.declared(spec, "base_topic")))
        #expect(plugin.section.hold == (try Self.duration(spec, "hold")))
        #expect(spec.option("commands")?.defaultValue == nil && plugin.section.commandToken == nil)
        #expect(plugin.section.allowLock == (try Self.declared(spec, "allow_lock") == "true"))
        #expect(plugin.section.discovery == nil)
        #expect(settings.availabilityTopic == "\(plugin.section.baseTopic)/\(HomeAssistantDiscovery.topicID(settings.clientID))/status")
    }

    @Test func anActionWithoutOptionsReadsAsTheSpecDefaults() throws {
        let plugin = try MQTTPlugin(section: MQTTPlugin.defaultSection(), context: PluginContext(stateDirectory: NSTemporaryDirectory(), dryRun: true))
        let action = try #require(try plugin.makeAction(try ConfigValue.parse("{}", spec: MQTTPlugin.actionSpec), route: "r") as? MQTTAction)
        let spec = MQTTPlugin.actionSpec
        #expect(action.qos == Int(try Self.declared(spec, "qos")))
        #expect(action.retain == (try Self.declared(spec, "retain") == "true"))
        #expect(action.format.rawValue == (try Self.declared(spec, "payload_format")))
        #expect(action.payload == nil)
        #expect(action.hold == plugin.section.hold)
    }

    /// An `mqtt` input that gives only its topic (and `trust: broker`: the default,
    /// `signed`, needs keys), without an `mqtt:` section in the config.
    @Test func anInputWithOnlyItsTopicReadsAsTheSpecDefaults() throws {
        #expect(try Self.declared(MQTTInput.spec, "trust") == "signed")
        let options = try ConfigValue.parse("{topic: tagrouter/+/tag.arrived, trust: broker}", spec: MQTTInput.spec, path: "inputs[0].mqtt")
        let input = try MQTTInput(options: options, context: PluginContext(stateDirectory: NSTemporaryDirectory(), dryRun: true))
        #expect(input.format.rawValue == (try Self.declared(MQTTInput.spec, "format")))
        #expect(input.dedup == (try Self.duration(MQTTInput.spec, "dedup")))
        #expect(input.intake.maxAge == (try Self.duration(MQTTInput.spec, "max_age")))
        #expect(input.intake.maxAge == .seconds(30), "docs/security.md and docs/fleet.md say 30 s")
        #expect(input.connection.settings.host == (try Self.declared(MQTTSection.spec, "host")))
        #expect(input.connection.settings.port == Int(try Self.declared(MQTTSection.spec, "port")))
    }
}
