import ReaderKeyboard
import ReaderLibNFC
import ReaderPCSC
import TagReader

extension ReaderDrivers {
    /// The drivers these tests run readers with: libnfc (on the simulator), PC/SC (through pcscd and vpcd), keyboard (recorded streams).
    static let underTest = ReaderDrivers([LibNFCDriver.self, PCSCDriver.self, KeyboardDriver.self])
    /// `underTest` and keyboard-wedge readers on a FIFO the test types into (`TypedKeyboardDriver`).
    static let withTypedKeyboard = ReaderDrivers([LibNFCDriver.self, PCSCDriver.self, KeyboardDriver.self, TypedKeyboardDriver.self])
}
