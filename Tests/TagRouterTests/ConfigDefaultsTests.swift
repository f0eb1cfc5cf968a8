import TagCore
import Testing

@testable import TagRouter

/// Defaults are written once, in the specs: a section the config leaves out
/// reads as the spec's defaults, and reading a key the spec does not declare is
/// caught (a typed error, and a trap in debug builds).
@Suite struct ConfigDefaultsTests {
    /// The default a spec declares for `key`, parsed the way a config value is.
    static func declaredDefault(_ spec: OptionSpec, _ key: String) throws -> ConfigValue {
        let text = try #require(spec.option(key)?.defaultValue, "\(key) has no default")
        let node = try YAMLParser.parse(text, file: "default")
        return ConfigValue(node: node, path: key, type: spec.option(key)?.type, context: ConfigContext())
    }

    static func duration(_ spec: OptionSpec, _ key: String) throws -> Duration { try #require(try declaredDefault(spec, key).durationValue) }
    static func int(_ spec: OptionSpec, _ key: String) throws -> Int { try #require(try declaredDefault(spec, key).intValue) }
    /// (That a boolean default is `true` or `false` at all is `everyDeclaredDefaultIsAValidValueOfItsOption`'s job.)
    static func bool(_ spec: OptionSpec, _ key: String) throws -> Bool { try declaredDefault(spec, key).boolValue == true }
    static func string(_ spec: OptionSpec, _ key: String) throws -> String { try #require(try declaredDefault(spec, key).stringValue) }

    /// A default that is not a valid value would be what every config without the key runs with.
    @Test func everyDeclaredDefaultIsAValidValueOfItsOption() throws {
        let loader = ConfigLoader(registry: PluginRegistry([LogPlugin.self, ProbePlugin.self, RecorderPlugin.self]))
        let specs = [("", loader.spec), ("tags[]", TagEntry.spec), ("<action>", OptionSpec("", DeliveryPolicy.options))]
        let problems = specs.flatMap { path, spec in spec.invalidDefaults(path: path) } + loader.registry.invalidDefaults
        #expect(problems.isEmpty, "\(problems)")
    }

    /// The check finds a bad default at any depth (an MQTT input once declared `1d`, which no duration reads).
    @Test func aDefaultThatIsNotAValueOfItsOptionIsFoundAtAnyDepth() {
        let spec = OptionSpec("probe", [
            Option("expiry", .duration, default: "1d", "a day"),
            Option("nested", .section(OptionSpec("inner", [Option("qos", .int(), default: "one", "a number")])), "a section"),
        ])
        let problems = spec.invalidDefaults(path: "probe")
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.first?.hasPrefix("probe.expiry: default 1d") == true)
        #expect(problems.last?.hasPrefix("probe.nested.qos: default one") == true)
    }

    /// Without `readers:`, `shutdown_timeout` and `event_buffer`, the loaded config has what the specs declare.
    @Test func absentTopLevelKeysAndReaderOptionsReadAsTheSpecDefaults() throws {
        let config = try load("routes: [{actions: [log]}]")
        let top = ConfigLoader(registry: PluginRegistry([LogPlugin.self])).spec
        #expect(config.shutdownTimeout == (try Self.duration(top, "shutdown_timeout")))
        #expect(config.eventBuffer == (try Self.int(top, "event_buffer")))
        #expect(config.metrics == nil)
        let readers = try Self.declaredDefault(top, "readers").elements
        #expect(config.readers.map(\.name) == readers.compactMap { $0.node["name"]?.scalar })
        let reader = try #require(config.readers.first)
        let spec = ReaderConfig.spec
        #expect(reader.device == (try Self.string(spec, "device")))
        #expect(reader.cooldown == (try Self.duration(spec, "cooldown")))
        #expect(reader.exitDelay == (try Self.duration(spec, "exit_delay")))
        #expect(reader.ignoreOnConnect == (try Self.bool(spec, "ignore_on_connect")))
        #expect(reader.hold == nil)
        #expect(reader.pollInterval == (try Self.duration(spec, "poll_interval")))
        #expect(reader.polling.rawValue == (try Self.string(spec, "polling")))
        #expect(reader.watchdog == (try Self.duration(spec, "watchdog")))
        #expect(reader.ifBusy.rawValue == (try Self.string(spec, "if_busy")))
    }

    /// An action without `queue`, `retry` or `spool`, and a route without `continue` or `match`.
    @Test func absentDeliveryOptionsAndRouteKeysReadAsTheSpecDefaults() throws {
        let config = try load("routes: [{actions: [{probe: {}}]}]")
        let spec = OptionSpec("", DeliveryPolicy.options)
        let retry = try #require({ if case .section(let inner)? = spec.option("retry")?.type { inner } else { nil } }())
        let policy = try #require(config.routes.first?.actions.first?.policy)
        #expect(policy.queueCapacity == (try Self.int(spec, "queue")))
        #expect(policy.attempts == (try Self.int(retry, "attempts")))
        #expect(policy.backoff == (try Self.duration(retry, "backoff")))
        #expect(policy.maxBackoff == (try Self.duration(retry, "max_backoff")))
        #expect(policy.spool == (try Self.bool(spec, "spool")))
        #expect(!policy.retryConfigured)
        let route = try #require(config.routes.first)
        #expect(route.continues == (try Self.bool(Route.spec, "continue")))
        #expect(route.matcher.kinds.map(\.rawValue) == [try Self.string(MatchSpec.spec, "event")])
    }

    /// A plugin whose section is absent is built from its defaults, not from nil.
    @Test func aPluginWithoutItsSectionGetsTheSectionDefaults() throws {
        let config = try load("routes: [{actions: [{probe: {}}]}]")
        let probe = try #require(config.plugins.first { $0 is ProbePlugin } as? ProbePlugin)
        #expect(probe.broker == (try Self.string(ProbePlugin.sectionSpec!, "broker")))
        #expect(probe.password == nil)
    }

    @Test func aSectionReadsAbsentKeysAsTheirDefaultsAndWrittenOnesAsWritten() throws {
        let section = try ConfigValue.parse("qos: 2", spec: ProbePlugin.actionSpec, path: "probe")
        #expect(section.int("qos") == 2)
        #expect(section.template("topic").source == (try Self.string(ProbePlugin.actionSpec, "topic")))
        #expect(!section.has("topic"))
    }

    @Test func readingAKeyTheSpecDoesNotDeclareIsATypedError() throws {
        let section = ProbePlugin.defaultSection()
        #expect(throws: UndeclaredKey(key: "qso", section: "probe", declared: ["broker", "password_file"])) {
            try section.declaredOption("qso")
        }
        #expect(try section.declaredOption("broker")?.name == "broker")
        #expect(section.declares("broker"))
        #expect(!section.declares("qso"))
        let message = UndeclaredKey(key: "qso", section: "routes[0].actions[1].probe", declared: ["topic", "qos"]).description
        #expect(message.contains("'qso'") && message.contains("routes[0].actions[1].probe") && message.contains("topic, qos"))
    }

    #if DEBUG
    /// The debug-build check is real: a read of an undeclared key ends the process.
    @Test func readingAnUndeclaredKeyTrapsInDebugBuilds() async {
        await #expect(processExitsWith: .failure) {
            _ = ProbePlugin.defaultSection().optionalString("qso")
        }
    }

    /// A defaulted key read as optional would bring back `?? fallback` at the reader: it traps too.
    @Test func readingADefaultedKeyAsOptionalTrapsInDebugBuilds() async {
        await #expect(processExitsWith: .failure) {
            _ = ProbePlugin.defaultSection().optionalTemplate("broker")
        }
    }
    #endif
}
