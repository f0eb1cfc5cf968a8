import PN532Sim
import TestSupport

extension PCSCDaemon {
    /// Runs `body` with a leased vpcd slot and the simulator's card on it; closes the card and gives the slot back after.
    func withCard<T>(_ body: (VPCDCard, Slot) async throws -> T) async throws -> T {
        let slot = try await leaseSlot()
        let card = VPCDCard(port: slot.port)
        defer {
            card.close()
            release(slot)
        }
        return try await body(card, slot)
    }
}
