import ExecPlugin
import Foundation
import OpenURLPlugin
import ShellPlugin
import TagRouter
import TagRouterDaemon
import TestSupport
import Testing
import WebhookPlugin

/// The plugins under the router's own queues and delivery policy, as `tagrouter run` uses them.
@Suite struct RouterDeliveryTests {
    private static let registry = BuiltinPlugins.registry

    private func router(_ yaml: String, in sandbox: Sandbox) throws -> Router {
        var config = try ConfigLoader(registry: Self.registry).load(text: yaml, file: "t.yaml", directory: sandbox.path)
        config.stateDirectory = sandbox.file("state")
        return Router(config: config)
    }

    @Test func webhookRetriesServerErrorsHonouringRetryAfterButNotClientErrors() async throws {
        let sandbox = try Sandbox()
        let server = try await HTTPTestServer([
            .init(status: 500), .init(status: 429, headers: ["Retry-After": "1"]), .init(status: 200), .init(status: 400), .init(status: 200),
        ])
        let router = try router("""
            routes:
              - name: hook
                actions:
                  - webhook: {url: "\(server.url)", retry: {attempts: 5, backoff: 1ms}, spool: false}
            """, in: sandbox)
        try await router.whileRunning { buffer in
            let retried = tagEvent(text: "retried")
            buffer.offer(retried)
            let firstThree = await server.waitForRequests(3)
            #expect(firstThree.count == 3)
            #expect(firstThree.allSatisfy { $0.headers["idempotency-key"] == retried.id })
            if firstThree.count == 3 {
                #expect(firstThree[2].time - firstThree[1].time >= 0.95, "the retry after 429 came before Retry-After: 1")
            }
            let refused = tagEvent(text: "refused")
            let after = tagEvent(text: "after")
            buffer.offer(refused)
            buffer.offer(after)
            let all = await server.waitForRequests(5)
            #expect(all.dropFirst(3).map { $0.headers["idempotency-key"] } == [refused.id, after.id], "a 400 was retried")
        }
        #expect(router.counters["hook.0.webhook"]?.retried == 2)
        #expect(router.counters["hook.0.webhook"]?.failed == 1)
    }

    @Test func shellOpenAndExecFromOneConfig() async throws {
        let sandbox = try Sandbox()
        let opener = try sandbox.write("opener", "#!/bin/sh\nprintf '%s' \"$1\" > '\(sandbox.file("opened"))'\n", executable: true)
        let router = try router("""
            open:
              handler: [\(opener), "{{uri}}"]
            routes:
              - name: all
                match: {event: tag.arrived}
                actions:
                  - shell: {command: [/bin/sh, -c, 'printf "%s" "$1" > shell.out', sh, "{{text}}"], cwd: .}
                  - open
                  - exec: {command: [python3, \(repositoryRoot)/config/examples/exec-plugin.py, \(sandbox.file("taps.log"))]}
            """, in: sandbox)
        try await router.whileRunning { buffer in
            buffer.offer(tagEvent(text: "$(touch pwned)", uri: "https://example.com/x"))
            #expect(await eventually { sandbox.exists("shell.out") && sandbox.exists("opened") && sandbox.exists("taps.log") })
        }
        #expect(try sandbox.read("shell.out") == "$(touch pwned)")
        #expect(try sandbox.read("opened") == "https://example.com/x")
        #expect(try sandbox.read("taps.log").hasSuffix(" door 04a224b2c35e80 $(touch pwned)\n"))
        #expect(!sandbox.exists("pwned"))
    }
}
