import CNFC
import FoundationEssentials
import Glibc
import Lifecycle
import OrderedJSON
import SystemKit
import TagCore
import TagKit

/// Why `TagAccess.withTag` could not reach a tag.
public enum TagAccessError: Error, Sendable, CustomStringConvertible {
    /// The device did not open (missing, no permission).
    case noReader(device: String)
    /// Another process holds the device (`device … is in use by pid N`).
    case busy(String)
    /// No tag came into the field in time.
    case noTag(device: String, timeout: Duration)
    /// The tag is of a kind tagrouter cannot read or write.
    case unsupported(type: String)
    /// The device failed while polling.
    case device(NFCError)
    /// pcscd could not be reached, or failed while waiting for a card.
    case pcsc(PCSCError)

    public var description: String {
        switch self {
        case .noReader(let device): return "could not open the reader '\(device)'; `tagrouter devices` says why"
        case .busy(let message): return message
        case .noTag(let device, let timeout): return "no tag arrived on '\(device)' within \(timeout / .seconds(1)) s"
        case .unsupported(let type): return "tagrouter cannot write \(type) tags"
        case .device(let error): return "reader failed: \(error)"
        case .pcsc(let error): return "PC/SC: \(error); is pcscd running (`systemctl status pcscd`)?"
        }
    }
}

/// One-shot access to a tag for `tagrouter write` and tools: open a reader, wait
/// for a tag (one already lying there counts), identify it, and hand its identity
/// and the TagKit driver for its type to a body that runs on a dedicated thread,
/// where blocking libnfc calls belong.
public enum TagAccess {
    /// Runs `body` with the first (identified) tag to arrive on `device` within `timeout`.
    /// A device another process holds fails at once (`ifBusy: .exit`) or is waited
    /// for within the same `timeout`. `body`'s own errors come back unchanged;
    /// reaching the tag fails with `TagAccessError`.
    public static func withTag<T: Sendable>(
        device: String, timeout: Duration, ifBusy: ReaderConfig.BusyPolicy = .exit,
        _ body: @escaping @Sendable (_ tag: TagInfo, _ driver: any NDEFTagDriver) throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DedicatedThread.start(name: "tag access \(device)") {
                continuation.resume(with: Result { try reachTag(device: device, timeout: timeout, ifBusy: ifBusy, body) })
            }
        }
    }

    private static func reachTag<T>(
        device connstring: String, timeout: Duration, ifBusy: ReaderConfig.BusyPolicy, _ body: (TagInfo, any NDEFTagDriver) throws -> T
    ) throws -> T {
        if let device = PCSCDevice(connstring) { return try reachCard(device, name: connstring, timeout: timeout, body) }
        let deadline = ContinuousClock.now + timeout
        let device = try open(connstring, until: deadline, ifBusy: ifBusy)
        do {
            try device.initiatorInit()
            try device.setProperty(NP_INFINITE_SELECT, false, "disable infinite select")
            while ContinuousClock.now < deadline {
                guard let target = try device.autoPoll(pollCount: 1, period: 1).target,
                    let tag = TagInspector.identify(target, on: device)
                else { continue }
                if let lost = device.lost { throw lost }
                guard let driver = tag.driver else { throw TagAccessError.unsupported(type: tag.info.type) }
                return try body(tag.info, driver)
            }
        } catch let error as NFCError {
            throw TagAccessError.device(error)
        }
        throw TagAccessError.noTag(device: connstring, timeout: timeout)
    }

    /// Whether another process (a running daemon) holds `connstring` now; false for
    /// a PC/SC reader (pcscd shares it) and when the lock cannot be checked.
    public static func isHeldElsewhere(_ connstring: String) -> Bool {
        guard !PCSCDevice.names(connstring) else { return false }
        do {
            _ = try DeviceLock.acquire(connstring)  // released again at once
            return false
        } catch {
            if case .inUse = error { return true }
            return false
        }
    }

    /// Opens the device, waiting (with the reader backoff, logged once) while another process holds it if asked to.
    private static func open(_ connstring: String, until deadline: ContinuousClock.Instant, ifBusy: ReaderConfig.BusyPolicy) throws -> NFCDevice {
        guard let context = NFCContext.shared else { throw TagAccessError.noReader(device: connstring) }
        var backoff = Backoff.readerReopen
        var reported = false
        while true {
            switch context.open(connstring) {
            case .success(let device):
                return device
            case .failure(.notOpened):
                throw TagAccessError.noReader(device: connstring)
            case .failure(.busy(let holder)):
                let wait = backoff.next()
                guard ifBusy == .wait, ContinuousClock.now + wait < deadline else { throw TagAccessError.busy(holder.description) }
                if !reported {
                    Log.warning("\(holder); waiting for it", JSONObject(["device": .string(connstring)]))
                    reported = true
                }
                usleep(UInt32(clamping: wait.milliseconds * 1000))
            }
        }
    }

    /// `reachTag` on a PC/SC reader: waits for a card in its slot, connects, identifies it.
    private static func reachCard<T>(
        _ device: PCSCDevice, name: String, timeout: Duration, _ body: (TagInfo, any NDEFTagDriver) throws -> T
    ) throws -> T {
        let deadline = ContinuousClock.now + timeout
        do {
            let context = try PCSCContext()
            guard let reader = device.pick(from: try context.readers(), in: context) else { throw TagAccessError.noReader(device: name) }
            var known: PCSCContext.ReaderState?
            while ContinuousClock.now < deadline {
                guard let state = try context.waitForChange(reader: reader, known: known, timeout: deadline - ContinuousClock.now) else { break }
                known = state
                guard state.cardPresent, let card = try? context.connect(reader: reader),
                    // A card that left before pcscd noticed: wait for the next one.
                    let tag = try? PCSCInspector.identify(card, atr: state.atr)
                else { continue }
                guard let driver = tag.driver else { throw TagAccessError.unsupported(type: tag.info.type) }
                return try withExtendedLifetime(card) { try body(tag.info, driver) }
            }
        } catch let error as PCSCError {
            throw TagAccessError.pcsc(error)
        }
        throw TagAccessError.noTag(device: name, timeout: timeout)
    }
}
