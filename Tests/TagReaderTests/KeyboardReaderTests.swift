import Foundation
import Glibc
import TagCore
@testable import TagReader
import TagRouter
import Testing

@testable import ReaderKeyboard

/// Keyboard-wedge readers: recorded evdev streams through the record decoder,
/// the keystroke assembler, the card number formats and the shared scan loop
/// over the keyboard's field transport;
/// the device's open and grab against what this machine has (no /dev/uinput:
/// a regular file is an input device to nothing, so EVIOCGRAB answers ENOTTY).
@Suite struct KeyboardReaderTests {
    static func numbers(_ events: [InputEvent], keyGap: Duration = .milliseconds(100)) -> [KeystrokeAssembler.Outcome] {
        var assembler = KeystrokeAssembler(keyGap: keyGap)
        return events.flatMap { assembler.feed($0) } + (assembler.pause().map { [$0] } ?? [])
    }

    @Test func aReaderTypingTenDigitsAndEnterGivesOneNumber() {
        #expect(Self.numbers(KeyboardStreams.typing("0012345678\n")) == [.number("0012345678")])
    }

    @Test func hexLettersCountWithOrWithoutShiftAndTabEndsANumber() {
        #expect(Self.numbers(KeyboardStreams.typing("04A224b2\t")) == [.number("04a224b2")])
    }

    @Test func aReaderWithoutTerminatorIsEndedByThePause() {
        let events = KeyboardStreams.typing("2988745220") + KeyboardStreams.typing("0077735090", start: .seconds(1_700_000_002))
        #expect(Self.numbers(events) == [.number("2988745220"), .number("0077735090")])
    }

    @Test func keysTypedAtHumanSpeedComeApart() {
        let outcomes = Self.numbers(KeyboardStreams.typing("0012345678\n", gap: .milliseconds(250)))
        #expect(outcomes.count == 10)
        #expect(outcomes.allSatisfy { if case .number(let piece) = $0 { piece.count == 1 } else { false } })
        let format = CardNumberFormat(notation: .decimal, byteOrder: .asTyped)
        #expect(outcomes.compactMap { if case .number(let piece) = $0 { format.uid(piece) } else { nil } }.isEmpty)
    }

    @Test func aHeldKeyOtherKeysAndOverlongNumbersAreNoCard() {
        var held = KeyboardStreams.typing("0012")
        held.append(InputEvent(time: held.last!.time, type: InputEvent.key, code: 2, value: InputEvent.repeated))
        held += KeyboardStreams.typing("345678\n", start: held.last!.time + .milliseconds(8))
        #expect(Self.numbers(held) == [.rejected("a key was held down (autorepeat)")])
        #expect(Self.numbers(KeyboardStreams.typing("00123x5678\n")) == [.rejected("a key that is neither a digit nor a hex letter (code 45)")])
        #expect(Self.numbers(KeyboardStreams.typing(String(repeating: "1", count: 21) + "\n"))
            == [.rejected("longer than any card number (20 characters)")])
        // The next number is read again.
        #expect(Self.numbers(KeyboardStreams.typing("00123x5678\n0012345678\n")) == [
            .rejected("a key that is neither a digit nor a hex letter (code 45)"), .number("0012345678"),
        ])
    }

    /// Records are decoded alike whole, split in two, and byte by byte.
    @Test func recordsSplitAnywhereDecodeAlike() {
        let events = KeyboardStreams.typing("0012345678\n")
        let bytes = KeyboardStreams.bytes(events)
        for size in [bytes.count, bytes.count / 2 + 3, 1] {
            var decoder = InputEventDecoder()
            var decoded: [InputEvent] = []
            for start in stride(from: 0, to: bytes.count, by: size) { decoded += decoder.events(bytes[start..<min(start + size, bytes.count)]) }
            #expect(decoded == events, "read \(size) bytes at a time")
        }
    }

    /// The same MIFARE Classic card (UID 04 A2 24 B2 on a PN532) as each kind of reader types it.
    @Test(arguments: [
        ("0077735090", CardNumberFormat.Notation.decimal, CardNumberFormat.ByteOrder.asTyped, "04a224b2"),
        ("2988745220", .decimal, .reversed, "04a224b2"),
        ("04a224b2", .hex, .asTyped, "04a224b2"),
        ("b224a204", .hex, .reversed, "04a224b2"),
        ("16812345", .wiegand, .asTyped, "a83039"),
        ("04a224b2c35e80", .hex, .asTyped, "04a224b2c35e80"),
    ])
    func aTypedNumberIsTheUIDAPN532Reports(typed: String, notation: CardNumberFormat.Notation, order: CardNumberFormat.ByteOrder, uid: String) {
        #expect(CardNumberFormat(notation: notation, byteOrder: order).uid(typed)?.hex == uid)
    }

    @Test(arguments: [
        ("123", CardNumberFormat.Notation.decimal), ("4294967296", .decimal), ("00a2248800", .decimal),
        ("25612345", .wiegand), ("00165536", .wiegand), ("04a224b", .hex), ("04a224zz", .hex),
    ])
    func whatIsNotANumberOfTheFormatIsNoUID(typed: String, notation: CardNumberFormat.Notation) {
        #expect(CardNumberFormat(notation: notation, byteOrder: .asTyped).uid(typed) == nil)
    }

    static func reader(hold: Duration? = nil) -> ReaderConfig {
        var config = ReaderConfig.withDefaults(name: "box", device: "keyboard:/dev/input/by-id/usb-413d_2107-event-kbd")
        (config.exitDelay, config.cooldown, config.hold) = (.seconds(2), .seconds(1), hold)
        return config
    }

    /// The shared scan loop over a keyboard field whose input is a pipe the test types into.
    final class TypedField {
        private let descriptors: (read: Int32, write: Int32)
        private(set) var scan: FieldScan<KeyboardField>
        private(set) var events: [TagEvent] = []

        init(_ config: ReaderConfig) throws {
            var descriptors: [Int32] = [-1, -1]
            guard pipe(&descriptors) == 0 else { throw POSIXError(.EMFILE) }
            self.descriptors = (descriptors[0], descriptors[1])
            scan = FieldScan(config: config, transport: KeyboardField(config: config, settings: KeyboardSettings(), input: descriptors[0], wake: -1))
        }

        deinit {
            close(descriptors.read)
            close(descriptors.write)
        }

        /// The reader types `text` (whole, as one write).
        func type(_ text: String) {
            let bytes = KeyboardStreams.bytes(KeyboardStreams.typing(text))
            #expect(write(descriptors.write, bytes, bytes.count) == bytes.count)
        }

        /// Looks at the field until `done` holds for the events so far (each look waits at most for the key
        /// gap or the poll interval: call it only while something was typed or a tag counts as present).
        func look(until done: ([String]) -> Bool) throws {
            let deadline = ContinuousClock.now + .seconds(20)
            while !done(EventLog.summary(events)) {
                try #require(ContinuousClock.now < deadline, "timed out; events so far: \(EventLog.summary(events))")
                try scan.step { events.append($0) }
            }
        }
    }

    /// A recorded stream written into a pipe and read as the reader reads its device: the card
    /// arrives once, typed again it stays, and its removal is assumed `exit_delay` after its
    /// number was last typed; another card typed meanwhile is a presence of its own.
    @Test func aCardArrivesOnceAndItsRemovalIsAssumedAfterTheExitDelay() throws {
        var config = Self.reader()
        config.exitDelay = .milliseconds(300)
        let field = try TypedField(config)
        field.type("0077735090\n")
        try field.look { $0.count == 1 }
        #expect(field.events.first?.tag?.uid.hex == "04a224b2")
        #expect(field.events.first?.json["ndef"] == .null)
        field.type("0077735090\n")
        field.type("0099999999\n")
        try field.look { $0.count == 4 }
        #expect(EventLog.summary(field.events) == ["tag.arrived 04a224b2", "tag.arrived 05f5e0ff", "tag.removed 04a224b2", "tag.removed 05f5e0ff"])
        let removed = field.events.filter { $0.kind == .tagRemoved }
        #expect(removed.allSatisfy { $0.removalAssumed && $0.json["removal_assumed"] == .bool(true) })
        #expect(!field.events[0].removalAssumed)
    }

    /// With `hold`, a card typed once is a tap: its `tag.tapped` comes with the assumed removal.
    @Test func withHoldACardTypedOnceIsATapMarkedAssumed() throws {
        var config = Self.reader(hold: .seconds(1))
        config.exitDelay = .milliseconds(300)
        let field = try TypedField(config)
        field.type("0077735090\n")
        try field.look { $0.count == 3 }
        #expect(field.events.map(\.kind) == [.tagArrived, .tagTapped, .tagRemoved])
        #expect(field.events.dropFirst().allSatisfy { $0.removalAssumed })
    }

    /// No /dev/uinput here: a regular file stands in for the device. It opens, and
    /// EVIOCGRAB on it fails with ENOTTY, which is the driver's "not an input device".
    @Test func theGrabOfSomethingThatIsNoInputDeviceFailsAndSaysSo() throws {
        let path = NSTemporaryDirectory() + "keyboard-\(UUID().uuidString)"
        try Data(KeyboardStreams.bytes(KeyboardStreams.typing("0012345678\n"))).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(KeyboardDriver.probe(path) == .notInputDevice(path: path))
        #expect(KeyboardDriver.probe(path + "-missing") == .missing(path: path + "-missing"))
    }

    /// The reader as the daemon runs it: a device that is no input device is a `reader.waiting` saying so, and it waits.
    @Test func aReaderOnSomethingThatIsNoInputDeviceSaysSoInAReaderWaiting() async throws {
        let path = NSTemporaryDirectory() + "keyboard-\(UUID().uuidString)"
        try Data().write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let config = ReaderConfig.withDefaults(name: "box", device: "keyboard:" + path)
        let supervisor = ReaderSupervisor(readers: [config], drivers: .underTest)
        defer { supervisor.stop() }
        var first: TagEvent?
        for await event in supervisor.events {
            first = event
            break
        }
        #expect(first?.kind == .readerWaiting)
        #expect(first?.message == "\(path): not an input device (EVIOCGRAB: not a tty); name its /dev/input/by-id/…-event-kbd link")
    }

    /// `tagrouter devices --device keyboard:…` (the hardware guide's command) opens and grabs the device once and
    /// says why that failed; the machine's keyboard input devices are counted.
    @Test func devicesSaysWhyAKeyboardDeviceDoesNotGrab() async throws {
        let path = NSTemporaryDirectory() + "keyboard-\(UUID().uuidString)"
        try Data().write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await ReaderCLITests.tagrouter(["devices", "--device", "keyboard:" + path])
        #expect(run.stdout.contains("\nkeyboard input devices: "), "\(run.stdout)")
        #expect(run.stdout.contains("keyboard:\(path)\t\(path): not an input device (EVIOCGRAB: not a tty)"), "\(run.stdout)")
    }

    /// `doctor` on a made-up machine: a configured keyboard reader the service user cannot read, and the udev line that admits it by its USB ids.
    @Test func doctorGivesTheUdevLineForAReaderTheServiceUserCannotRead() throws {
        let root = NSTemporaryDirectory() + "keyboard-root-\(UUID().uuidString)/"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files = FileManager.default
        try files.createDirectory(atPath: root + "dev/input/by-id", withIntermediateDirectories: true)
        try files.createDirectory(atPath: root + "sys/class/input/event3/device/id", withIntermediateDirectories: true)
        try files.createDirectory(atPath: root + "etc", withIntermediateDirectories: true)
        try "root:x:0:\ninput:x:101:\n".write(toFile: root + "etc/group", atomically: true, encoding: .utf8)
        #expect(files.createFile(atPath: root + "dev/input/event3", contents: nil, attributes: [.posixPermissions: 0o660]))
        #expect(chown(root + "dev/input/event3", 0, 101) == 0)
        try files.createSymbolicLink(atPath: root + "dev/input/by-id/usb-413d_2107-event-kbd", withDestinationPath: "../event3")
        try "413d\n".write(toFile: root + "sys/class/input/event3/device/id/vendor", atomically: true, encoding: .utf8)
        try "2107\n".write(toFile: root + "sys/class/input/event3/device/id/product", atomically: true, encoding: .utf8)
        let account = MachineAccount(name: "tagrouter", uid: 998, gid: 998, groups: [998])
        let machine = DoctorMachine(root: root, account: account, devices: ["pn532_uart:/dev/ttyUSB0", "keyboard:/dev/input/by-id/usb-413d_2107-event-kbd"])
        #expect(KeyboardDriver.doctorChecks(machine) == [.failed(
            "keyboard reader /dev/input/by-id/usb-413d_2107-event-kbd (group input, mode 660): tagrouter cannot read it",
            fix: "echo 'SUBSYSTEM==\"input\", KERNEL==\"event*\", ATTRS{idVendor}==\"413d\", ATTRS{idProduct}==\"2107\", MODE=\"0640\", GROUP=\"plugdev\"' "
                + "| sudo tee -a /etc/udev/rules.d/99-tagrouter-keyboard-local.rules, then sudo udevadm control --reload-rules && sudo udevadm trigger")])
        #expect(chmod(root + "dev/input/event3", 0o664) == 0)
        #expect(KeyboardDriver.doctorChecks(machine) == [.ok(
            "keyboard reader /dev/input/by-id/usb-413d_2107-event-kbd (group input, mode 664): tagrouter can read it")])
    }

    /// The keyboard keys in a config: read into the reader's settings, did-you-mean for a misspelt one,
    /// and what changes nothing on such a reader is a warning.
    @Test func theKeyboardKeysLoadAndWhatChangesNothingIsAWarning() throws {
        let loader = ConfigLoader(registry: PluginRegistry([LogPlugin.self], readers: ReaderDrivers.underTest.kinds), environment: [:])
        let config = try loader.load(text: """
            readers:
              - {name: box, device: "keyboard:/dev/input/by-id/x-event-kbd", id_format: hex, id_byte_order: reversed, key_gap: 50ms, polling: fast}
              - {name: door, device: "pn532_uart:/dev/ttyUSB0", id_format: hex}
            routes: [{actions: [log]}]
            """, file: "t.yaml", directory: "/tmp")
        let settings = try #require(config.readers.first?.driverSettings.value(as: KeyboardSettings.self))
        #expect(settings.format == CardNumberFormat(notation: .hex, byteOrder: .reversed))
        #expect(settings.keyGap == .milliseconds(50))
        #expect(config.warnings.map(\.description) == [
            "t.yaml:2:131: warning: readers[0].polling: changes nothing on a keyboard-wedge reader: the kernel hands tagrouter each key as it comes (docs/reader.md)",
            "t.yaml:3:64: warning: readers[1].id_format: applies to keyboard-wedge readers; reader 'door' is a libnfc reader (pn532_uart:/dev/ttyUSB0), so it changes nothing here",
        ])
        let misspelt = #expect(throws: ConfigErrors.self) {
            try loader.load(text: "readers: [{device: \"keyboard:/x\", id_fromat: hex}]\nroutes: [{actions: [log]}]\n", file: "t.yaml", directory: "/tmp")
        }
        #expect(misspelt?.errors.map(\.description) == ["t.yaml:1:35: readers[0]: unknown key 'id_fromat' (did you mean 'id_format'?)"])
    }
}
