import NDEF
import SecureTags
import TagKit

/// An NTAG 424 DNA with Secure Dynamic Messaging on, as a personalisation for SUN
/// URLs leaves it: a Type 4 tag (ATQA `03 44`, SAK `20`, ATS `06 77 77 71 02 80`)
/// whose 256-byte NDEF file, read-only to readers, holds one URI record ending in
/// `picc_data=<32 hex digits>&cmac=<16 hex digits>`. The first READ BINARY of the
/// NDEF file after a SELECT (or after the tag was activated) increments the read
/// counter (SDMReadCtr) and mirrors fresh encrypted PICC data and SDMMAC into
/// those digits; the further reads of that selection see the same (a reader reads
/// NLEN, then the message in chunks). At counter FFFFFF the file no longer reads.
public struct NTAG424DNATag: SimulatedTag {
    /// The size of NTAG 424 DNA's NDEF file (file 02).
    static let ndefFileSize = 256
    /// The read counter's last value: reads are refused once it is reached.
    public static let counterLimit = 0xFF_FFFF

    private var file: Type4Tag
    private let mirror: SUNMirror
    /// SDMReadCtr: the counter the last read mirrored (the next one mirrors one more).
    public private(set) var readCounter: Int
    private let piccDataOffset: Int
    private let macOffset: Int
    /// The current selection's read has mirrored its SUN data.
    private var mirrored = false

    /// A tag whose URL is `url` followed by the SUN parameters, mirroring with `mirror` (its UID and keys),
    /// with SDMReadCtr at `readCounter` (the first read mirrors one more).
    public init(mirror: SUNMirror, url: String, readCounter: Int = 0) throws(TagModelError) {
        let suffix = "picc_data=" + String(repeating: "0", count: 32) + "&cmac=" + String(repeating: "0", count: 16)
        let message = NDEFMessage(records: [.uri(url + (url.contains("?") ? "&" : "?") + suffix)]).encoded()
        file = try Type4Tag(uid: mirror.uid, message: message, fileSize: Self.ndefFileSize, writable: false)
        self.mirror = mirror
        self.readCounter = min(max(readCounter, 0), Self.counterLimit)
        macOffset = 2 + message.count - 16
        piccDataOffset = macOffset - 6 - 32
    }

    public var typeName: String { "type4" }

    public var activation: TagActivation {
        TagActivation(uid: mirror.uid, atqa: [0x03, 0x44], sak: 0x20, ats: [0x06, 0x77, 0x77, 0x71, 0x02, 0x80])
    }

    public var memory: [UInt8] { file.memory }

    public mutating func reset() {
        file.reset()
        mirrored = false
    }

    public mutating func exchange(_ command: [UInt8]) throws(TagTransportError) -> [UInt8] {
        if command.count >= 4, command[0] == 0x00 {
            if command[1] == 0xA4 {
                mirrored = false
            } else if command[1] == 0xB0, file.isNDEFFileSelected, !mirrored {
                guard readCounter < Self.counterLimit else { return [0x69, 0x82] }
                readCounter += 1
                guard let sun = try? mirror.mirror(counter: readCounter, padding: (0..<5).map { _ in UInt8.random(in: 0...255) }) else {
                    return [0x6F, 0x00]
                }
                file.overwriteNDEFFile(at: piccDataOffset, with: sun.piccData)
                file.overwriteNDEFFile(at: macOffset, with: sun.mac)
                mirrored = true
            }
        }
        return try file.exchange(command)
    }
}
