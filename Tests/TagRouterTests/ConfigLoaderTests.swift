import Foundation
import TagCore
import Testing

@testable import TagRouter

/// Loads config text with a registry holding only `log` and a test plugin with a rich spec.
func load(_ text: String, environment: [String: String] = ["HOME": "/tmp"], directory: String = "/tmp") throws(ConfigErrors) -> RouterConfig {
    try ConfigLoader(registry: PluginRegistry([LogPlugin.self, ProbePlugin.self]), environment: environment).load(text: text, file: "t.yaml", directory: directory)
}

/// The messages of a config that must fail, one per problem.
func problems(_ text: String, environment: [String: String] = ["HOME": "/tmp"], directory: String = "/tmp") -> [String] {
    do {
        _ = try load(text, environment: environment, directory: directory)
        return []
    } catch {
        return error.errors.map(\.description)
    }
}

@Suite struct ConfigLoaderTests {
    @Test func loadsReadersRoutesAndActions() throws {
        let config = try load("""
            readers:
              - name: front-door
                device: pn532_uart:/dev/ttyUSB0
                cooldown: 1500ms
            routes:
              - name: music
                match:
                  uri: "spotify:*"
                actions:
                  - log
                  - log: "{{uri}}"
                  - probe: { qos: 2, topic: "home/{{reader}}", retry: { attempts: 5, backoff: 2s }, queue: 7 }
                continue: true
              - actions: [log]
            """)
        var frontDoor = ReaderConfig.withDefaults(name: "front-door", device: "pn532_uart:/dev/ttyUSB0")
        frontDoor.cooldown = .milliseconds(1500)
        frontDoor.readsSignature = false  // `originality_check: auto`, and nothing here uses `tag.genuine`
        #expect(config.readers == [frontDoor])
        #expect(config.routes.map(\.name) == ["music", "route-2"])
        #expect(config.routes[0].continues)
        #expect(config.routes[0].actions.map(\.plugin) == ["log", "log", "probe"])
        let probe = config.routes[0].actions[2]
        #expect(probe.policy == DeliveryPolicy(queueCapacity: 7, attempts: 5, backoff: .seconds(2), maxBackoff: .seconds(60), spool: true, retryConfigured: true))
        #expect(probe.id == "music.2.probe")
        #expect(config.stateDirectory == "/tmp/.local/state/tagrouter")
    }

    /// Printing fails in no way a retry fixes, so `log` writes nothing ahead to
    /// disk unless asked; other actions spool by default.
    @Test func logSpoolsOnlyWhenAsked() throws {
        let config = try load("""
            routes:
              - actions: [log, { log: { spool: true } }, { probe: { topic: t } }]
            """)
        #expect(config.routes[0].actions.map(\.policy.spool) == [false, true, true])
    }

    @Test func jsonIsAccepted() throws {
        let config = try load(#"{"routes": [{"name": "all", "actions": ["log"]}]}"#)
        #expect(config.routes.map(\.name) == ["all"])
    }

    @Test func reportsEveryProblemWithLineAndColumn() {
        let found = problems("""
            readers:
              - name: a
                cooldwn: 1s
            routes:
              - name: r
                match:
                  uri_regex: "("
                  event: tag.arived
                actions:
                  - probe: { topic: "x", qos: 3 }
                  - probe: { topic: "x", qso: 1 }
                  - mqttt: {}
                  - log: { template: "{{tag.uidd}}" }
                  - { log: {}, probe: {} }
                continue: maybe
              - name: r
                actions: []
            """)
        #expect(found.contains("t.yaml:3:5: readers[0]: unknown key 'cooldwn' (did you mean 'cooldown'?)"))
        #expect(found.contains { $0.hasPrefix("t.yaml:7:18: routes[0].match.uri_regex: invalid regular expression '('") })
        #expect(found.contains("t.yaml:8:14: routes[0].match.event: expected tag.arrived, tag.removed, tag.held, tag.tapped, reader.connected, reader.disconnected, reader.error or reader.waiting, got \"tag.arived\" (did you mean 'tag.arrived'?)"))
        #expect(found.contains("t.yaml:10:35: routes[0].actions[0].probe.qos: expected 0, 1 or 2, got 3"))
        #expect(found.contains("t.yaml:11:30: routes[0].actions[1].probe: unknown key 'qso' (did you mean 'qos'?)"))
        #expect(found.contains("t.yaml:12:9: routes[0].actions[2]: unknown action 'mqttt'; actions are log, probe"))
        #expect(found.contains("t.yaml:13:27: routes[0].actions[3].log.template: template: unknown variable 'tag.uidd' (did you mean 'tag.uid'?); 'tag' has uid, uid_dashed, type, nfc_forum_type, atqa, sak, ndef_capacity, writable, name, groups, signature, genuine, sun, sun.verified, sun.uid, sun.counter, sun.reason"))
        #expect(found.contains { $0.hasPrefix("t.yaml:14:9: routes[0].actions[4]: expected one `<action>: <options>` pair") })
        #expect(found.contains("t.yaml:15:15: routes[0].continue: expected true or false, got \"maybe\""))
        #expect(found.contains("t.yaml:16:11: routes[1].name: route name 'r' is already used at line 5"))
        #expect(found.count == 10)
    }

    @Test func syntaxErrorsPointAtTheProblem() {
        #expect(problems("routes:\n  - name: [unclosed\n") == ["t.yaml:3:1: while parsing a flow sequence (from line 2, column 11): did not find expected ',' or ']'"])
        #expect(problems("routes: []\nroutes: []\n") == ["t.yaml:2:1: duplicate key 'routes' (first at line 1)"])
    }

    @Test func pluginReportsItsOwnProblemsThroughTheSameMarks() {
        #expect(problems("probe: { broker: \"\" }\nroutes: []\n") == ["t.yaml:1:18: probe.broker: must not be empty"])
        #expect(problems("routes: [{actions: [{probe: {topic: \"#bad\"}}]}]") == ["t.yaml:1:37: routes[0].actions[0].probe.topic: a topic to publish to cannot hold '#'"])
    }

    @Test func environmentAndSecretFiles() throws {
        let secret = "/tmp/tagrouter-secret-\(getpid())"
        try "hunter2\n".write(toFile: secret, atomically: true, encoding: .utf8)
        chmod(secret, 0o600)  // a secret file is private, or it is refused
        defer { unlink(secret) }
        let config = try load("""
            probe: { broker: "{{env.BROKER}}", password_file: \(secret) }
            routes: []
            """, environment: ["BROKER": "mqtt.local"])
        let probe = try #require(config.plugins.first as? ProbePlugin)
        #expect(probe.broker == "mqtt.local")
        #expect(probe.password == "hunter2")
        #expect(problems("probe: { broker: \"{{env.NOPE}}\" }") == [
            "t.yaml:1:19: probe.broker: template: environment variable 'NOPE' is not set (add | default: \"…\" to allow that)"
        ])
        #expect(problems("probe: { password_file: /nonexistent/x }") == [
            "t.yaml:1:25: probe.password_file: cannot read '/nonexistent/x': there is no such file; create it with the secret alone in it (mode 600, owned by the user tagrouter runs as)"
        ])
        #expect(problems("probe: { password_file: /tmp }") == ["t.yaml:1:25: probe.password_file: '/tmp' is a directory; name the file that holds the secret"])
    }

    @Test func forCheckConfigAMissingSecretIsAWarningAndAPlaceholder() throws {
        let loader = ConfigLoader(registry: PluginRegistry([LogPlugin.self, ProbePlugin.self]), environment: [:], missingSecretsAreWarnings: true)
        let config = try loader.load(text: """
            probe: { broker: "mqtt://{{env.BROKER}}/x", password_file: /nonexistent/x }
            routes: [{actions: [log]}]
            """, file: "t.yaml", directory: "/tmp")
        let probe = try #require(config.plugins.compactMap { $0 as? ProbePlugin }.first)
        #expect(probe.broker == "mqtt://${BROKER}/x")
        #expect(probe.password == "<the contents of /nonexistent/x>")
        #expect(config.warnings.map(\.description) == [
            "t.yaml:1:18: warning: probe.broker: environment variable 'BROKER' is not set; `run` refuses to start until it is (export BROKER=…)",
            "t.yaml:1:60: warning: probe.password_file: cannot read '/nonexistent/x': there is no such file; create it with the secret alone in it (mode 600, owned by the user tagrouter runs as); `run` refuses to start until it can",
        ])
    }

    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("5s", .seconds(5)), ("2m", .seconds(120)), ("1h", .seconds(3600)),
        ("1m30s", .seconds(90)), ("1.5s", .milliseconds(1500)), ("0", .zero),
        ("5", nil), ("5 parsecs", nil), ("", nil),
        // Longer than anything counts in nanoseconds (292 years) is refused, not a crash on the conversion.
        ("99999999999999999999h", nil), ("2562048h", nil), ("2000000h", .seconds(7_200_000_000)),
    ] as [(String, Duration?)])
    func durations(text: String, duration: Duration?) {
        #expect(Duration(configText: text) == duration)
    }

    @Test func aDurationTooLongForTheClockIsAProblemNotACrash() {
        #expect(problems("shutdown_timeout: 99999999999999999999h") == [
            "t.yaml:1:19: shutdown_timeout: expected a duration such as 500ms, 5s, 2m or 1h, got \"99999999999999999999h\"",
        ])
    }

    @Test func aNumberWithoutUnitIsNotADuration() {
        #expect(problems("shutdown_timeout: 5") == ["t.yaml:1:19: shutdown_timeout: expected a duration such as 500ms, 5s, 2m or 1h, got \"5\""])
    }

    @Test func unknownTopLevelKeysSuggest() {
        #expect(problems("route: []") == ["t.yaml:1:1: unknown key 'route' (did you mean 'routes'?)"])
    }
}

/// Every message form the loader produces, with its line and column.
@Suite struct ConfigErrorFormTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let yaml: String
        let message: String
        var testDescription: String { message }
    }

    static let cases: [Case] = [
        Case(yaml: "routes: [{name: r}]", message: "t.yaml:1:10: routes[0]: missing required key 'actions' (what to do, in order: `- <action>: <options>` (`- log` alone for defaults))"),
        Case(yaml: "routes: {name: r}", message: "t.yaml:1:9: routes: expected a list, got a mapping"),
        Case(yaml: "readers: [front-door]", message: "t.yaml:1:11: readers[0]: expected a mapping with keys name, device, cooldown, exit_delay, ignore_on_connect, hold, poll_interval, polling, watchdog, if_busy, feedback, beep_on_detect, originality_check, got \"front-door\""),
        Case(yaml: "readers: [{name: a}, {name: a}]", message: "t.yaml:1:29: readers[1].name: reader name 'a' is already used at line 1"),
        Case(yaml: "readers: [{polling: faster}]", message: "t.yaml:1:21: readers[0].polling: expected auto-poll, list-passive or fast, got \"faster\" (did you mean 'fast'?)"),
        Case(yaml: "routes: [{actions: [{probe: {qos: one}}]}]", message: "t.yaml:1:35: routes[0].actions[0].probe.qos: expected 0, 1 or 2, got \"one\""),
        Case(yaml: "routes: [{actions: [{probe: {qos: \"1\"}}]}]", message: "t.yaml:1:35: routes[0].actions[0].probe.qos: expected 0, 1 or 2, got \"1\""),
        Case(yaml: "routes: [{actions: [{log: {queue: 0}}]}]", message: "t.yaml:1:35: routes[0].actions[0].log.queue: expected an integer from 1 to 1000000, got 0"),
        Case(yaml: "routes: [{actions: [{log: {retry: {attempts: 2, backof: 1s}}}]}]", message: "t.yaml:1:49: routes[0].actions[0].log.retry: unknown key 'backof' (did you mean 'backoff'?)"),
        Case(yaml: "routes: [{actions: [{log: \"{{uri | uper}}\"}]}]", message: "t.yaml:1:28: routes[0].actions[0].log.template: template: unknown filter 'uper' (did you mean 'upper'?)"),
        Case(yaml: "routes: [{actions: [{log: {template: [a]}}]}]", message: "t.yaml:1:38: routes[0].actions[0].log.template: expected a template (text with {{variables}}), got a list"),
        Case(yaml: "routes: [{actions: [{probe: [1]}]}]", message: "t.yaml:1:29: routes[0].actions[0].probe: expected a mapping with keys topic, qos, queue, retry, spool, got a list"),
        Case(yaml: "routes: [{match: {json: [a]}, actions: []}]", message: "t.yaml:1:25: routes[0].match.json: expected a mapping of names to values, got a list"),
        Case(yaml: "routes: [{match: {uid: ~}, actions: []}]", message: "t.yaml:1:24: routes[0].match.uid: expected a string, got nothing"),
        Case(yaml: "routes: [{match: {uid: \"\"}, actions: []}]", message: "t.yaml:1:24: routes[0].match.uid: '' is not a tag UID: it has no hex digits"),
        Case(yaml: "routes: [{actions: [{log: {}}], continue: yes}]", message: "t.yaml:1:43: routes[0].continue: expected true or false, got \"yes\""),
        Case(yaml: "{[a]: 1}", message: "t.yaml:1:2: a mapping key must be a plain name, not a list"),
        Case(yaml: "a: *missing", message: "t.yaml:1:4: unknown alias '*missing'"),
        Case(yaml: "routes: []\n---\nroutes: []", message: "t.yaml:2:1: a config file holds one YAML document; remove the second '---'"),
        Case(yaml: "routes: [\"unclosed]", message: "t.yaml:1:20: while scanning a quoted scalar (from line 1, column 10): found unexpected end of stream"),
    ]

    @Test(arguments: cases) func reported(_ example: Case) {
        #expect(problems(example.yaml) == [example.message])
    }

    /// A config that cannot be read says why.
    @Test(arguments: [("/nonexistent/tagrouter.yaml", "there is no such file"), ("/proc/self", "Is a directory")])
    func unreadableFile(path: String, reason: String) {
        do {
            _ = try ConfigLoader(registry: PluginRegistry([LogPlugin.self])).load(file: path)
            Issue.record("loaded \(path)")
        } catch {
            #expect(error.description == "\(path):1:1: cannot read the config file: \(reason)\n1 problem")
        }
    }
}
