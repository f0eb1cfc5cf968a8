/// A Bluetooth BR/EDR out-of-band record (`application/vnd.bluetooth.ep.oob`): the
/// device address and its name, which phones use to pair on a tap.
public struct BluetoothOOB: Sendable, Equatable {
    /// `AA:BB:CC:DD:EE:FF`, most significant byte first, uppercase.
    public var address: String
    /// EIR Complete Local Name (0x09), else Shortened Local Name (0x08).
    public var name: String?

    static let mediaType = "application/vnd.bluetooth.ep.oob"

    public init(address: String, name: String?) {
        self.address = address
        self.name = name
    }

    /// Reads the OOB length (2 bytes, little-endian), the address (6 bytes,
    /// little-endian) and the EIR structures after them; nil when the payload is
    /// shorter than 8 bytes.
    public init?(payload: [UInt8]) {
        guard payload.count >= 8 else { return nil }
        let declared = Int(payload[0]) | Int(payload[1]) << 8
        let end = declared >= 8 ? min(declared, payload.count) : payload.count
        address = payload[2..<8].reversed().map { Hex.string([$0]).uppercased() }.joined(separator: ":")
        var complete: String?
        var shortened: String?
        var index = 8
        while index < end {
            let length = Int(payload[index])
            guard length > 0, index + 1 + length <= end else { break }
            let data = payload[(index + 2)..<(index + 1 + length)]
            switch payload[index + 1] {
            case 0x09: complete = complete ?? String(decoding: data, as: UTF8.self)
            case 0x08: shortened = shortened ?? String(decoding: data, as: UTF8.self)
            default: break
            }
            index += 1 + length
        }
        name = complete ?? shortened
    }
}
