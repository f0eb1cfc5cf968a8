import Foundation
import Harness
import OrderedJSON
import Testing
import TestSupport

/// Secrets kept out of the config ({{env.…}}, *_file, a URL's password, the MQTT
/// password) are used, but never printed: not by check-config, --explain,
/// --dry-run, nor by the daemon's logs — the per-tap lines, the lines of failing
/// deliveries, the broker refusing the password.
@Suite struct SecretTests {
    static let environment = ["HOOK_ID": "hook-id-9f8e7d", "HOOK_PASS": "hook-pass-6c5b4a", "API_KEY": "api-key-3e2d1c", "ARG_SECRET": "arg-secret-0b1a2c", "MQTT_PASS": "mqtt-pass-7e6d5c"]
    static let files = ["header.secret": "header-file-5d4c3b", "token": "bearer-token-8a7b6c", "hmac.key": "hmac-key-1f2e3d"]
    static let literalPassword = "literal-pw-4b3a2f"
    static var secrets: [String] { Array(environment.values) + Array(files.values) + [literalPassword] }

    @Test func noSecretIsPrintedByCheckConfigExplainDryRunOrAFailingDelivery() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        for (name, contents) in Self.files { chmod(try scratch.write(name, contents + "\n"), 0o600) }
        let server = try await HTTPTestServer([.init(status: 500)])
        // The broker knows another password: the connection is refused and the daemon says so.
        var options = MosquittoBroker.Options()
        options.users = ["tagrouter": "the-right-one"]
        let broker = try await MosquittoBroker(options)
        try await broker.start()
        let base = "http://127.0.0.1:\(server.port)"
        let config = try scratch.write("tagrouter.yaml", """
            state_dir: \(scratch.path)/state
            mqtt: { host: 127.0.0.1, port: \(broker.port), username: tagrouter, password: "{{env.MQTT_PASS}}", hold: 300ms }
            routes:
              - name: hook
                actions:
                  - webhook:
                      url: "http://user:{{env.HOOK_PASS}}@127.0.0.1:\(server.port)/api/webhook/{{env.HOOK_ID}}"
                      headers: { X-Api-Key: "{{env.API_KEY}}" }
                      header_files: { X-File-Secret: header.secret }
                      bearer_token_file: token
                      hmac: { secret_file: hmac.key }
                      retry: { attempts: 1 }
                      spool: false
                  - webhook: { url: "http://admin:\(Self.literalPassword)@127.0.0.1:\(server.port)/plain", retry: { attempts: 1 }, spool: false }
                  - shell: { command: [/bin/true, "{{env.ARG_SECRET}}", "{{tag.uid}}"] }
                  - mqtt: { qos: 1, retry: { attempts: 1 }, spool: false }
            """)
        let events = try scratch.write("events.jsonl", arrival(uid: "04a1").serialized() + "\n" + arrival(uid: "04a2").serialized() + "\n")
        let tagrouter = BuiltProducts.tagrouter.path
        func run(_ arguments: [String]) async throws -> ToolRun {
            try await ToolRun(tagrouter, arguments, environment: Self.environment, directory: scratch.path)
        }

        let summary = try await run(["check-config", config])
        let explained = try await run(["check-config", "--explain", "--uid", "04a1", config])
        let dryRun = try await run(["run", "--config", config, "--events-from", events, "--dry-run", "--log-level", "debug"])
        let failing = try await run(["run", "--config", config, "--events-from", events, "--log-level", "debug", "--log-format", "json"])
        for (name, output) in [("check-config", summary), ("--explain", explained), ("--dry-run", dryRun), ("run", failing)] {
            #expect(output.status == 0, "\(name): \(output.stderr)")
            for secret in Self.secrets {
                #expect(!(output.stdout + output.stderr).contains(secret), "\(name) printed \(secret)")
            }
        }
        #expect(explained.stdout.contains("POST http://***@127.0.0.1:\(server.port)/api/webhook/*** ("))
        #expect(explained.stdout.contains("POST http://***@127.0.0.1:\(server.port)/plain ("))
        #expect(explained.stdout.contains("run /bin/true *** 04a1"), "\(explained.stdout)")
        #expect(dryRun.stderr.contains("would POST \(base.replacingOccurrences(of: "://", with: "://***@"))/api/webhook/***"))
        #expect(failing.stderr.contains("answered HTTP 500"))
        // What was searched holds the lines that could leak: a tap, a failing delivery, the refused password.
        #expect(failing.stderr.contains(#""msg":"tap on door: ntag215 04a1"#), "\(failing.stderr)")
        #expect(failing.stderr.contains("hook.0.webhook: delivery failed"))
        #expect(failing.stderr.contains("hook.3.mqtt: delivery failed"))
        #expect(failing.stderr.contains("mqtt.password_file"), "the broker's refusal is logged")
        await broker.stop()

        // The secrets did reach the server.
        let requests = await server.waitForRequests(4)
        let hooked = try #require(requests.first { $0.path.hasPrefix("/api/webhook/") })
        #expect(hooked.path == "/api/webhook/hook-id-9f8e7d")
        #expect(hooked.headers["x-api-key"] == "api-key-3e2d1c")
        #expect(hooked.headers["x-file-secret"] == "header-file-5d4c3b")
        #expect(hooked.headers["authorization"]?.hasPrefix("Bearer bearer-token-8a7b6c") == true)
    }
}
