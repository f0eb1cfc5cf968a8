import TagCore
import TagReader
import TagKit

/// Identifies the card on a PC/SC reader — UID from GET DATA (`FF CA 00 00 00`),
/// type from the ATR's card name (a Type 2 tag's size from its CC) — and picks
/// the TagKit driver: Type 2 and MIFARE Classic through the storage-card
/// commands, FeliCa (Type 3) through the reader's pass-through, Type 4 through
/// its own APDUs, ISO 15693 (Type 5) through READ BINARY on its blocks.
/// Other cards are named but not read.
enum PCSCInspector {
    /// Names the card (`uid`: what GET DATA answered already, if it was asked);
    /// throws when it left or the reader failed on the way.
    static func identify(_ card: PCSCCard, atr: [UInt8], uid known: TagUID? = nil) throws(TagTransportError) -> TagInspector.Identified {
        let transport = PCSCTransport(card: card)
        let uid: [UInt8]
        if let known { uid = known.bytes } else { uid = try readUID(card, atr: atr) }
        guard let identity = PCSCCardName.identify(atr: atr) else {
            return TagInspector.Identified(info: TagInfo(uid: TagUID(bytes: uid), type: "unknown"), driver: nil)
        }
        var (type, nfcForumType) = (identity.type, identity.nfcForumType)
        let tagTransport: (any TagTransport)? =
            switch identity.access {
            case .apdus: transport
            case .storageCommands: StorageCardTransport(reader: transport)
            case .feliCaCommands: FeliCaPassThroughTransport(reader: transport)
            case .vicinityCommands: VicinityCardTransport(reader: transport)
            case .none: nil
            }
        if identity.access == .vicinityCommands { (type, nfcForumType) = TagIdentity.identify(iso15693UID: uid) }
        if nfcForumType == 2, let cc = try? tagTransport?.transceive([0x30, 0x03]), cc.count >= 4 {
            type = PCSCCardName.refineType2(type, ccSizeByte: cc[2])
        }
        if identity.access == .feliCaCommands, let tagTransport, try answersNFCForumPolling(tagTransport) {
            (type, nfcForumType) = TagIdentity.identify(felicaSystemCode: nfcForumSystemCode)
        }
        let driver = tagTransport.flatMap { TagDrivers.driver(forType: type, uid: uid, transport: $0) }
        return TagInspector.Identified(info: TagInfo(uid: TagUID(bytes: uid), type: type, nfcForumType: nfcForumType), driver: driver)
    }

    /// The card's UID from GET DATA (`FF CA 00 00 00`), in the order events show it:
    /// an ISO 15693 UID, which readers give least significant byte first, turned to `E0 …`.
    static func readUID(_ card: PCSCCard, atr: [UInt8]) throws(TagTransportError) -> [UInt8] {
        let uid = try PCSCTransport(card: card).readerCommand([0xFF, 0xCA, 0x00, 0x00, 0x00])
        return PCSCCardName.identify(atr: atr)?.access == .vicinityCommands ? TagIdentity.iso15693UID(fromReader: uid) : uid
    }

    /// The NFC Forum's FeliCa system code (Type 3 tags).
    static let nfcForumSystemCode: [UInt8] = [0x12, 0xFC]

    /// Whether a FeliCa card has the NFC Forum system: the ATR says only "FeliCa",
    /// so the card is polled for system code 12FC (every FeliCa card, Lite-S
    /// included, answers Polling; one without that system stays silent, which the
    /// reader reports as a failure). Throws when the card left.
    private static func answersNFCForumPolling(_ transport: any TagTransport) throws(TagTransportError) -> Bool {
        do {
            let answer = try transport.transceive([0x06, 0x00] + nfcForumSystemCode + [0x00, 0x00])
            return answer.count >= 18 && answer[1] == 0x01
        } catch .refused {
            return false
        }
    }

    /// Identifies the card and reads its NDEF message; what went wrong is in `ndefError`.
    static func inspect(_ card: PCSCCard, atr: [UInt8], uid: TagUID, signature: Bool) -> TagReadout {
        do {
            return TagInspector.read(try identify(card, atr: atr, uid: uid), signature: signature)
        } catch {
            return TagReadout(info: TagInfo(uid: uid, type: PCSCCardName.identify(atr: atr)?.type ?? "unknown"), ndefError: error.description)
        }
    }
}
