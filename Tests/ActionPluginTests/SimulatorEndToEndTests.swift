import ExecPlugin
import Foundation
import NDEF
import OpenURLPlugin
import OrderedJSON
import PN532Sim
import ShellPlugin
import TagCore
import TagKit
import TagReader
import TagRouter
import TagRouterDaemon
import TestSupport
import Testing
import WebhookPlugin

/// A tag placed on the PN532 simulator, read by libnfc through the reader
/// loop, routed by the router: the shell, the opener, the HTTP server and the
/// exec plugin each see the right thing — and the tag's hostile text runs nowhere.
@Suite struct SimulatorEndToEndTests {
    @Test func placingATagReachesEveryPlugin() async throws {
        let sandbox = try Sandbox()
        let server = try await HTTPTestServer([.init()])
        let opener = try sandbox.write("opener", "#!/bin/sh\nprintf '%s' \"$1\" > '\(sandbox.file("opened"))'\n", executable: true)
        var config = try ConfigLoader(registry: BuiltinPlugins.registry)
            .load(text: """
                open:
                  handler: [\(opener), "{{uri}}"]
                routes:
                  - name: front-door
                    match: {event: tag.arrived}
                    actions:
                      - shell: {command: [/bin/sh, -c, 'printf "%s|%s|%s" "$1" "$2" "$TAG_TEXT" > shell.out', sh, "{{tag.uid}}", "{{text}}"], cwd: .}
                      - open
                      - webhook: "\(server.url)"
                      - exec: {command: [python3, \(repositoryRoot)/config/examples/exec-plugin.py, taps.log], cwd: .}
                """, file: "e2e.yaml", directory: sandbox.path)
        config.stateDirectory = sandbox.file("state")
        let simulator = try PN532Simulator(pacing: .none)
        defer { simulator.close() }
        let door = ReaderConfig.testing(name: "door", device: simulator.connstring)
        let router = Router(config: config)
        // As `tagrouter run` does: the reader offers its events to the router's buffer.
        let requests = try await router.whileRunning { buffer in
            try await ReaderService(readers: [door], drivers: BuiltinPlugins.readers, emit: buffer.offer).whileRunning {
                let uid: [UInt8] = [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80]
                let message = NDEFMessage(records: [.uri("https://example.com/e2e"), .text("$(touch pwned); `touch pwned`")]).encoded()
                simulator.place(try Type2Tag(.ntag215, uid: uid, message: message))

                let requests = await server.waitForRequests(1)
                #expect(await eventually { sandbox.exists("shell.out") && sandbox.exists("opened") && sandbox.exists("taps.log") })
                return requests
            }
        }

        let text = "$(touch pwned); `touch pwned`"
        #expect(try sandbox.read("shell.out") == "04a224b2c35e80|\(text)|\(text)")
        #expect(try sandbox.read("opened") == "https://example.com/e2e")
        #expect(try sandbox.read("taps.log").hasSuffix(" door 04a224b2c35e80 \(text)\n"))
        let body = try JSONValue.parse(try #require(requests.first).body)
        #expect(body["event"] == "tag.arrived")
        #expect(body.value(atPath: "tag.uid") == "04a224b2c35e80")
        #expect(body["reader"] == "door")
        #expect(body["uri"] == "https://example.com/e2e")
        #expect(body["text"] == .string(text))
        #expect(!sandbox.exists("pwned"))
    }
}
