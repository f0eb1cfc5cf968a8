import FoundationEssentials
import NDEF
import Synchronization
import SystemKit
import TagCore

/// The scripted part of `tagrouter demo`: five tags put on the simulated reader
/// one after another through its control socket, each lifted again. Every step
/// waits for the daemon to report what happened (the narrator's `events`), so
/// the pace is the reader's, plus a moment to read the lines.
final class DemoTour: Sendable {
    /// One tag the tour places: its title, the simulator's `place` request, and how long it lies on the reader.
    struct Step: Sendable {
        var title: String
        var uid: String
        var request: String
        var lying: Duration = .milliseconds(800)
    }

    static let steps: [Step] = [
        Step(title: "A sticker with a link (what a phone would open)", uid: "04a224b2c35e80",
             request: #"{"op":"place","type":"ntag215","uid":"04a224b2c35e80","records":[{"uri":"https://example.com/a"}]}"#),
        Step(title: "A tag written by the Home Assistant app", uid: "04d1e2f3a4b5c6",
             request: #"{"op":"place","type":"ntag213","uid":"04d1e2f3a4b5c6","records":[{"uri":"https://www.home-assistant.io/tag/front-door"}]}"#),
        Step(title: "A tag with a note on it", uid: "04aa55aa55aa55",
             request: #"{"op":"place","type":"ntag216","uid":"04aa55aa55aa55","records":[{"text":"Water the plants","lang":"en"}]}"#),
        Step(title: "An office badge: a MIFARE Classic card with no NDEF message", uid: "a1b2c3d4",
             request: #"{"op":"place","type":"mifare-classic-1k","image":"\#(factoryClassic1K(uid: [0xA1, 0xB2, 0xC3, 0xD4]))"}"#),
        Step(title: "A tag held on the reader for 3 s, then lifted", uid: "04bb66bb66bb66",
             request: #"{"op":"place","type":"ntag215","uid":"04bb66bb66bb66","records":[{"uri":"https://example.com/b"}]}"#,
             lying: .seconds(3)),
    ]

    private let control: String
    private let narrator: DemoNarrator
    private let waiting = Mutex("the simulator to start")

    /// A tour through the simulator listening on `control`, told by `narrator`.
    init(control: String, narrator: DemoNarrator) {
        self.control = control
        self.narrator = narrator
    }

    /// What the tour is waiting for at this moment, for a message when it takes too long.
    var currentWait: String { waiting.withLock { $0 } }

    /// Places and lifts every tag of `steps`, once the daemon reports the reader connected.
    func play() async throws(CLIError) {
        var events = narrator.events.makeAsyncIterator()
        try await waitFor("the daemon to connect to the simulated reader", &events) { $0.kind == .readerConnected }
        for (index, step) in Self.steps.enumerated() {
            narrator.say("\n\(index + 1)/\(Self.steps.count)  \(step.title)")
            try await send(step.request)
            try await waitFor("tag.arrived for \(step.uid)", &events) { $0.kind == .tagArrived && $0.tag?.uid.hex == step.uid }
            try await pause(step.lying)
            try await send(#"{"op":"remove"}"#)
            try await waitFor("tag.removed for \(step.uid)", &events) { $0.kind == .tagRemoved && $0.tag?.uid.hex == step.uid }
            try await pause(.milliseconds(400))
        }
    }

    private func waitFor(
        _ what: String, _ events: inout AsyncStream<TagEvent>.Iterator, _ wanted: (TagEvent) -> Bool
    ) async throws(CLIError) {
        waiting.withLock { $0 = what }
        while let event = await events.next() {
            if wanted(event) { return }
        }
        throw .runtime("the daemon stopped while the demo waited for \(what); its log is above")
    }

    /// A moment to read what was printed.
    private func pause(_ duration: Duration) async throws(CLIError) {
        waiting.withLock { $0 = "a pause of \(duration)" }
        do { try await Task.sleep(for: duration) } catch { throw .runtime("the demo was stopped") }
    }

    /// One request to the simulator's control socket, on a thread of its own (the client blocks).
    private func send(_ request: String) async throws(CLIError) {
        waiting.withLock { $0 = "the simulator to answer \(request)" }
        let control = control
        let answer = await withCheckedContinuation { (continuation: CheckedContinuation<Result<String, CLIError>, Never>) in
            DedicatedThread.start(name: "demo control") {
                continuation.resume(returning: Result { () throws(CLIError) -> String in try SimulateClient.send(request, to: control) })
            }
        }
        let response = try answer.get()
        guard response.contains(#""ok":true"#) else { throw .runtime("the simulator refused \(request): \(response)") }
    }

    /// A MIFARE Classic 1K as it leaves the factory: the UID, its BCC, SAK and ATQA
    /// in block 0, empty data blocks, and every sector trailer with the transport
    /// keys (FFFFFFFFFFFF) — nothing an NFC Forum reader can find a message in.
    static func factoryClassic1K(uid: [UInt8]) -> String {
        let empty = [UInt8](repeating: 0, count: 16)
        let manufacturer = uid + [uid.reduce(0, ^), 0x08, 0x04, 0x00] + [UInt8](repeating: 0x62, count: 8)
        let trailer = [UInt8](repeating: 0xFF, count: 6) + [0xFF, 0x07, 0x80, 0x69] + [UInt8](repeating: 0xFF, count: 6)
        let sectors = (0..<16).map { sector in (sector == 0 ? manufacturer : empty) + empty + empty + trailer }
        return Hex.string(sectors.joined())
    }
}
