import Foundation
import NDEF
import PN532Sim
import TagCore
import TagKit
import Testing
import TestSupport

@testable import TagReader

/// The presence behaviours every reader kind shares through the one scan loop (`FieldScan`):
/// libnfc and PC/SC on a simulated field, and a keyboard-wedge reader (`TypedKeyboardDriver`),
/// which sees a card only while its number is typed and reports no removal: its removal is
/// assumed `exit_delay` after the number was last typed, and says so.
extension ReaderBehaviourTests {
    enum PresenceBackend: String, CaseIterable, CustomTestStringConvertible {
        case libnfc, libnfcFast, pcsc, keyboard
        var testDescription: String { rawValue }
    }

    /// Two tags as each kind sees them: 7-byte UIDs on the simulated field, the numbers a
    /// keyboard reader types for 4-byte ones.
    enum Card: CaseIterable {
        case a, b

        var uid: [UInt8] { self == .a ? ReaderBehaviourTests.uidA : ReaderBehaviourTests.uidB }
        var number: String { self == .a ? "0077735090" : "0099999999" }
    }

    /// A reader of one kind, and how a test puts a card on it and takes it off.
    struct PresenceReader {
        let backend: PresenceBackend
        private let field: Reader?
        private let keyboard: TypedKeyboard?

        init(_ backend: PresenceBackend) async throws {
            self.backend = backend
            switch backend {
            case .libnfc: (field, keyboard) = (try await Reader(.libnfc), nil)
            case .libnfcFast: (field, keyboard) = (try await Reader(.libnfcFast), nil)
            case .pcsc: (field, keyboard) = (try await Reader(.pcsc), nil)
            case .keyboard: (field, keyboard) = (nil, try TypedKeyboard())
            }
        }

        func close() {
            field?.close()
            keyboard?.close()
        }

        /// The reader, with these settings, watched from now on.
        func watch(cooldown: Duration = .zero, hold: Duration? = nil) -> (ReaderSupervisor, EventLog) {
            var config = ReaderConfig.testing(name: "desk", device: field?.device ?? keyboard?.device ?? "", cooldown: cooldown, hold: hold)
            if backend == .libnfcFast { config.polling = .fast }
            let supervisor = ReaderSupervisor(readers: [config], drivers: .withTypedKeyboard)
            return (supervisor, EventLog(supervisor))
        }

        /// `card` placed on the reader (typed, on a keyboard reader).
        func put(_ card: Card) throws {
            if let keyboard { return keyboard.type(card.number + "\n") }
            field?.field.place(try ReaderBehaviourTests.ntag215(card.uid, [.uri("https://example.com/\(card)")]))
        }

        /// Every card lifted (a keyboard reader sees nothing of it: it types no more).
        func liftAll() { field?.field.removeAll() }

        /// `card`'s UID as events carry it.
        func hex(_ card: Card) -> String {
            keyboard == nil ? TagUID(bytes: card.uid).hex : (card == .a ? "04a224b2" : "05f5e0ff")
        }

        /// Grows each time the reader looks at a tag (on a keyboard reader: each number typed is read in order).
        func looks() -> Int { field?.looks() ?? 0 }
    }

    @Test(arguments: PresenceBackend.allCases)
    func aCardIsPresentOnceAndItsRemovalSaysWhetherItWasSeen(backend: PresenceBackend) async throws {
        let reader = try await PresenceReader(backend)
        defer { reader.close() }
        let (supervisor, log) = reader.watch()
        defer { supervisor.stop() }
        try await log.wait(for: 1)
        try reader.put(.a)
        try await log.wait(for: 2)
        reader.liftAll()
        #expect(try await log.kinds(3) == ["reader.connected", "tag.arrived \(reader.hex(.a))", "tag.removed \(reader.hex(.a))"])
        #expect(log.events[2].removalAssumed == (backend == .keyboard))
    }

    @Test(arguments: PresenceBackend.allCases)
    func theSameCardBackWithinTheCooldownIsSilent(backend: PresenceBackend) async throws {
        let reader = try await PresenceReader(backend)
        defer { reader.close() }
        let (supervisor, log) = reader.watch(cooldown: .seconds(30))
        defer { supervisor.stop() }
        try await log.wait(for: 1)
        try reader.put(.a)
        try await log.wait(for: 2)
        reader.liftAll()
        try await log.wait(for: 3)
        let looks = reader.looks()
        try reader.put(.a)
        if backend != .keyboard { try await Self.waitUntil { reader.looks() > looks } }
        reader.liftAll()
        try reader.put(.b)
        #expect(try await log.kinds(4) == [
            "reader.connected", "tag.arrived \(reader.hex(.a))", "tag.removed \(reader.hex(.a))", "tag.arrived \(reader.hex(.b))",
        ])
    }

    /// With a `hold` far longer than the test, a card put down and lifted is a tap: `tag.tapped` just before its removal.
    @Test(arguments: PresenceBackend.allCases)
    func aCardLiftedBeforeItsHoldIsATap(backend: PresenceBackend) async throws {
        let reader = try await PresenceReader(backend)
        defer { reader.close() }
        let (supervisor, log) = reader.watch(hold: .seconds(3600))
        defer { supervisor.stop() }
        try await log.wait(for: 1)
        try reader.put(.a)
        try await log.wait(for: 2)
        reader.liftAll()
        #expect(try await log.kinds(4) == [
            "reader.connected", "tag.arrived \(reader.hex(.a))", "tag.tapped \(reader.hex(.a))", "tag.removed \(reader.hex(.a))",
        ])
        #expect(log.events[2...].allSatisfy { $0.removalAssumed == (backend == .keyboard) })
    }
}

extension ReaderBehaviourTests {
    /// A card left past `hold` is held: `tag.held` on time, while it lies still (PC/SC used to wait for the
    /// slot's next change, and a card lifted after its hold got neither `tag.held` nor `tag.tapped`). A keyboard
    /// reader's card is held only while its number is typed again and again, which these tests do not type.
    @Test(arguments: [PresenceBackend.libnfc, .libnfcFast, .pcsc])
    func aCardLeftPastItsHoldIsHeldWhileItLiesThere(backend: PresenceBackend) async throws {
        let reader = try await PresenceReader(backend)
        defer { reader.close() }
        let (supervisor, log) = reader.watch(hold: .milliseconds(300))
        defer { supervisor.stop() }
        try await log.wait(for: 1)
        try reader.put(.a)
        #expect(try await log.kinds(3) == ["reader.connected", "tag.arrived \(reader.hex(.a))", "tag.held \(reader.hex(.a))"])
        reader.liftAll()
        #expect(try await log.kinds(4).last == "tag.removed \(reader.hex(.a))")
        #expect(log.events.count == 4)
    }
}
