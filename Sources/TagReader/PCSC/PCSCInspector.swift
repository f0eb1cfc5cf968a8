import TagCore
import TagKit

/// Identifies the card on a PC/SC reader — UID from GET DATA (`FF CA 00 00 00`),
/// type from the ATR's card name (a Type 2 tag's size from its CC) — and picks
/// the TagKit driver: Type 2 and MIFARE Classic through the storage-card
/// commands, Type 4 through its own APDUs. Other cards are named but not read.
enum PCSCInspector {
    /// Names the card (`uid`: what GET DATA answered already, if it was asked);
    /// throws when it left or the reader failed on the way.
    static func identify(_ card: PCSCCard, atr: [UInt8], uid known: TagUID? = nil) throws(TagTransportError) -> TagInspector.Identified {
        let transport = PCSCTransport(card: card)
        let uid: [UInt8]
        if let known { uid = known.bytes } else { uid = try transport.readerCommand([0xFF, 0xCA, 0x00, 0x00, 0x00]) }
        guard let identity = PCSCCardName.identify(atr: atr) else {
            return TagInspector.Identified(info: TagInfo(uid: TagUID(bytes: uid), type: "unknown"), driver: nil)
        }
        var type = identity.type
        let tagTransport: (any TagTransport)? =
            switch identity.access {
            case .apdus: transport
            case .storageCommands: StorageCardTransport(reader: transport)
            case .none: nil
            }
        if identity.nfcForumType == 2, let cc = try? tagTransport?.transceive([0x30, 0x03]), cc.count >= 4 {
            type = PCSCCardName.refineType2(type, ccSizeByte: cc[2])
        }
        let driver = tagTransport.flatMap { TagDrivers.driver(forType: type, uid: uid, transport: $0) }
        return TagInspector.Identified(info: TagInfo(uid: TagUID(bytes: uid), type: type, nfcForumType: identity.nfcForumType), driver: driver)
    }

    /// Identifies the card and reads its NDEF message; what went wrong is in `ndefError`.
    static func inspect(_ card: PCSCCard, atr: [UInt8], uid: TagUID) -> TagReadout {
        do {
            return TagInspector.read(try identify(card, atr: atr, uid: uid))
        } catch {
            return TagReadout(info: TagInfo(uid: uid, type: PCSCCardName.identify(atr: atr)?.type ?? "unknown"), ndefError: error.description)
        }
    }
}
