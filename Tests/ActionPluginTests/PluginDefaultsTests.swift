import Foundation
import TagRouter
import Testing

@testable import ExecPlugin
@testable import OpenURLPlugin
@testable import ShellPlugin
@testable import WebhookPlugin

/// Without their sections, and with actions that set only what is required,
/// the plugins run with the defaults their specs declare — the only place they are written.
@Suite struct PluginDefaultsTests {
    static func declared(_ spec: OptionSpec?, _ key: String) throws -> String { try #require(spec?.option(key)?.defaultValue, "\(key) has no default") }
    static func duration(_ spec: OptionSpec?, _ key: String) throws -> Duration { try #require(Duration(configText: try declared(spec, key))) }
    /// A list default (`[a, b]`) as its words.
    static func words(_ spec: OptionSpec?, _ key: String) throws -> [String] {
        try #require(try YAMLParser.parse(try declared(spec, key), file: "default").elements?.compactMap(\.scalar))
    }

    @Test func shell() throws {
        let (_, action) = try makeAction(ShellPlugin.self, "{command: [true]}")
        let shell = try #require(action as? ShellAction)
        #expect(shell.timeout == (try Self.duration(ShellPlugin.actionSpec, "timeout")))
        #expect(shell.limit.capacity == Int(try Self.declared(ShellPlugin.sectionSpec, "max_concurrent")))
        #expect(shell.workingDirectory == nil)
    }

    @Test func exec() throws {
        let (_, action) = try makeAction(ExecPlugin.self, "{command: [cat]}")
        let session = try #require(action as? ExecAction).session
        #expect(session.replyTimeout == (try Self.duration(ExecPlugin.actionSpec, "timeout")))
        #expect(session.backoff.initial == (try Self.duration(ExecPlugin.actionSpec, "restart_backoff")))
        #expect(session.backoff.maximum == (try Self.duration(ExecPlugin.actionSpec, "max_restart_backoff")))
    }

    @Test func webhook() throws {
        let (_, action) = try makeAction(WebhookPlugin.self, "{url: \"http://127.0.0.1:9/\"}")
        let webhook = try #require(action as? WebhookAction)
        let spec = WebhookPlugin.actionSpec
        #expect(webhook.method == (try Self.declared(spec, "method")))
        #expect(webhook.contentType == (try Self.declared(spec, "content_type")))
        #expect(webhook.timeout == (try Self.duration(spec, "timeout")))
        #expect(webhook.verifyTLS == (try Self.declared(spec, "insecure") == "false"))
        #expect(webhook.body == nil && webhook.signer == nil)
    }

    @Test func openWithoutItsSection() throws {
        let (_, action) = try makeAction(OpenURLPlugin.self, "{}")
        let open = try #require(action as? OpenAction)
        let section = OpenURLPlugin.sectionSpec
        #expect(open.uri.source == (try YAMLParser.parse(try Self.declared(OpenURLPlugin.actionSpec, "uri"), file: "default").scalar))
        #expect(open.policy.allowed == Set(try Self.words(section, "allow_schemes")))
        #expect(open.handlers.fallback.map(\.source) == (try Self.words(section, "handler")))
        #expect(open.handlers.byScheme.isEmpty)
        #expect((open.confirmation != nil) == (try Self.declared(section, "confirm") == "true"))
        // An action that asks to confirm takes the section's timeout and notifier.
        let confirming = try #require(try makeAction(OpenURLPlugin.self, "{confirm: true}").action as? OpenAction).confirmation
        #expect(confirming?.timeout == (try Self.duration(section, "confirm_timeout")))
        #expect(confirming?.notifier == (try Self.words(section, "notifier")))
    }
}
