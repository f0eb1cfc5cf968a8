import ReaderLibNFC
import ReaderPCSC
import TagReader

extension ReaderDrivers {
    /// The drivers these tests run readers with: libnfc (on the simulator) and PC/SC (through pcscd and vpcd).
    static let underTest = ReaderDrivers([LibNFCDriver.self, PCSCDriver.self])
}
