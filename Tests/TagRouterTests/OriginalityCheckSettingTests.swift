import TagCore
import Testing

@testable import TagRouter

/// `readers[].originality_check`: READ_SIG costs ~8 ms a tap, so with `auto` (the
/// default) a reader asks for the signature only when the config uses `tag.genuine`.
@Suite struct OriginalityCheckSettingTests {
    static func readsSignature(_ routesAndTags: String, setting: String? = nil) throws -> Bool {
        let option = setting.map { ", originality_check: \($0)" } ?? ""
        let config = try load("readers: [{name: door, device: \"pn532_uart:/dev/ttyUSB0\"\(option)}]\n" + routesAndTags)
        return try #require(config.readers.first).readsSignature
    }

    @Test func autoAsksOnlyWhenSomethingUsesTheVerdict() throws {
        #expect(try !Self.readsSignature("routes: [{actions: [log]}]"))
        #expect(try !Self.readsSignature("routes: [{match: {uri: \"https://*\"}, actions: [{log: \"{{tag.uid}} {{json}}\"}]}]"))
        #expect(try Self.readsSignature("routes: [{match: {genuine: true}, actions: [log]}]"))
        #expect(try Self.readsSignature("routes: [{match: {json: {tag.signature: \"*\"}}, actions: [log]}]"))
        #expect(try Self.readsSignature("routes: [{actions: [{log: \"{{tag.uid}} genuine={{tag.genuine}}\"}]}]"))
        #expect(try Self.readsSignature("routes: [{actions: [{log: {template: \"{{ tag.signature | default: \\\"-\\\" }}\"}}]}]"))
        #expect(try Self.readsSignature("tags: [{name: anna, uid: 04ab87f2ca1190, require_genuine: true}]\nroutes: [{actions: [log]}]"))
    }

    @Test func alwaysAndNeverOverrideWhatTheConfigUses() throws {
        #expect(try Self.readsSignature("routes: [{actions: [log]}]", setting: "always"))
        #expect(try !Self.readsSignature("routes: [{match: {genuine: true}, actions: [log]}]", setting: "never"))
        #expect(try Self.readsSignature("routes: [{match: {genuine: true}, actions: [log]}]", setting: "auto"))
    }

    @Test func theOneShotToolsAlwaysAsk() {
        #expect(ReaderConfig.withDefaults(name: "desk", device: "auto").readsSignature)
    }

    @Test func anUnknownSettingIsNamed() {
        do {
            _ = try load("readers: [{name: door, originality_check: sometimes}]\nroutes: [{actions: [log]}]")
            Issue.record("loaded a config with originality_check: sometimes")
        } catch {
            #expect("\(error)".contains("t.yaml:1:43: readers[0].originality_check"))
        }
    }
}
