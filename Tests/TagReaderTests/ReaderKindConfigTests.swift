import Testing

import TagReader
import TagRouter

/// What each reader driver checks in its `readers:` entries when a config is
/// loaded with the drivers' kinds (the daemon's registry holds them).
@Suite struct ReaderKindConfigTests {
    let loader = ConfigLoader(registry: PluginRegistry([LogPlugin.self], readers: ReaderDrivers.underTest.kinds), environment: [:])

    /// pcscd watches a PC/SC reader's slot: `polling` (fast or not) changes nothing
    /// there, which the user hears about instead of expecting fast taps.
    @Test func pollingOnAPCSCReaderIsAWarning() throws {
        let config = try loader.load(text: """
            readers:
              - {name: door, device: "pcsc:ACS ACR122U*", polling: fast}
              - {name: desk, device: "pn532_uart:/dev/ttyUSB0", polling: fast}
              - {name: hall, device: "pcsc:auto"}
            routes: [{actions: [log]}]
            """, file: "t.yaml", directory: "/tmp")
        #expect(config.readers.map(\.polling) == [.fast, .fast, .autoPoll])
        #expect(config.warnings.map(\.description) == [
            "t.yaml:2:56: warning: readers[0].polling: applies to libnfc readers; pcscd watches a PC/SC reader's slot and tells tagrouter at once, so it changes nothing here (docs/reader.md)",
        ])
    }

    @Test func whatALibnfcReaderCannotDoIsAWarningAndAPCSCReaderCanDoIt() throws {
        func load(_ device: String) throws -> [String] {
            try loader.load(text: """
                readers:
                  - name: door
                    device: "\(device)"
                    beep_on_detect: false
                    feedback:
                      success: {color: green}
                routes: [{actions: [log]}]
                """, file: "t.yaml", directory: "/tmp").warnings.map(\.description)
        }
        let advice = "give it `feedback.sound` files to hear the outcome on this machine, or drive an ACR122U through pcscd (`device: \"pcsc:ACS ACR122U*\"`, docs/feedback.md)"
        #expect(try load("pn532_uart:/dev/ttyUSB0") == [
            "t.yaml:4:21: warning: readers[0].beep_on_detect: reader 'door' is a libnfc reader (pn532_uart:/dev/ttyUSB0), and libnfc has no LED or buzzer call: "
                + "tagrouter cannot turn its detection beep off there; " + advice,
            "t.yaml:6:16: warning: readers[0].feedback.success: reader 'door' is a libnfc reader (pn532_uart:/dev/ttyUSB0), and libnfc has no LED or buzzer call: "
                + "tagrouter cannot show LED patterns there; " + advice,
        ])
        #expect(try load("pcsc:ACS ACR122U*").isEmpty)
    }

    /// A reader named by its USB port takes sysfs's port name and nothing else (never a path),
    /// on both drivers that take `usb-port:`.
    @Test func aUSBPortDeviceMustNameAPort() throws {
        let good = try loader.load(text: """
            readers:
              - {name: left, device: "usb-port:1-1.2"}
              - {name: right, device: "pcsc:usb-port:3-2.4.1"}
            routes: [{actions: [log]}]
            """, file: "t.yaml", directory: "/tmp")
        #expect(good.readers.map(\.device) == ["usb-port:1-1.2", "pcsc:usb-port:3-2.4.1"])
        #expect(good.warnings.isEmpty)
        do {
            _ = try loader.load(text: """
                readers:
                  - {name: left, device: "usb-port:1-1.2"}
                  - {name: odd, device: "usb-port:../../dev/sda"}
                  - {name: other, device: "pcsc:usb-port:1-1.2:1.0"}
                routes: [{actions: [log]}]
                """, file: "t.yaml", directory: "/tmp")
            Issue.record("a config with bad port names loaded")
        } catch {
            #expect(error.errors.map(\.description) == [
                "t.yaml:3:25: readers[1].device: '../../dev/sda' is not a USB port name: bus, dash, ports joined by dots, as `tagrouter devices` prints them (`1-1.2`)",
                "t.yaml:4:27: readers[2].device: '1-1.2:1.0' is not a USB port name: bus, dash, ports joined by dots, as `tagrouter devices` prints them (`1-1.2`)",
            ])
        }
    }
}
