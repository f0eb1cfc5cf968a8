/// A Wi-Fi network from a Wi-Fi Simple Configuration record (`application/vnd.wfa.wsc`):
/// the first Credential's SSID, authentication, encryption and network key.
public struct WiFiCredential: Sendable, Equatable {
    /// Authentication type (WSC attribute 0x1003).
    public struct Authentication: RawRepresentable, Sendable, Equatable {
        public var rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        public static let open = Self(rawValue: 0x0001)
        public static let wpaPersonal = Self(rawValue: 0x0002)
        public static let shared = Self(rawValue: 0x0004)
        public static let wpaEnterprise = Self(rawValue: 0x0008)
        public static let wpa2Enterprise = Self(rawValue: 0x0010)
        public static let wpa2Personal = Self(rawValue: 0x0020)

        /// `Open`, `WPA-Personal`, `Shared`, `WPA-Enterprise`, `WPA2-Enterprise`,
        /// `WPA2-Personal`, or `0x…` for any other value.
        public var name: String {
            switch rawValue {
            case 0x0001: return "Open"
            case 0x0002: return "WPA-Personal"
            case 0x0004: return "Shared"
            case 0x0008: return "WPA-Enterprise"
            case 0x0010: return "WPA2-Enterprise"
            case 0x0020: return "WPA2-Personal"
            default: return "0x" + Hex.string([UInt8(rawValue >> 8), UInt8(rawValue & 0xFF)])
            }
        }
    }

    /// Encryption type (WSC attribute 0x100F).
    public struct Encryption: RawRepresentable, Sendable, Equatable {
        public var rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        public static let none = Self(rawValue: 0x0001)
        public static let wep = Self(rawValue: 0x0002)
        public static let tkip = Self(rawValue: 0x0004)
        public static let aes = Self(rawValue: 0x0008)

        /// `None`, `WEP`, `TKIP`, `AES`, or `0x…` for any other value.
        public var name: String {
            switch rawValue {
            case 0x0001: return "None"
            case 0x0002: return "WEP"
            case 0x0004: return "TKIP"
            case 0x0008: return "AES"
            default: return "0x" + Hex.string([UInt8(rawValue >> 8), UInt8(rawValue & 0xFF)])
            }
        }
    }

    public var ssid: String
    public var authentication: Authentication
    public var encryption: Encryption
    public var key: String

    static let mediaType = "application/vnd.wfa.wsc"
    private static let credential: UInt16 = 0x100E

    public init(ssid: String, authentication: Authentication, encryption: Encryption, key: String) {
        self.ssid = ssid
        self.authentication = authentication
        self.encryption = encryption
        self.key = key
    }

    /// Reads the first Credential attribute; nil when there is none. Attributes are
    /// read up to the first one that runs past its container.
    public init?(payload: [UInt8]) {
        guard let credential = Self.attributes(payload[...]).first(where: { $0.type == Self.credential }) else { return nil }
        let fields = Self.attributes(credential.value)
        func value(_ type: UInt16) -> ArraySlice<UInt8>? { fields.first { $0.type == type }?.value }
        func number(_ type: UInt16) -> UInt16 {
            guard let bytes = value(type), bytes.count == 2 else { return 0 }
            return UInt16(bytes[bytes.startIndex]) << 8 | UInt16(bytes[bytes.startIndex + 1])
        }
        self.init(ssid: value(0x1045).map { String(decoding: $0, as: UTF8.self) } ?? "",
                  authentication: Authentication(rawValue: number(0x1003)),
                  encryption: Encryption(rawValue: number(0x100F)),
                  key: value(0x1027).map { String(decoding: $0, as: UTF8.self) } ?? "")
    }

    /// A WSC payload: Version 1.0, then one Credential (network index 1, SSID,
    /// authentication, encryption, key, broadcast MAC address).
    public var payload: [UInt8] {
        var credential = Self.attribute(0x1026, [1])
        credential += Self.attribute(0x1045, Array(ssid.utf8))
        credential += Self.attribute(0x1003, [UInt8(authentication.rawValue >> 8), UInt8(authentication.rawValue & 0xFF)])
        credential += Self.attribute(0x100F, [UInt8(encryption.rawValue >> 8), UInt8(encryption.rawValue & 0xFF)])
        credential += Self.attribute(0x1027, Array(key.utf8))
        credential += Self.attribute(0x1020, [UInt8](repeating: 0xFF, count: 6))
        return Self.attribute(0x104A, [0x10]) + Self.attribute(Self.credential, credential)
    }

    private static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(value.count >> 8 & 0xFF), UInt8(value.count & 0xFF)] + value
    }

    private static func attributes(_ bytes: ArraySlice<UInt8>) -> [(type: UInt16, value: ArraySlice<UInt8>)] {
        var found: [(type: UInt16, value: ArraySlice<UInt8>)] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            guard bytes.endIndex - index >= 4 else { break }
            let type = UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            let start = index + 4
            guard bytes.endIndex - start >= length else { break }
            found.append((type, bytes[start..<start + length]))
            index = start + length
        }
        return found
    }
}
