import TagCore
import TagKit
import TagReader

/// One-shot access to a card on a PC/SC reader (`TagAccess` through `PCSCDriver`):
/// waits for a card in its slot, connects, identifies it.
enum PCSCTagAccess {
    static func reachTag<T>(device name: String, timeout: Duration, _ body: (TagInfo, any NDEFTagDriver) throws -> T) throws -> T {
        let device = PCSCDevice(name) ?? PCSCDevice.auto
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
            throw TagAccessError.failed("PC/SC: \(error); is pcscd running (`systemctl status pcscd`)?")
        }
        throw TagAccessError.noTag(device: name, timeout: timeout)
    }
}
