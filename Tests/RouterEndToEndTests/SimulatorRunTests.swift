import Foundation
import OrderedJSON
import Testing

/// The real reader path: the PN532 simulator on a pseudo-terminal, libnfc,
/// TagReader's loop, the router, and `log` actions proving which routes fired.
@Suite struct SimulatorRunTests {
    /// At `--log-level debug` libnfc logs too (tab-separated lines on stdio's
    /// stderr): in a JSON log they come out as JSON entries, so every line of the
    /// daemon's stderr parses.
    @Test func aJSONLogAtDebugHoldsOnlyJSONLines() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let (simulator, link, control) = try await startSimulator(in: scratch)
        defer { simulator.stop() }
        let routes = #"[{name: up, match: {event: reader.connected}, actions: [{log: "connected {{reader}}"}]}, "#
            + #"{name: any, match: {event: tag.arrived}, actions: [{log: "tap {{tag.uid}}"}]}]"#
        let file = try scratch.write("tagrouter.yaml", "state_dir: \(scratch.path)/state\nreaders: [{name: front-door, device: \"pn532_uart:\(link)\"}]\nroutes: \(routes)\n")
        // The level --log-level debug would pick, given explicitly: an in-process libnfc test of this
        // process may have set LIBNFC_LOG_LEVEL=0 in the environment the daemon inherits.
        let daemon = try TagrouterProcess(["run", "--config", file, "--log-format", "json", "--log-level", "debug"], directory: scratch.path,
                                environment: ["LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false", "LIBNFC_LOG_LEVEL": "3"])
        defer { daemon.stop() }
        #expect(try await daemon.stdout(count: 1, timeout: .seconds(30)) == ["connected front-door"])
        try await request(control, #"{"op":"place","type":"ntag215","uid":"04a224b2c35e80","records":[{"text":"hi"}]}"#, in: scratch)
        #expect(try await daemon.stdout(count: 2, timeout: .seconds(30)).last == "tap 04a224b2c35e80")
        try await daemon.stderr(containing: "libnfc.")  // a category, raw or in JSON
        daemon.signal(SIGTERM)
        #expect(try await daemon.exitStatus() == 0)
        let lines = daemon.stderr
        let unparsed = lines.filter { line in (try? JSONValue.parse(line)).map { if case .object = $0 { false } else { true } } ?? true }
        #expect(unparsed.isEmpty, "lines of the JSON log that are not JSON objects: \(unparsed.prefix(5))")
        #expect(lines.contains { $0.contains(#""category":"libnfc."#) })
    }

    @Test func tapsOnTheSimulatorFireTheMatchingRoutes() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let (simulator, link, control) = try await startSimulator(in: scratch)
        defer { simulator.stop() }
        let file = try scratch.write("tagrouter.yaml", """
            state_dir: \(scratch.path)/state
            readers:
              - { name: front-door, device: "pn532_uart:\(link)", cooldown: 0s, exit_delay: 200ms }
            routes:
              - name: up
                match: { event: reader.connected }
                actions: [{ log: "connected {{reader}}" }]
              - name: home-assistant
                match: { uri: "https://www.home-assistant.io/tag/*" }
                actions: [{ log: "ha {{tag_id}} at {{reader}}" }]
              - name: music
                match: { uri: "spotify:*" }
                actions: [{ log: "music {{uri}} uid {{tag.uid}}" }]
              - name: gone
                match: { event: tag.removed }
                actions: [{ log: "removed {{tag.uid}}" }]
            """)
        let daemon = try TagrouterProcess(["run", "--config", file, "--log-format", "json"], directory: scratch.path,
                                environment: ["LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false"])
        defer { daemon.stop() }
        #expect(try await daemon.stdout(count: 1, timeout: .seconds(30)) == ["connected front-door"])
        try await request(control, #"{"op":"place","type":"ntag215","uid":"04a224b2c35e80","records":[{"uri":"spotify:track:6rqhFgbbKwnb9MLmUQDhG6"}]}"#, in: scratch)
        #expect(try await daemon.stdout(count: 2, timeout: .seconds(30)).last == "music spotify:track:6rqhFgbbKwnb9MLmUQDhG6 uid 04a224b2c35e80")
        try await request(control, #"{"op":"remove"}"#, in: scratch)
        #expect(try await daemon.stdout(count: 3, timeout: .seconds(30)).last == "removed 04a224b2c35e80")
        try await request(control, #"{"op":"place","type":"ntag213","uid":"04112233445566","records":[{"uri":"https://www.home-assistant.io/tag/front-door-key"}]}"#, in: scratch)
        #expect(try await daemon.stdout(count: 4, timeout: .seconds(30)).last == "ha front-door-key at front-door")
        try await request(control, #"{"op":"remove"}"#, in: scratch)
        _ = try await daemon.stdout(count: 5, timeout: .seconds(30))

        // A reload that renames the reader restarts the readers with the new settings.
        _ = try scratch.write("tagrouter.yaml", """
            state_dir: \(scratch.path)/state
            readers:
              - { name: back-door, device: "pn532_uart:\(link)", cooldown: 0s }
            routes:
              - name: up
                match: { event: reader.connected }
                actions: [{ log: "connected {{reader}}" }]
              - name: any
                actions: [{ log: "tap {{tag.uid}} at {{reader}}" }]
            """)
        daemon.signal(SIGHUP)
        try await daemon.stderr(containing: "reader started with the new config")
        #expect(try await daemon.stdout(count: 6, timeout: .seconds(30)).last == "connected back-door")
        try await request(control, #"{"op":"place","type":"ntag215","uid":"04a224b2c35e80","records":[{"text":"hi"}]}"#, in: scratch)
        #expect(try await daemon.stdout(count: 7, timeout: .seconds(30)).last == "tap 04a224b2c35e80 at back-door")
        daemon.signal(SIGTERM)
        #expect(try await daemon.exitStatus() == 0)
    }
}
