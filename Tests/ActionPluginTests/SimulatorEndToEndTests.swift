import ExecPlugin
import Foundation
import NDEF
import OpenURLPlugin
import PN532Sim
import ShellPlugin
import TagCore
import TagKit
import TagReader
import TagRouter
import Testing
import WebhookPlugin

/// A tag placed on the PN532 simulator, read by libnfc through the reader
/// loop, routed by the router: the shell, the opener, the HTTP server and the
/// exec plugin each see the right thing. (Keyed on the UID: the reader on main
/// does not read NDEF messages yet; the text and URI paths are covered by the
/// plugin tests with events.)
@Suite struct SimulatorEndToEndTests {
    @Test func placingATagReachesEveryPlugin() async throws {
        let sandbox = try Sandbox()
        let server = try await HTTPTestServer([.init()])
        let opener = try sandbox.write("opener", "#!/bin/sh\nprintf '%s' \"$1\" > '\(sandbox.file("opened"))'\n", executable: true)
        var config = try ConfigLoader(registry: PluginRegistry([ShellPlugin.self, OpenURLPlugin.self, WebhookPlugin.self, ExecPlugin.self]))
            .load(text: """
                open:
                  handler: [\(opener), "{{uri}}"]
                routes:
                  - name: front-door
                    match: {event: tag.arrived}
                    actions:
                      - shell: {command: [/bin/sh, -c, 'printf "%s|%s" "$1" "$TAG_READER" > shell.out', sh, "{{tag.uid}}"], cwd: .}
                      - open: "https://example.com/tags/{{tag.uid}}"
                      - webhook: "\(server.url)"
                      - exec: {command: [python3, \(repositoryRoot)/config/examples/exec-plugin.py, taps.log], cwd: .}
                """, file: "e2e.yaml", directory: sandbox.path)
        config.stateDirectory = sandbox.file("state")
        let router = Router(config: config)
        await router.start()

        let simulator = try PN532Simulator(pacing: .none)
        defer { simulator.close() }
        let supervisor = ReaderSupervisor(readers: [
            ReaderConfig(name: "door", device: simulator.connstring, cooldown: .zero, exitDelay: .zero, pollInterval: .milliseconds(20)),
        ])
        defer { supervisor.stop() }
        let routing = Task { await router.route(supervisor.events) }
        defer { routing.cancel() }

        let uid: [UInt8] = [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80]
        let message = NDEFMessage(records: [.uri("https://example.com/e2e"), .text("$(touch pwned)")]).encoded()
        let area = try Type2TLVArea.build(message: message, dataAreaSize: Type2Tag.Variant.ntag215.userBytes)
        simulator.place(try Type2Tag(variant: .ntag215, uid: uid, dataArea: area))

        let requests = await server.waitForRequests(1)
        #expect(await eventually { sandbox.exists("shell.out") && sandbox.exists("opened") && sandbox.exists("taps.log") })
        await router.shutdown(timeout: .seconds(10))

        #expect(try sandbox.read("shell.out") == "04a224b2c35e80|door")
        #expect(try sandbox.read("opened") == "https://example.com/tags/04a224b2c35e80")
        #expect(try sandbox.read("taps.log").contains(" door 04a224b2c35e80 "))
        let body = try JSONValue.parse(try #require(requests.first).body)
        #expect(body["event"] == "tag.arrived")
        #expect(body.value(atPath: "tag.uid") == "04a224b2c35e80")
        #expect(body["reader"] == "door")
    }
}
