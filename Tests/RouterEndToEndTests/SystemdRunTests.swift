import Foundation
import Testing
import TestSupport

/// `tagrouter run` under a `Type=notify` unit: a datagram socket stands in for
/// systemd's (`NOTIFY_SOCKET`), the reader is libnfc on the PN532 simulator.
@Suite struct SystemdRunTests {
    @Test func readyStatusWatchdogReloadAndStoppingReachSystemd() async throws {
        let scratch = Scratch()
        defer { scratch.remove() }
        let notify = try DatagramListener(path: scratch.path + "/notify")
        let (simulator, link, control) = try await startSimulator(in: scratch)
        defer { simulator.stop() }
        let file = try scratch.write("tagrouter.yaml", """
            state_dir: \(scratch.path)/state
            readers:
              - { name: front-door, device: "pn532_uart:\(link)", cooldown: 0s }
            routes:
              - name: music
                match: { uri: "spotify:*" }
                actions: [{ log: "music {{tag.uid}}" }]
            """)
        let daemon = try TagrouterProcess(
            ["run", "--config", file, "--log-format", "json"], directory: scratch.path,
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "1000000", "TZ": "UTC",
                          "LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false"])
        defer { daemon.stop() }

        let ready = try await notify.wait(for: "READY=1") { $0.hasPrefix("READY=1\nSTATUS=") }
        #expect(notify.texts[ready].contains("1 route"))
        let connected = try await notify.wait(for: "the reader connected", after: ready) { $0 == "STATUS=1 reader connected · 1 route" }
        // WATCHDOG_USEC=1s: a ping each half second while the reader thread makes progress.
        let firstPing = try await notify.wait(for: "a watchdog ping") { $0 == "WATCHDOG=1" }
        try await notify.wait(for: "another watchdog ping", after: firstPing) { $0 == "WATCHDOG=1" }

        try await request(control, #"{"op":"place","type":"ntag215","uid":"04a224b2c35e80","records":[{"uri":"spotify:track:1"}]}"#, in: scratch)
        #expect(try await daemon.stdout(count: 1, timeout: .seconds(30)) == ["music 04a224b2c35e80"])
        let tapped = try await notify.wait(for: "the tap in STATUS", after: connected) { $0.contains("last tap ") }
        #expect(notify.texts[tapped].hasPrefix("STATUS=1 reader connected · 1 route · last tap "))
        #expect(notify.texts[tapped].hasSuffix(" front-door"))

        daemon.signal(SIGHUP)
        let reloading = try await notify.wait(for: "RELOADING=1", after: tapped) { $0.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") }
        try await notify.wait(for: "READY=1 after the reload", after: reloading) { $0.hasPrefix("READY=1\nSTATUS=1 reader connected") }

        daemon.signal(SIGTERM)
        #expect(try await daemon.exitStatus() == 0)
        try await notify.wait(for: "STOPPING=1", after: reloading) { $0 == "STOPPING=1" }
        #expect(notify.texts.last == "STOPPING=1")
    }

}
