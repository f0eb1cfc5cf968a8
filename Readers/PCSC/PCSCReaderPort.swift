import TagReader
internal import CPCSC

extension PCSCContext {
    /// `SCARD_ATTR_CHANNEL_ID`: `SCARD_ATTR_VALUE(SCARD_CLASS_COMMUNICATIONS, 0x0110)`, a C macro Swift does not import.
    static let channelIDAttribute: UInt32 = 0x0002_0110

    /// The USB port of pcscd's reader `reader`, from the channel id its driver
    /// reports (`SCARD_ATTR_CHANNEL_ID` on a direct connection, card or not);
    /// nil when the driver gives none (not CCID, not USB: vpcd, serial readers).
    func usbPort(of reader: String, ports: USBPorts) -> String? {
        guard let card = try? connect(reader: reader, direct: true), let id = try? card.attribute(Self.channelIDAttribute),
            id.count == 4
        else { return nil }
        // A DWORD in the machine's byte order.
        return ports.port(channelID: id.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
    }
}

extension PCSCCard {
    /// A reader attribute (`SCardGetAttrib`): its bytes as the driver gave them.
    func attribute(_ id: UInt32) throws(PCSCError) -> [UInt8] {
        var value = [UInt8](repeating: 0, count: 64)
        var length = DWORD(value.count)
        let status = SCardGetAttrib(handle, DWORD(id), &value, &length)
        guard status == SCARD_S_SUCCESS else { throw PCSCError(status, "SCardGetAttrib") }
        return Array(value.prefix(Int(length)))
    }
}

extension PCSCDevice {
    /// The readers pcscd has with the USB port of each (nil when its driver tells none), for `tagrouter devices`.
    public static func listReadersWithPorts() -> Result<[(name: String, port: String?)], PCSCError> {
        Result { () throws(PCSCError) -> [(name: String, port: String?)] in
            let context = try PCSCContext()
            let ports = USBPorts()
            return try context.readers().map { ($0, context.usbPort(of: $0, ports: ports)) }
        }
    }
}
