import CNFC

/// A libnfc context (`nfc_init` … `nfc_exit`). Each reader thread makes its own and
/// never shares it: libnfc contexts are not thread-safe.
final class NFCContext {
    let pointer: OpaquePointer

    /// Nil when libnfc cannot start (out of memory, unreadable `libnfc.conf`).
    init?() {
        var context: OpaquePointer?
        nfc_init(&context)
        guard let context else { return nil }
        pointer = context
    }

    deinit { nfc_exit(pointer) }

    /// The connstrings of the devices libnfc finds (serial ports only when
    /// `LIBNFC_INTRUSIVE_SCAN=true` or listed in `libnfc.conf`).
    func listDevices(max: Int = 16) -> [String] {
        let connstrings = UnsafeMutablePointer<nfc_connstring>.allocate(capacity: max)
        defer { connstrings.deallocate() }
        let found = nfc_list_devices(pointer, connstrings, max)
        return (0..<found).map { index in
            withUnsafeBytes(of: &connstrings[index]) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
        }
    }

    /// Opens `connstring` (`auto` or empty: the first device found).
    func open(_ connstring: String) -> NFCDevice? {
        let device = connstring == "auto" || connstring.isEmpty
            ? nfc_open(pointer, nil)
            : nfc_open(pointer, connstring)
        return device.map { NFCDevice($0, context: self) }
    }
}
